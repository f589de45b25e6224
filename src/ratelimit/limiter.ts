// The per-second limiter: one budget per subscription, shared by all its keys.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisLink } from './redisConnection.js';

export interface RateDecision {
  allowed: boolean;
  /** Requests per second allowed. */
  limit: number;
  remaining: number;
  /** Milliseconds until the current one-second window ends. */
  resetMs: number;
}

export interface RateLimiter {
  consume(subscriptionId: string, perSecond: number): Promise<RateDecision>;
  /** The current window's state without spending a point (for refusals that come before the rate). */
  peek(subscriptionId: string, perSecond: number): Promise<RateDecision>;
  /** Gives back the point consume() took, for a request then refused for the month; the window's state after. */
  refund(subscriptionId: string, perSecond: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** Builds a rate-limiter-flexible limiter for a given number of points per second. */
type LimiterForRate = (perSecond: number) => RateLimiterAbstract;

/**
 * Consumes one point; tells a refusal (RateLimiterRes) from a store failure (Error), which is
 * rethrown for the caller's failure policy.
 */
export async function consumeOne(limiter: RateLimiterAbstract, key: string, perSecond: number): Promise<RateDecision> {
  try {
    const res = await limiter.consume(key, 1);
    return { allowed: true, limit: perSecond, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { allowed: false, limit: perSecond, remaining: 0, resetMs: rejection.msBeforeNext };
    }
    throw rejection;
  }
}

/** Reads a key's window without consuming; store failures are rethrown. */
export async function peekAt(limiter: RateLimiterAbstract, key: string, perSecond: number): Promise<RateDecision> {
  const res = await limiter.get(key);
  if (res === null) return { allowed: true, limit: perSecond, remaining: perSecond, resetMs: 1000 };
  return {
    allowed: res.remainingPoints > 0,
    limit: perSecond,
    remaining: res.remainingPoints,
    resetMs: res.msBeforeNext,
  };
}

/**
 * Gives one point back. A reward on a window that ended meanwhile would open a new one below zero
 * (one request more than the rate); that window is put back to zero. Store failures are rethrown.
 */
export async function refundOne(limiter: RateLimiterAbstract, key: string, perSecond: number): Promise<RateDecision> {
  let res = await limiter.reward(key, 1);
  if (res.consumedPoints < 0) res = await limiter.penalty(key, -res.consumedPoints);
  return {
    allowed: true,
    limit: perSecond,
    remaining: Math.min(perSecond, res.remainingPoints),
    resetMs: res.msBeforeNext,
  };
}

/** Caches one limiter per rate value, so an operator's override takes effect on the next request. */
export function limiterCache(build: LimiterForRate): LimiterForRate {
  const limiters = new Map<number, RateLimiterAbstract>();
  return (perSecond) => {
    let limiter = limiters.get(perSecond);
    if (limiter === undefined) {
      limiter = build(perSecond);
      limiters.set(perSecond, limiter);
    }
    return limiter;
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly limiterFor = limiterCache(
    (points) => new RateLimiterMemory({ points, duration: 1, keyPrefix: `rate${points}` }),
  );

  consume(subscriptionId: string, perSecond: number): Promise<RateDecision> {
    return consumeOne(this.limiterFor(perSecond), subscriptionId, perSecond);
  }

  peek(subscriptionId: string, perSecond: number): Promise<RateDecision> {
    return peekAt(this.limiterFor(perSecond), subscriptionId, perSecond);
  }

  refund(subscriptionId: string, perSecond: number): Promise<RateDecision> {
    return refundOne(this.limiterFor(perSecond), subscriptionId, perSecond);
  }

  async close(): Promise<void> {}
}

/**
 * One budget shared by every instance through Redis. When Redis fails (down, hung, slow beyond
 * the command timeout, not ready), an in-memory insurance limiter allows this instance its share.
 *
 * rate-limiter-flexible's own `insuranceLimiter` option does the switch inside the Redis limiter,
 * but it was measured not to fit (test/redis/rate-limiter.test.ts fails with it): its answers carry
 * the shared rate as the limit while the share is what is let through (the RateLimit headers would
 * promise 10/s and refuse the 6th call), an unseen key reads as the whole shared rate, and it says
 * neither which limiter answered nor why Redis failed, so the outage could not be logged with its
 * reason, shown on /readyz, or ended by the next success. The switch is therefore made here, once
 * for all three methods (onBudget); the library still refuses at once when Redis is not ready
 * (`rejectIfRedisNotReady`), and ioredis bounds a hung Redis (its command timeout).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly shared: LimiterForRate;
  private readonly insurance: LimiterForRate;

  constructor(
    private readonly link: RedisLink,
    instances: number,
  ) {
    this.shared = limiterCache(
      (points) =>
        new RateLimiterRedis({
          storeClient: link.client,
          points,
          duration: 1,
          keyPrefix: link.key('rate', String(points)),
          rejectIfRedisNotReady: true,
        }),
    );
    this.insurance = limiterCache(
      (points) =>
        new RateLimiterMemory({
          points: Math.max(1, Math.floor(points / instances)),
          duration: 1,
          keyPrefix: `insurance${points}`,
        }),
    );
  }

  /**
   * Runs `use` on the shared budget; when Redis fails, on this instance's share instead (which
   * then stands in for consume, peek and refund alike). Each outcome tells the link up or down.
   */
  private async onBudget(
    perSecond: number,
    use: (limiter: RateLimiterAbstract, points: number) => Promise<RateDecision>,
  ): Promise<RateDecision> {
    try {
      const decision = await use(this.shared(perSecond), perSecond);
      this.link.markUp();
      return decision;
    } catch (error) {
      this.link.markDown((error as Error)?.message ?? String(error));
      const share = this.insurance(perSecond);
      return use(share, share.points);
    }
  }

  consume(subscriptionId: string, perSecond: number): Promise<RateDecision> {
    return this.onBudget(perSecond, (limiter, points) => consumeOne(limiter, subscriptionId, points));
  }

  peek(subscriptionId: string, perSecond: number): Promise<RateDecision> {
    return this.onBudget(perSecond, (limiter, points) => peekAt(limiter, subscriptionId, points));
  }

  refund(subscriptionId: string, perSecond: number): Promise<RateDecision> {
    return this.onBudget(perSecond, (limiter, points) => refundOne(limiter, subscriptionId, points));
  }

  async close(): Promise<void> {}
}
