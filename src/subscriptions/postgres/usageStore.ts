// The usage log in PostgreSQL. Rows are written in batches, each one statement (one round trip,
// atomic): a multi-row INSERT (unnest of column arrays) into usage_log, partitioned by month; the
// per-day counts upserted into usage_daily (INSERT … ON CONFLICT DO UPDATE, aggregated per batch);
// and the keys' last use. A batch leaves at the end of the event-loop turn its rows were recorded in, or, while
// one is being written, as soon as it is done with everything recorded meanwhile (group commit); a
// request's answer waits for its row's commit, so a crash loses no row of an answer that was sent.
// A row whose write failed waits in memory for the next attempt (the answer is not held back).
// The statistics read only usage_daily. Retention drops whole months.
import { describeError, type Logger } from '../../log.js';
import { lastUseByKey } from '../keyLastUse.js';
import type { DailyCalls, UsageLog, UsageRow, UsageStatistics } from '../port.js';
import { inTransaction, PARTITION_LOCK, pgUnavailable, type Pool, type Queryable } from './database.js';
import { WriteFailureLog } from '../writeFailureLog.js';
import type { Steps } from '../sqlSteps.js';
import { dailyCalls, usageStatistics } from '../usageReads.js';
import { PgSteps } from './steps.js';

/** Rows per transaction when more are waiting (after an outage, or a burst). */
const WRITE_BATCH = 5000;
const RETRY_MS = 1000;

/** "Counted" for the statistics: billable or /subscription/*, any status but 401 and 429. */
const isCounted = (r: UsageRow): boolean =>
  r.endpoint !== null &&
  r.status !== 401 &&
  r.status !== 429 &&
  (r.billable || r.endpoint.startsWith('/subscription/'));

/** The partition of a month (YYYY-MM): usage_log_y2026m11. */
const partitionName = (month: string): string => `usage_log_y${month.slice(0, 4)}m${month.slice(5, 7)}`;

const nextMonth = (month: string): string => {
  const d = new Date(`${month}-01T00:00:00.000Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
};

/** Creates the months' partitions that do not exist yet (any instance may; the lock keeps them apart). */
export async function ensurePartitions(pool: Pool, months: Iterable<string>): Promise<void> {
  const wanted = [...new Set(months)].filter((m) => /^\d{4}-\d{2}$/.test(m)).sort();
  if (wanted.length === 0) return;
  await inTransaction(pool, async (db) => {
    await db.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK]);
    for (const month of wanted) {
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${partitionName(month)} PARTITION OF usage_log FOR VALUES FROM ` +
          `('${month}-01') TO ('${nextMonth(month)}-01')`,
      );
    }
  });
}

