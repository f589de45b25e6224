// Calendar-month arithmetic in UTC: the allowance's month key, its reset, the statistics window.

interface MonthSpan {
  startMs: number;
  endMs: number;
  key: string;
}

/** The last month asked about: every request asks about the current one, so it is worked out once a month. */
let lastSpan: MonthSpan | null = null;

function spanOf(now: Date): MonthSpan {
  const ms = now.getTime();
  if (lastSpan === null || ms < lastSpan.startMs || ms >= lastSpan.endMs) {
    const startMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    lastSpan = {
      startMs,
      endMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
      key: now.toISOString().slice(0, 7),
    };
  }
  return lastSpan;
}

/** `YYYY-MM` of the UTC month containing `now`. */
export const monthKey = (now: Date): string => spanOf(now).key;

/** `YYYY-MM-DD` of the UTC day containing `now`. */
const dayKey = (now: Date): string => now.toISOString().slice(0, 10);

/** 00:00:00.000Z on the first day of the next UTC month. */
export const monthResetDate = (now: Date): Date => new Date(spanOf(now).endMs);

export const monthStart = (now: Date): Date => new Date(spanOf(now).startMs);

/** Length of the current UTC month in seconds. */
export const monthSeconds = (now: Date): number => {
  const { startMs, endMs } = spanOf(now);
  return (endMs - startMs) / 1000;
};

/** Whole seconds until the month resets, at least 1. */
export const secondsUntilReset = (now: Date): number =>
  Math.max(1, Math.ceil((spanOf(now).endMs - now.getTime()) / 1000));

/** First day (`YYYY-MM-DD`) of a window of `days` UTC days ending today, today included. */
export const windowStartDay = (now: Date, days: number): string =>
  dayKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1))));
