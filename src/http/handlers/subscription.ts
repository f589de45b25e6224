// Handlers of GET /subscription/usage and GET /subscription/limits.
import type { Middleware } from 'koa';
import { monthKey, monthResetDate, windowStartDay } from '../../subscriptions/month.js';
import { STATUSES, TIERS, monthlyLimitOf, rateLimitOf } from '../../subscriptions/tiers.js';
import type { AllowanceCounter, UsageLog } from '../../subscriptions/port.js';
import { dailySeries } from '../../subscriptions/dailyUsage.js';
import { successBody } from '../envelope.js';
import { paramValidator, parseQueryString, type ParamSpecs } from '../parameters/queryParams.js';
import type { Handlers } from '../middleware/routing.js';
import { TIER_ALERT_LIMITS } from '../../alerts/model.js';
import type { AlertStore } from '../../alerts/store.js';
import type { AppState } from '../state.js';
import { presentRestrictions, RESTRICTIONS_SCHEMA } from './keyPresentation.js';

export const DEFAULT_STATISTICS_DAYS = 30;
const MAX_STATISTICS_DAYS = 365;

export const USAGE_PARAMS: ParamSpecs = {
  days: {
    kind: 'integer',
    min: 1,
    max: MAX_STATISTICS_DAYS,
    default: DEFAULT_STATISTICS_DAYS,
    message: `must be an integer from 1 to ${MAX_STATISTICS_DAYS}`,
    description: 'How many UTC days, today included, the statistics cover.',
    example: 7,
  },
};
const usageParams = paramValidator(USAGE_PARAMS);
const noParams = paramValidator({});

// The shapes of the two reports as JSON Schema (2020-12), each field with its meaning: the OpenAPI
// document publishes them and the HTTP tests check every report served against them.
const count = { type: 'integer', minimum: 0 } as const;
const instant = { type: 'string', format: 'date-time' } as const;
/** A schema with its meaning for partners. */
const means = (schema: object, description: string) => ({ ...schema, description });
const closed = (properties: Record<string, object>, description?: string) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
  ...(description === undefined ? {} : { description }),
});
const tier = means({ type: 'string', enum: [...TIERS] }, 'The tier of the subscription.');
const status = means(
  { type: 'string', enum: [...STATUSES] },
  'Whether the subscription is active, suspended or cancelled.',
);
const resetDate = means(instant, 'When the monthly allowance starts again: the first instant of next UTC month.');

