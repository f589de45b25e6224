// The per-second rate and the monthly allowance, with their headers on every authenticated response.
import type { Middleware, ParameterizedContext } from 'koa';
import { rateLimitHeaders } from '../../ratelimit/headers.js';
import type { RateDecision, RateLimiter } from '../../ratelimit/limiter.js';
import { monthKey, monthResetDate, monthSeconds, secondsUntilReset } from '../../subscriptions/month.js';
import { monthlyLimitOf, rateLimitOf, type Subscription } from '../../subscriptions/tiers.js';
import type { AllowanceCounter, Caller } from '../../subscriptions/store.js';
import { isConditional } from './conditionalRequests.js';
import { ApiError } from '../errors.js';
import { outcomeOf } from '../requestOutcome.js';
import type { AppState } from '../state.js';

export interface LimitDeps {
  rateLimiter: RateLimiter;
  allowance: AllowanceCounter;
  clock: () => Date;
}

function setHeaders(
  ctx: ParameterizedContext<AppState>,
  subscription: Subscription,
  rate: RateDecision,
  calls: number,
  now: Date,
): void {
  ctx.state.monthCalls = { month: monthKey(now), calls };
  const monthlyLimit = monthlyLimitOf(subscription);
  ctx.set(
    rateLimitHeaders(
      rate,
      {
        limit: monthlyLimit,
        remaining: Math.max(0, monthlyLimit - calls),
        windowSeconds: monthSeconds(now),
        resetSeconds: secondsUntilReset(now),
      },
      now.getTime(),
    ),
  );
}

/** The limiter key of a key's own budget (subscription ids start with sub_, so the two never meet). */
const keyBudget = (keyId: string): string => `key:${keyId}`;

/** A key's own rate: its restriction, never above the subscription's; null without one. */
export const keyRateOf = (caller: Caller): number | null =>
  caller.restrictions.rateLimit === null
    ? null
    : Math.min(caller.restrictions.rateLimit, rateLimitOf(caller.subscription));

/** Of two admissions, the one that leaves less (the headers tell the budget that binds first). */
const tighter = (a: RateDecision, b: RateDecision): RateDecision => (b.remaining < a.remaining ? b : a);

/**
 * The per-second rates of a request: the key's own budget first (when it has one), then the
 * subscription's. A request the key's budget refuses spends nothing of the subscription's, so a
 * key held to a few requests a second cannot starve the subscription's other keys.
 */
export const rates = (rateLimiter: RateLimiter) => ({
  async consume(caller: Caller): Promise<RateDecision> {
    const { subscription } = caller;
    const own = keyRateOf(caller);
    if (own === null) return rateLimiter.consume(subscription.id, rateLimitOf(subscription));
    const mine = await rateLimiter.consume(keyBudget(caller.keyId), own);
    if (!mine.allowed) return mine;
    const shared = await rateLimiter.consume(subscription.id, rateLimitOf(subscription));
    if (!shared.allowed) {
      await rateLimiter.refund(keyBudget(caller.keyId), own);
      return shared;
    }
    return tighter(mine, shared);
  },
  async peek(caller: Caller): Promise<RateDecision> {
    const own = keyRateOf(caller);
    const shared = await rateLimiter.peek(caller.subscription.id, rateLimitOf(caller.subscription));
    return own === null ? shared : tighter(await rateLimiter.peek(keyBudget(caller.keyId), own), shared);
  },
  async refund(caller: Caller): Promise<RateDecision> {
    const own = keyRateOf(caller);
    const shared = await rateLimiter.refund(caller.subscription.id, rateLimitOf(caller.subscription));
    return own === null ? shared : tighter(await rateLimiter.refund(keyBudget(caller.keyId), own), shared);
  },
});

/**
 * ACTIVE: everything. SUSPENDED: the subscription endpoints only. CANCELLED: nothing.
 * A refusal spends no budget (the rate is only looked at) but still carries the rate-limit headers.
 */
export function subscriptionStatus({ rateLimiter, allowance, clock }: LimitDeps): Middleware<AppState> {
  const budget = rates(rateLimiter);
  const refuse = async (
    ctx: ParameterizedContext<AppState>,
    subscription: Subscription,
    refusal: string,
  ): Promise<never> => {
    const now = clock();
    const rate = await budget.peek(ctx.state.caller!);
    setHeaders(ctx, subscription, rate, await allowance.current(subscription.id, monthKey(now)), now);
    throw new ApiError(403, 'SUBSCRIPTION_INACTIVE', refusal);
  };
  return function subscriptionStatus(ctx, next) {
    const { subscription } = ctx.state.caller!;
    const refusal =
      subscription.status === 'CANCELLED'
        ? 'This subscription is cancelled; contact us to reactivate it.'
        : subscription.status === 'SUSPENDED' && ctx.state.route?.billable
          ? 'This subscription is suspended; grant endpoints are unavailable until it is reactivated. ' +
            '/subscription endpoints still answer.'
          : null;
    return refusal === null ? next() : refuse(ctx, subscription, refusal);
  };
}

