// The per-day series of GET /subscription/usage (statistics.daily): the counted calls of each UTC
// day of the window, oldest first, days without calls included, each with its calls by endpoint.
// Pure: the store gives the (day, endpoint, calls) rows, this shapes them.

import type { DailyCalls } from './port.js';

interface DailyUsage {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  calls: number;
  /** Route template → calls that day, most called first (ties by template); endpoints with none left out. */
  byEndpoint: Record<string, number>;
}

const DAY_MS = 86_400_000;

/** The `days` UTC days from `fromDay` (`YYYY-MM-DD`) on, oldest first. */
export function daysFrom(fromDay: string, days: number): string[] {
  const start = Date.parse(`${fromDay}T00:00:00.000Z`);
  return Array.from({ length: days }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
}

/** One entry per day of the window, rows outside it ignored. */
export function dailySeries(rows: readonly DailyCalls[], fromDay: string, days: number): DailyUsage[] {
  const byDay = new Map<string, DailyCalls[]>();
  for (const row of rows) {
    if (row.calls <= 0) continue;
    const list = byDay.get(row.day);
    if (list === undefined) byDay.set(row.day, [row]);
    else list.push(row);
  }
  return daysFrom(fromDay, days).map((date) => {
    const list = (byDay.get(date) ?? [])
      .slice()
      .sort((a, b) => b.calls - a.calls || (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0));
    return {
      date,
      calls: list.reduce((sum, row) => sum + row.calls, 0),
      byEndpoint: Object.fromEntries(list.map((row) => [row.endpoint, row.calls])),
    };
  });
}
