// Handlers of GET /subscription/usage and GET /subscription/limits.
import type { Middleware } from 'koa';
import { monthKey, monthResetDate, windowStartDay } from '../subscriptions/month.js';
import { STATUSES, TIERS, monthlyLimitOf, rateLimitOf } from '../subscriptions/tiers.js';
import type { AllowanceCounter, UsageLog } from '../subscriptions/store.js';
import { dailySeries } from '../subscriptions/dailyUsage.js';
import { successBody } from './envelope.js';
import { paramValidator, parseQueryString, type ParamSpecs } from './queryParams.js';
import type { Handlers } from './routes.js';
import { TIER_ALERT_LIMITS } from '../alerts/model.js';
import type { AlertStore } from '../alerts/store.js';
import type { AppState } from './state.js';

export const DEFAULT_STATISTICS_DAYS = 30;
export const MAX_STATISTICS_DAYS = 365;

export const USAGE_PARAMS: ParamSpecs = {
  days: {
    kind: 'integer',
    min: 1,
    max: MAX_STATISTICS_DAYS,
    default: DEFAULT_STATISTICS_DAYS,
    message: `must be an integer from 1 to ${MAX_STATISTICS_DAYS}`,
  },
};
const usageParams = paramValidator(USAGE_PARAMS);
const noParams = paramValidator({});

// The shapes of the two reports as JSON Schema (2020-12): the OpenAPI document publishes them and
// the HTTP tests check every report served against them.
const count = { type: 'integer', minimum: 0 } as const;
const instant = { type: 'string', format: 'date-time' } as const;
const closed = (properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

export const USAGE_REPORT_SCHEMA = closed({
  currentMonth: closed({ calls: count, limit: count, remaining: count, resetDate: instant }),
  statistics: closed({
    period: { type: 'string', pattern: '^[0-9]+ days$' },
    totalCalls: count,
    avgCallsPerDay: { type: 'number', minimum: 0 },
    topEndpoints: { type: 'array', items: closed({ endpoint: { type: ['string', 'null'] }, calls: count }) },
    daily: {
      type: 'array',
      description: 'One entry per UTC day of the window, oldest first, days without calls included; calls by route template, most called first.',
      items: closed({
        date: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
        calls: count,
        byEndpoint: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
      }),
    },
  }),
  subscription: closed({
    tier: { type: 'string', enum: [...TIERS] },
    monthlyLimit: count,
    rateLimit: count,
    status: { type: 'string', enum: [...STATUSES] },
  }),
});

const flag = { type: 'boolean' } as const;
export const LIMITS_REPORT_SCHEMA = closed({
  subscription: closed({ tier: { type: 'string', enum: [...TIERS] }, status: { type: 'string', enum: [...STATUSES] } }),
  limits: closed({
    monthly: closed({ limit: count, current: count, remaining: count, resetDate: instant }),
    rateLimit: closed({ requestsPerSecond: count, description: { type: 'string' } }),
    alerts: closed({ max: count, current: count }),
  }),
  features: closed({ grants: closed({ read: flag, search: flag, export: flag }), subscription: closed({ read: flag }), alerts: closed({ manage: flag }) }),
});

export interface SubscriptionRouteDeps {
  usage: UsageLog;
  allowance: AllowanceCounter;
  clock: () => Date;
  /** The alerts store, for the number of alerts and the override of their maximum. */
  alerts?: { store: Pick<AlertStore, 'count' | 'limitOverride'> };
}

export function subscriptionHandlers({ usage, allowance, clock, alerts }: SubscriptionRouteDeps): Handlers {
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
    const fromDay = windowStartDay(month.now, days);
    const stats = await usage.statistics(subscription.id, fromDay);
    const daily = dailySeries(await usage.dailyByEndpoint(subscription.id, fromDay), fromDay, days);
    ctx.body = successBody(ctx.state.requestId, {
      currentMonth: { calls: month.calls, limit: month.limit, remaining: month.remaining, resetDate: month.resetDate },
      statistics: {
        period: `${days} days`,
        totalCalls: stats.totalCalls,
        avgCallsPerDay: Math.round((stats.totalCalls / days) * 100) / 100,
        topEndpoints: stats.topEndpoints,
        daily,
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
        alerts: {
          max: (alerts === undefined ? null : await alerts.store.limitOverride(subscription.id)) ?? TIER_ALERT_LIMITS[subscription.tier],
          current: alerts === undefined ? 0 : await alerts.store.count(subscription.id),
        },
      },
      features: {
        grants: {
          read: subscription.features['grants.read'],
          search: subscription.features['grants.search'],
          export: subscription.features['grants.export'],
        },
        subscription: { read: subscription.features['subscription.read'] },
        alerts: { manage: subscription.features['alerts.manage'] },
      },
    });
  };

  return { usage: usageReport, limits: limitsReport };
}
