// Calendar-month arithmetic in UTC: the allowance's month key, its reset, the statistics window.

/** `YYYY-MM` of the UTC month containing `now`. */
export const monthKey = (now: Date): string => now.toISOString().slice(0, 7);

/** `YYYY-MM-DD` of the UTC day containing `now`. */
export const dayKey = (now: Date): string => now.toISOString().slice(0, 10);

/** 00:00:00.000Z on the first day of the next UTC month. */
export const monthResetDate = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

export const monthStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

/** Length of the current UTC month in seconds. */
export const monthSeconds = (now: Date): number => (monthResetDate(now).getTime() - monthStart(now).getTime()) / 1000;

/** Whole seconds until the month resets, at least 1. */
export const secondsUntilReset = (now: Date): number => Math.max(1, Math.ceil((monthResetDate(now).getTime() - now.getTime()) / 1000));

/** First day (`YYYY-MM-DD`) of a window of `days` UTC days ending today, today included. */
export const windowStartDay = (now: Date, days: number): string =>
  dayKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1))));
