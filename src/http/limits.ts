// The per-second rate and the monthly allowance, with their headers on every authenticated response.
import type { Middleware } from 'koa';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { rateLimitHeaders } from '../ratelimit/headers.js';
import { monthKey, monthResetDate, monthSeconds, secondsUntilReset } from '../subscriptions/month.js';
import { monthlyLimitOf, rateLimitOf } from '../subscriptions/tiers.js';
import type { AllowanceCounter } from '../subscriptions/usageStore.js';
import { ApiError } from './errors.js';
import type { AppState } from './state.js';

export interface LimitDeps {
  rateLimiter: RateLimiter;
  allowance: AllowanceCounter;
  clock: () => Date;
}

export function enforceLimits({ rateLimiter, allowance, clock }: LimitDeps): Middleware<AppState> {
  return async function enforceLimits(ctx, next) {
    const { subscription } = ctx.state.caller!;
    const now = clock();
    const month = monthKey(now);
    const monthlyLimit = monthlyLimitOf(subscription);
    const rate = await rateLimiter.consume(subscription.id, rateLimitOf(subscription));

    // Billable calls are counted at admission: the count never trails what is served.
    const billable = rate.allowed && ctx.state.route?.billable === true;
    const counted = billable ? await allowance.tryConsume(subscription.id, month, monthlyLimit) : null;
    const calls = counted?.calls ?? (await allowance.current(subscription.id, month));
    const headers = rateLimitHeaders(
      rate,
      { limit: monthlyLimit, remaining: Math.max(0, monthlyLimit - calls), windowSeconds: monthSeconds(now), resetSeconds: secondsUntilReset(now) },
      now.getTime(),
    );
    ctx.set(headers);

    if (!rate.allowed) {
      const retryAfter = String(Math.max(1, Math.ceil(rate.resetMs / 1000)));
      throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${rate.limit} requests per second exceeded; retry after ${retryAfter} second(s).`, undefined, {
        'Retry-After': retryAfter,
      });
    }
    if (counted !== null && !counted.allowed) {
      throw new ApiError(
        429,
        'QUOTA_EXCEEDED',
        `The monthly allowance of ${monthlyLimit} calls is used up; it resets at ${monthResetDate(now).toISOString()}.`,
        undefined,
        { 'Retry-After': String(secondsUntilReset(now)) },
      );
    }
    ctx.state.billed = counted !== null;
    await next();
  };
}
