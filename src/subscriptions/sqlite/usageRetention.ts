// Bounded growth of the usage log in SQLite: rows of days older than the retention are deleted in small
// batches in the background. usage_daily keeps their per-day counts (migration 5 tells its
// delete trigger to leave them), so the statistics never change because of a sweep.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describeError, type Logger } from '../../log.js';
import { subscriptionsPath, type Db } from './database.js';
import type { UsageSizes } from '../port.js';
import { firstKeptDay, SWEEP_INTERVAL_MS } from '../usageRetention.js';

/** Rows deleted per statement: each batch holds the write lock for a few milliseconds at most. */
const RETENTION_BATCH = 1000;
/** Batches per sweep before yielding the event loop to requests until the next one. */
const BATCHES_PER_TURN = 1;

/**
 * The sizes, read from the index (no scan of the log): rows are appended with increasing ids and
 * only the oldest are deleted, so the log holds the ids from its first to its last.
 */
export const usageLogRows = (db: Db): number =>
  db.prepare('SELECT coalesce(max(id) - min(id) + 1, 0) FROM usage_log').pluck().get() as number;

/** A count of the per-day rows (a scan of usage_daily: a few rows per subscription and day). */
export const usageDailyRows = (db: Db): number =>
  db.prepare('SELECT count(*) FROM usage_daily').pluck().get() as number;

function usageSizes(db: Db): UsageSizes {
  return { usageLogRows: usageLogRows(db), usageDailyRows: usageDailyRows(db) };
}

/** The sizes from the subscriptions database of a data directory, read-only; null when it does not exist. */
export function readUsageSizes(dataDir: string): UsageSizes | null {
  const file = subscriptionsPath(dataDir);
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return usageSizes(db);
  } finally {
    db.close();
  }
}

export class UsageRetention {
  private timer: NodeJS.Timeout | null = null;
  private readonly deleteBatch: (beforeDay: string) => number;

  constructor(
    db: Db,
    private readonly retentionDays: number,
    private readonly clock: () => Date,
    private readonly log: Logger,
    private readonly batch = RETENTION_BATCH,
  ) {
    const setBefore: Database.Statement = db.prepare('UPDATE usage_retention SET before_day = ? WHERE id = 1');
    // Rows are appended in time order, so the old ones lead the table: look only at the first
    // `batch` ids (no scan of the whole log when nothing is old).
    const remove: Database.Statement = db.prepare(
      'DELETE FROM usage_log WHERE id IN (SELECT id FROM usage_log ORDER BY id LIMIT ?) AND day < ?',
    );
    // The audit log is kept as long as the usage log (its rows are few: one per change).
    const removeAudit: Database.Statement = db.prepare(
      'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log ORDER BY id LIMIT ?) AND at < ?',
    );
    this.deleteBatch = db.transaction((beforeDay: string) => {
      setBefore.run(beforeDay);
      removeAudit.run(batch, beforeDay);
      return remove.run(batch, beforeDay).changes;
    });
  }

  /** Deletes one batch of rows past the retention; returns how many. */
  sweepOnce(): number {
    return this.deleteBatch(firstKeptDay(this.clock(), this.retentionDays));
  }

  /** Deletes batches until none is left, yielding to the event loop between them. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      let deleted = 0;
      for (let i = 0; i < BATCHES_PER_TURN; i += 1) deleted += this.sweepOnce();
      total += deleted;
      if (deleted < this.batch * BATCHES_PER_TURN) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Sweeps now and every interval, in the background. */
  start(intervalMs = SWEEP_INTERVAL_MS): void {
    const run = () => {
      this.sweep()
        .then((deleted) => {
          if (deleted > 0)
            this.log.info('usage log rows past the retention deleted', {
              rows: deleted,
              retentionDays: this.retentionDays,
            });
        })
        .catch((error) =>
          this.log.warn('usage retention sweep failed; retried at the next interval', describeError(error)),
        )
        .finally(() => {
          if (this.timer !== null) this.timer = setTimeout(run, intervalMs).unref();
        });
    };
    this.timer = setTimeout(run, 0).unref();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