function quotaExceeded(monthlyLimit: number, now: Date): ApiError {
  return new ApiError(
    429,
    'QUOTA_EXCEEDED',
    `The monthly allowance of ${monthlyLimit} calls is used up; it resets at ${monthResetDate(now).toISOString()}.`,
    undefined,
    { 'Retry-After': String(secondsUntilReset(now)) },
  );
}

function rateLimited(rate: RateDecision): ApiError {
  const retryAfter = String(Math.max(1, Math.ceil(rate.resetMs / 1000)));
  return new ApiError(
    429,
    'RATE_LIMITED',
    `Rate limit of ${rate.limit} requests per second exceeded; retry after ${retryAfter} second(s).`,
    undefined,
    {
      'Retry-After': retryAfter,
    },
  );
}

/**
 * The counting of a route billed by its handler: each call counts toward the allowance as an
 * admitted billable request does; the first spends the rate already spent at admission, each
 * further one in the same request spends one more.
 */
function handlerBilling(
  ctx: ParameterizedContext<AppState>,
  { rateLimiter, allowance, clock }: LimitDeps,
  admitted: RateDecision,
): () => Promise<void> {
  const { subscription } = ctx.state.caller!;
  let rate = admitted;
  let calls = 0;
  return async () => {
    const now = clock();
    if (calls > 0) {
      rate = await rates(rateLimiter).consume(ctx.state.caller!);
      if (!rate.allowed) throw rateLimited(rate);
    }
    const monthlyLimit = monthlyLimitOf(subscription);
    const counted = await allowance.tryConsume(subscription.id, monthKey(now), monthlyLimit);
    setHeaders(ctx, subscription, rate, counted.calls, now);
    if (!counted.allowed) throw quotaExceeded(monthlyLimit, now);
    calls += 1;
    outcomeOf(ctx.state).billed = true;
  };
}

export function enforceLimits({ rateLimiter, allowance, clock }: LimitDeps): Middleware<AppState> {
  const budget = rates(rateLimiter);
  return async function enforceLimits(ctx, next) {
    const { subscription } = ctx.state.caller!;
    const now = clock();
    const month = monthKey(now);
    const monthlyLimit = monthlyLimitOf(subscription);
    let rate = await budget.consume(ctx.state.caller!);

    // Billable calls are counted at admission: the count never trails what is served. A
    // conditional one (If-None-Match) is counted once its answer is known, before it is sent, and
    // not at all if that answer is a 304; an allowance already used up still refuses it here.
    const route = ctx.state.route;
    const billable = rate.allowed && route?.billable === true && route.billedByHandler !== true;
    const deferred = billable && isConditional(ctx);
    const counted = billable && !deferred ? await allowance.tryConsume(subscription.id, month, monthlyLimit) : null;
    const calls = counted?.calls ?? (await allowance.current(subscription.id, month));
    const refused = counted !== null ? !counted.allowed : deferred && calls >= monthlyLimit;
    // Refused for the month: the request spends nothing of the second either.
    if (refused) rate = await budget.refund(ctx.state.caller!);
    setHeaders(ctx, subscription, rate, calls, now);

    if (!rate.allowed) throw rateLimited(rate);
    if (refused) throw quotaExceeded(monthlyLimit, now);
    outcomeOf(ctx.state).billed = counted !== null;
    if (route?.billable === true && route.billedByHandler === true)
      ctx.state.bill = handlerBilling(ctx, { rateLimiter, allowance, clock }, rate);
    if (!deferred) return next();

    const countServed = async () => {
      const late = await allowance.tryConsume(subscription.id, month, monthlyLimit);
      setHeaders(ctx, subscription, rate, late.calls, now);
      if (!late.allowed) throw quotaExceeded(monthlyLimit, now);
      outcomeOf(ctx.state).billed = true;
    };
    try {
      await next();
    } catch (thrown) {
      // An error answer after admission counts as any other billable call does.
      await countServed();
      throw thrown;
    }
    if (!outcomeOf(ctx.state).notModified) {
      try {
        await countServed();
      } catch (thrown) {
        ctx.body = null;
        ctx.remove('ETag');
        throw thrown;
      }
    }
  };
}