/** The months that have a partition, oldest first. */
export async function partitionMonths(db: Queryable): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ` +
      `'usage_log'::regclass ORDER BY c.relname`,
  );
  return rows
    .map((r) => /^usage_log_y(\d{4})m(\d{2})$/.exec(r.relname as string))
    .filter((m) => m !== null)
    .map((m) => `${m![1]}-${m![2]}`);
}

/**
 * Drops the partitions whose whole month is before `firstKeptDay`, and audit entries of earlier days; returns the
 * months dropped.
 */
export async function dropPartitionsBefore(pool: Pool, firstKeptDay: string): Promise<string[]> {
  return inTransaction(pool, async (db) => {
    await db.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK]);
    const dropped: string[] = [];
    for (const month of await partitionMonths(db)) {
      if (`${nextMonth(month)}-01` > firstKeptDay) continue;
      await db.query(`DROP TABLE IF EXISTS ${partitionName(month)}`);
      dropped.push(month);
    }
    // The audit log is kept as long as the usage log.
    await db.query('DELETE FROM audit_log WHERE at < $1', [firstKeptDay]);
    return dropped;
  });
}

interface Waiting {
  row: UsageRow;
  /** The request waiting for the row's commit (none for a row kept for retry). */
  written?: () => void;
}

const release = (entries: Waiting[]): void => {
  for (const e of entries) e.written?.();
};

export class PgUsageStore implements UsageLog {
  private buffer: Waiting[] = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly partitions = new Set<string>();

  private readonly failures: WriteFailureLog;
  private readonly steps: PgSteps;

  constructor(
    private readonly pool: Pool,
    log: Logger,
  ) {
    this.failures = new WriteFailureLog(log);
    this.steps = new PgSteps(pool);
  }

  /** Resolves once the row is committed (or, if the write failed, kept in memory for the next attempt). */
  record(row: UsageRow): Promise<void> {
    return new Promise((written) => {
      this.buffer.push({ row, written });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          void this.flush();
        });
      }
    });
  }

  /** Writes every waiting row, after any write in progress (one write at a time, in order). */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.writing = this.writing.then(() => this.writeBuffered());
    return this.writing;
  }

  /**
   * Writes the waiting rows in transactions of at most WRITE_BATCH rows; stops at the first failure (every row then
   * waits for the retry).
   */
  private async writeBuffered(): Promise<void> {
    while (this.buffer.length > 0) {
      const entries = this.buffer.splice(0, WRITE_BATCH);
      try {
        await this.write(entries.map((e) => e.row));
      } catch (error) {
        // Nobody waits for a failing log: every waiting row is kept for the retry and its request released.
        const kept = entries.concat(this.buffer);
        this.buffer = kept.map((e): Waiting => ({ row: e.row }));
        release(kept);
        this.failures.failed({ rows: entries.length, ...describeError(error) });
        this.timer ??= setTimeout(() => void this.flush(), RETRY_MS);
        return;
      }
      this.failures.succeeded();
      release(entries);
    }
  }

  /** One batch: its partitions, then the log rows, the per-day counts and the keys' last use in one transaction. */
  async write(rows: UsageRow[]): Promise<void> {
    const iso = rows.map((r) => r.at.toISOString());
    const months = new Set(iso.map((at) => at.slice(0, 7)));
    const missing = [...months].filter((m) => !this.partitions.has(m));
    if (missing.length > 0) {
      await ensurePartitions(this.pool, missing);
      for (const m of missing) this.partitions.add(m);
    }
    const daily = new Map<string, { subscriptionId: string; day: string; endpoint: string; calls: number }>();
    rows.forEach((r, i) => {
      if (!isCounted(r)) return;
      const day = iso[i].slice(0, 10);
      const key = `${r.subscriptionId}\n${day}\n${r.endpoint}`;
      const entry = daily.get(key);
      if (entry === undefined)
        daily.set(key, { subscriptionId: r.subscriptionId, day, endpoint: r.endpoint as string, calls: 1 });
      else entry.calls += 1;
    });
    // Sorted, so that two instances upsert the same rows in one order (no deadlock).
    const counts = [...daily.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
    const lastUse = lastUseByKey(rows);
    const keyIds = [...lastUse.keys()].sort();
    // One statement, so one round trip and atomic on its own: the log rows, the per-day counts and
    // the keys' last use (a request waits for this commit before its answer is sent).
    await this.pool.query(
      `WITH logged AS (
         INSERT INTO usage_log (at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms,
           request_id)
         SELECT * FROM unnest($1::timestamptz[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[],
           $7::boolean[], $8::smallint[], $9::real[], $10::text[])
       ), counted AS (
         INSERT INTO usage_daily (subscription_id, day, endpoint, calls)
         SELECT * FROM unnest($11::text[], $12::date[], $13::text[], $14::bigint[])
         ON CONFLICT (subscription_id, day, endpoint) DO UPDATE SET calls = usage_daily.calls + excluded.calls
       )
       UPDATE api_keys k SET last_used_at = v.at FROM unnest($15::text[], $16::text[]) AS v (id, at)
        WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`,
      [
        iso,
        iso.map((at) => at.slice(0, 10)),
        rows.map((r) => r.subscriptionId),
        rows.map((r) => r.keyId),
        rows.map((r) => r.keyPrefix),
        rows.map((r) => r.endpoint),
        rows.map((r) => r.billable),
        rows.map((r) => r.status),
        rows.map((r) => r.latencyMs),
        rows.map((r) => r.requestId),
        counts.map((c) => c.subscriptionId),
        counts.map((c) => c.day),
        counts.map((c) => c.endpoint),
        counts.map((c) => c.calls),
        keyIds,
        keyIds.map((id) => lastUse.get(id)),
      ],
    );
  }

  get pending(): number {
    return this.buffer.length;
  }

  async statistics(subscriptionId: string, fromDay: string): Promise<UsageStatistics> {
    await this.flush();
    return this.read(usageStatistics(this.steps.dialect, subscriptionId, fromDay));
  }

  async dailyByEndpoint(subscriptionId: string, fromDay: string): Promise<DailyCalls[]> {
    await this.flush();
    return this.read(dailyCalls(this.steps.dialect, subscriptionId, fromDay));
  }

  private async read<T>(steps: Steps<T>): Promise<T> {
    try {
      return await this.steps.run(steps);
    } catch (error) {
      throw pgUnavailable(error);
    }
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
