// The limits part of the API's dependencies: the per-second rate limiter and the monthly allowance
// counter, in memory and in the store, or shared through Redis (REDIS_URL) with a local fallback.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../ratelimit/limiter.js';
import { RedisLink } from '../ratelimit/redisConnection.js';
import { RedisAllowanceCounter } from '../subscriptions/redis/allowanceCounter.js';
import type { AllowanceCounter, AllowanceRecord } from '../subscriptions/port.js';

/** Where the limits are counted: in memory, in Redis, or locally while Redis is out. */
type LimitsState = { limits: 'memory' } | RedisLink['state'];

interface LimitsPart {
  rateLimiter: RateLimiter;
  allowance: AllowanceCounter;
  state(): LimitsState;
  /** Closes the limiter, then the Redis connection. */
  close(): Promise<void>;
}

/** The limits over `recorded`, the allowance as the store records it. */
export function createLimits(config: Config, recorded: AllowanceRecord, clock: () => Date, log: Logger): LimitsPart {
  if (config.redis.url === null) {
    const rateLimiter = new MemoryRateLimiter();
    return { rateLimiter, allowance: recorded, state: () => ({ limits: 'memory' }), close: () => rateLimiter.close() };
  }
  const redis = new RedisLink(
    { url: config.redis.url, keyPrefix: config.redis.keyPrefix, commandTimeoutMs: config.redis.commandTimeoutMs },
    log,
  );
  const rateLimiter = new RedisRateLimiter(redis, config.redis.instances);
  return {
    rateLimiter,
    allowance: new RedisAllowanceCounter(redis, recorded, clock, log),
    state: () => redis.state,
    async close() {
      await rateLimiter.close();
      await redis.close();
    },
  };
}