export const USAGE_REPORT_SCHEMA = closed(
  {
    currentMonth: closed(
      {
        calls: means(count, 'Billable calls made this UTC month.'),
        limit: means(count, 'The monthly allowance: billable calls allowed per UTC month.'),
        remaining: means(count, 'Billable calls left this month (never below 0).'),
        resetDate,
      },
      'This UTC month against the allowance.',
    ),
    statistics: closed(
      {
        period: means(
          { type: 'string', pattern: '^[0-9]+ days$' },
          'The window of these statistics: the last N UTC days, today included.',
        ),
        totalCalls: means(
          count,
          'Calls in the window that are billable or to /subscription/*, any status but 401 and 429.',
        ),
        avgCallsPerDay: means(
          { type: 'number', minimum: 0 },
          'totalCalls divided by the days of the window, to 2 decimals.',
        ),
        topEndpoints: means(
          {
            type: 'array',
            items: closed(
              {
                endpoint: means({ type: ['string', 'null'] }, 'The route template called (e.g. /grants/:id).'),
                calls: means(count, 'Calls to it in the window.'),
              },
              'One endpoint and its calls.',
            ),
          },
          'At most 10 endpoints, most called first.',
        ),
        daily: {
          type: 'array',
          description:
            'One entry per UTC day of the window, oldest first, days without calls included; calls by route ' +
            'template, most called first.',
          items: closed(
            {
              date: means({ type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }, 'The UTC day.'),
              calls: means(count, 'Calls that day, counted as totalCalls is.'),
              byEndpoint: means(
                { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
                'Calls that day by route template.',
              ),
            },
            'One UTC day.',
          ),
        },
      },
      'Calls over the window asked for (days).',
    ),
    subscription: closed(
      {
        tier,
        monthlyLimit: means(count, 'Billable calls allowed per UTC month.'),
        rateLimit: means(count, 'Requests allowed per second, across all keys of the subscription.'),
        status,
      },
      'The subscription the key belongs to.',
    ),
  },
  'Usage of the subscription: this month and the last days.',
);

const flag = (description: string) => ({ type: 'boolean', description });
export const LIMITS_REPORT_SCHEMA = closed(
  {
    subscription: closed({ tier, status }, 'The subscription the key belongs to.'),
    limits: closed(
      {
        monthly: closed(
          {
            limit: means(count, 'Billable calls allowed per UTC month.'),
            current: means(count, 'Billable calls made this UTC month.'),
            remaining: means(count, 'Billable calls left this month (never below 0).'),
            resetDate,
          },
          'The monthly allowance.',
        ),
        rateLimit: closed(
          {
            requestsPerSecond: means(count, 'Requests allowed per second, across all keys of the subscription.'),
            description: means({ type: 'string' }, 'The rate limit in words.'),
          },
          'The per-second rate.',
        ),
        alerts: closed(
          { max: means(count, 'Alerts this subscription may hold.'), current: means(count, 'Alerts it holds now.') },
          'The number of alerts.',
        ),
      },
      'The limits of the subscription.',
    ),
    key: closed(
      {
        id: means({ type: 'string' }, 'The id of the key this request was made with.'),
        prefix: means({ type: 'string' }, 'Its first characters.'),
        restrictions: RESTRICTIONS_SCHEMA,
        expiresAt: means({ ...instant, type: ['string', 'null'] }, 'When the key stops working; null: never.'),
      },
      'The key this request was made with and its restrictions (a key without restrictions has every scope, ' +
        "from anywhere, at the subscription's rate).",
    ),
    features: closed(
      {
        grants: closed(
          {
            read: flag('GET /grants/{id} is available.'),
            search: flag('GET /grants, /grants/filters and /grants/changes are available.'),
            export: flag('GET /grants/export is available.'),
          },
          'The grant features.',
        ),
        subscription: closed(
          { read: flag('GET /subscription/usage and /subscription/limits are available.') },
          'The subscription features.',
        ),
        alerts: closed({ manage: flag('The /alerts endpoints are available.') }, 'The alert features.'),
      },
      'What the subscription may call.',
    ),
  },
  'The limits and features of the subscription, and the restrictions of the calling key.',
);

export interface SubscriptionRouteDeps {
  usage: UsageLog;
  allowance: AllowanceCounter;
  clock: () => Date;
  /** The alerts store, for the number of alerts and the override of their maximum. */
  alerts?: { store: Pick<AlertStore, 'count' | 'limitOverride'> };
}

/**
 * This UTC month against the allowance: the count the limits layer just read for this request's
 * headers (so body and headers agree), unless the month turned in between.
 */
async function monthly({ allowance, clock }: SubscriptionRouteDeps, state: AppState) {
  const { subscription } = state.caller!;
  const now = clock();
  const limit = monthlyLimitOf(subscription);
  const month = monthKey(now);
  const known = state.monthCalls;
  const calls = known?.month === month ? known.calls : await allowance.current(subscription.id, month);
  return { now, limit, calls, remaining: Math.max(0, limit - calls), resetDate: monthResetDate(now).toISOString() };
}

/** Validates GET /subscription/usage parameters. */
export const validateUsageParams = usageParams;

/**
 * The usage report of the caller's subscription over `days` (USAGE_REPORT_SCHEMA): what GET /subscription/usage and the
 * MCP tool get_usage answer.
 */
export async function usageReport(
  deps: SubscriptionRouteDeps,
  state: AppState,
  days: number = DEFAULT_STATISTICS_DAYS,
) {
  const { subscription } = state.caller!;
  const month = await monthly(deps, state);
  const fromDay = windowStartDay(month.now, days);
  const stats = await deps.usage.statistics(subscription.id, fromDay);
  const daily = dailySeries(await deps.usage.dailyByEndpoint(subscription.id, fromDay), fromDay, days);
  return {
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
  };
}

export function subscriptionHandlers(deps: SubscriptionRouteDeps): Handlers {
  const { alerts } = deps;
  const usageHandler: Middleware<AppState> = async (ctx) => {
    const days = usageParams(parseQueryString(ctx.querystring)).days as number | undefined;
    ctx.body = successBody(ctx.state.requestId, await usageReport(deps, ctx.state, days));
  };

  const limitsReport: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const { subscription } = ctx.state.caller!;
    const month = await monthly(deps, ctx.state);
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
          max:
            (alerts === undefined ? null : await alerts.store.limitOverride(subscription.id)) ??
            TIER_ALERT_LIMITS[subscription.tier],
          current: alerts === undefined ? 0 : await alerts.store.count(subscription.id),
        },
      },
      key: {
        id: ctx.state.caller!.keyId,
        prefix: ctx.state.caller!.keyPrefix,
        restrictions: presentRestrictions(ctx.state.caller!.restrictions),
        expiresAt: ctx.state.caller!.restrictions.expiresAt,
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

  return { usage: usageHandler, limits: limitsReport };
}
