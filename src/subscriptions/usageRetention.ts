// How long the usage log keeps its rows, as both stores apply it: rows of days before the first
// kept day are past the retention, looked for once a minute (SQLite deletes them in small batches,
// sqlite/usageRetention.ts; PostgreSQL drops whole months, postgres/store.ts).

/** How often a store looks for rows past the retention. */
export const SWEEP_INTERVAL_MS = 60_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first day kept: rows of earlier days are past the retention. */
export const firstKeptDay = (now: Date, retentionDays: number): string =>
  new Date(now.getTime() - retentionDays * DAY_MS).toISOString().slice(0, 10);
