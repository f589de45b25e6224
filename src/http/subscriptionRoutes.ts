// Handlers of GET /subscription/usage and GET /subscription/limits.
import type { Middleware } from 'koa';
import { monthKey, monthResetDate, windowStartDay } from '../subscriptions/month.js';
import { monthlyLimitOf, rateLimitOf } from '../subscriptions/tiers.js';
import type { AllowanceCounter } from '../subscriptions/allowance.js';
import type { UsageStore } from '../subscriptions/usageStore.js';
import { successBody } from './envelope.js';
import { paramValidator, parseQueryString } from './queryParams.js';
import type { Handlers } from './routes.js';
import type { AppState } from './state.js';

export const DEFAULT_STATISTICS_DAYS = 30;
export const MAX_STATISTICS_DAYS = 365;

const usageParams = paramValidator({
  days: { kind: 'integer', min: 1, max: MAX_STATISTICS_DAYS, message: `must be an integer from 1 to ${MAX_STATISTICS_DAYS}` },
});
const noParams = paramValidator({});

export interface SubscriptionRouteDeps {
  usage: UsageStore;
  allowance: AllowanceCounter;
  clock: () => Date;
}

export function subscriptionHandlers({ usage, allowance, clock }: SubscriptionRouteDeps): Handlers {
  const monthly = async (ctx: { state: AppState }) => {
    const { subscription } = ctx.state.caller!;
    const now = clock();
    const limit = monthlyLimitOf(subscription);
    // The count the limits layer just read for this request's headers (so body and headers
    // agree), unless the month turned in between.
    const month = monthKey(now);
    const known = ctx.state.monthCalls;
    const calls = known?.month === month ? known.calls : await allowance.current(subscription.id, month);
    return { now, limit, calls, remaining: Math.max(0, limit - calls), resetDate: monthResetDate(now).toISOString() };
  };

  const usageReport: Middleware<AppState> = async (ctx) => {
    const days = (usageParams(parseQueryString(ctx.querystring)).days as number | undefined) ?? DEFAULT_STATISTICS_DAYS;
    const { subscription } = ctx.state.caller!;
    const month = await monthly(ctx);
    const stats = usage.statistics(subscription.id, windowStartDay(month.now, days));
    ctx.body = successBody(ctx.state.requestId, {
      currentMonth: { calls: month.calls, limit: month.limit, remaining: month.remaining, resetDate: month.resetDate },
      statistics: {
        period: `${days} days`,
        totalCalls: stats.totalCalls,
        avgCallsPerDay: Math.round((stats.totalCalls / days) * 100) / 100,
        topEndpoints: stats.topEndpoints,
      },
      subscription: {
        tier: subscription.tier,
        monthlyLimit: month.limit,
        rateLimit: rateLimitOf(subscription),
        status: subscription.status,
      },
    });
  };

  const limitsReport: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const { subscription } = ctx.state.caller!;
    const month = await monthly(ctx);
    const rate = rateLimitOf(subscription);
    ctx.body = successBody(ctx.state.requestId, {
      subscription: { tier: subscription.tier, status: subscription.status },
      limits: {
        monthly: { limit: month.limit, current: month.calls, remaining: month.remaining, resetDate: month.resetDate },
        rateLimit: {
          requestsPerSecond: rate,
          description: `Up to ${rate} requests per second across all keys of this subscription.`,
        },
      },
      features: {
        grants: { read: subscription.features['grants.read'], search: subscription.features['grants.search'] },
        subscription: { read: subscription.features['subscription.read'] },
      },
    });
  };

  return { usage: usageReport, limits: limitsReport };
}
