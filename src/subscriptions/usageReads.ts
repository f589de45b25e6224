// What both stores read the same way: the usage statistics, from the per-day table (usage_daily),
// and the monthly record's counts.
import { all, type Dialect, type Steps } from './sqlSteps.js';
import type { DailyCalls, UsageStatistics } from './port.js';

/** Endpoints the statistics list, most called first. */
const TOP_ENDPOINTS = 10;

/** Counted calls of a subscription from `fromDay` on: the total and the most called endpoints. */
export function* usageStatistics(d: Dialect, subscriptionId: string, fromDay: string): Steps<UsageStatistics> {
  const rows = yield* all<{ endpoint: string; calls: number | string }>(
    `SELECT endpoint, sum(calls) AS calls FROM usage_daily WHERE subscription_id = ? AND day >= ${d.dayParam}
      GROUP BY endpoint HAVING sum(calls) > 0 ORDER BY calls DESC, endpoint ASC`,
    subscriptionId,
    fromDay,
  );
  const endpoints = rows.map((r) => ({ endpoint: r.endpoint, calls: Number(r.calls) }));
  return {
    totalCalls: endpoints.reduce((sum, e) => sum + e.calls, 0),
    topEndpoints: endpoints.slice(0, TOP_ENDPOINTS),
  };
}

/** Counted calls from `fromDay` on, per day and endpoint, ordered by day then endpoint. */
export function* dailyCalls(d: Dialect, subscriptionId: string, fromDay: string): Steps<DailyCalls[]> {
  const rows = yield* all<{ day: string; endpoint: string; calls: number | string }>(
    `SELECT ${d.dayText('day')} AS day, endpoint, calls FROM usage_daily
      WHERE subscription_id = ? AND day >= ${d.dayParam} AND calls > 0 ORDER BY day, endpoint`,
    subscriptionId,
    fromDay,
  );
  return rows.map((r) => ({ day: r.day, endpoint: r.endpoint, calls: Number(r.calls) }));
}

/** Every subscription's count of calls for a month (YYYY-MM). */
export function* monthCounts(month: string): Steps<{ subscriptionId: string; calls: number }[]> {
  const rows = yield* all<{ subscription_id: string; calls: number | string }>(
    'SELECT subscription_id, calls FROM monthly_usage WHERE month = ?',
    month,
  );
  return rows.map((r) => ({ subscriptionId: r.subscription_id, calls: Number(r.calls) }));
}
