// The usage log (one row per logged request, written in batches) and the monthly allowance
// counter (written at admission, so it never trails what was served).
import type Database from 'better-sqlite3';
import type { Logger } from '../log.js';
import { describeError } from '../log.js';
import type { Db } from './database.js';
import { dayKey } from './month.js';

export interface UsageRow {
  at: Date;
  subscriptionId: string;
  keyId: string;
  keyPrefix: string;
  /** Route template relative to /external/v1, or null for an unknown path. */
  endpoint: string | null;
  billable: boolean;
  status: number;
  latencyMs: number;
  requestId: string;
}

export interface UsageStatistics {
  totalCalls: number;
  topEndpoints: { endpoint: string; calls: number }[];
}

/** Counts billable calls per subscription and month; the allowance check and the count are one step. */
export interface AllowanceCounter {
  /** Counts one call if fewer than `limit` were counted this month; says whether it was. */
  tryConsume(subscriptionId: string, month: string, limit: number): Promise<{ allowed: boolean; calls: number }>;
  current(subscriptionId: string, month: string): Promise<number>;
}

export const FLUSH_INTERVAL_MS = 200;
export const FLUSH_BATCH = 500;

/** The monthly counter in the subscriptions database: exact across processes that share the file. */
export class SqliteAllowanceCounter implements AllowanceCounter {
  private readonly ensure: Database.Statement;
  private readonly consume: Database.Statement;
  private readonly read: Database.Statement;
  private readonly served: Database.Statement;
  private readonly month: Database.Statement;

  constructor(db: Db) {
    this.served = db.prepare(
      `INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, 1)
       ON CONFLICT (subscription_id, month) DO UPDATE SET calls = calls + 1`,
    );
    this.month = db.prepare('SELECT subscription_id AS subscriptionId, calls FROM monthly_usage WHERE month = ?');
    this.ensure = db.prepare('INSERT OR IGNORE INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, 0)');
    this.consume = db.prepare(
      'UPDATE monthly_usage SET calls = calls + 1 WHERE subscription_id = ? AND month = ? AND calls < ? RETURNING calls',
    ).pluck();
    this.read = db.prepare('SELECT calls FROM monthly_usage WHERE subscription_id = ? AND month = ?').pluck();
  }

  async tryConsume(subscriptionId: string, month: string, limit: number) {
    const calls = this.consume.get(subscriptionId, month, limit) as number | undefined;
    if (calls !== undefined) return { allowed: true, calls };
    this.ensure.run(subscriptionId, month);
    const retried = this.consume.get(subscriptionId, month, limit) as number | undefined;
    if (retried !== undefined) return { allowed: true, calls: retried };
    return { allowed: false, calls: this.currentSync(subscriptionId, month) };
  }

  currentSync(subscriptionId: string, month: string): number {
    return (this.read.get(subscriptionId, month) as number | undefined) ?? 0;
  }

  async current(subscriptionId: string, month: string) {
    return this.currentSync(subscriptionId, month);
  }

  /** Counts a call another counter admitted, so this record never trails what was served. */
  recordServed(subscriptionId: string, month: string): void {
    this.served.run(subscriptionId, month);
  }

  /** Every subscription's count for a month. */
  monthCounts(month: string): { subscriptionId: string; calls: number }[] {
    return this.month.all(month) as { subscriptionId: string; calls: number }[];
  }
}

export class UsageStore {
  private buffer: UsageRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly insert: Database.Statement;
  private readonly writeBatch: (rows: UsageRow[]) => void;
  private readonly totalCalls: Database.Statement;
  private readonly callsByEndpoint: Database.Statement;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly onFlush: (rows: UsageRow[]) => void = () => {},
  ) {
    this.insert = db.prepare(
      `INSERT INTO usage_log (at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms, request_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.writeBatch = db.transaction((rows: UsageRow[]) => {
      for (const r of rows) {
        this.insert.run(r.at.toISOString(), dayKey(r.at), r.subscriptionId, r.keyId, r.keyPrefix, r.endpoint, r.billable ? 1 : 0, r.status, r.latencyMs, r.requestId);
      }
      this.onFlush(rows);
    });
    // usage_daily holds the counted calls of usage_log per day and endpoint (kept by triggers).
    this.totalCalls = db.prepare('SELECT coalesce(sum(calls), 0) FROM usage_daily WHERE subscription_id = ? AND day >= ?').pluck();
    this.callsByEndpoint = db.prepare(
      `SELECT endpoint, sum(calls) AS calls FROM usage_daily WHERE subscription_id = ? AND day >= ?
       GROUP BY endpoint HAVING sum(calls) > 0 ORDER BY calls DESC, endpoint ASC LIMIT 10`,
    );
  }

  /** Buffers one row; it reaches the database within FLUSH_INTERVAL_MS, or at once when the batch is full. */
  record(row: UsageRow): void {
    this.buffer.push(row);
    if (this.buffer.length >= FLUSH_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_INTERVAL_MS);
  }

  /** Writes every buffered row. On failure the rows stay buffered for the next attempt. */
  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      this.writeBatch(rows);
    } catch (error) {
      this.buffer = rows.concat(this.buffer);
      this.log.error('usage log write failed; rows kept for retry', { rows: rows.length, ...describeError(error) });
      this.timer ??= setTimeout(() => this.flush(), 1000);
    }
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Logged calls in the window that count as usage: billable or /subscription/*, not 401 or 429. */
  statistics(subscriptionId: string, fromDay: string): UsageStatistics {
    this.flush();
    return this.db.transaction(() => ({
      totalCalls: this.totalCalls.get(subscriptionId, fromDay) as number,
      topEndpoints: this.callsByEndpoint.all(subscriptionId, fromDay) as { endpoint: string; calls: number }[],
    }))();
  }

  close(): void {
    this.flush();
  }
}
