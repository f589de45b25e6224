// The usage log: one row per logged request, and the statistics read from it. The rows of the
// requests that finish during one turn of the event loop are written in that turn's write
// transaction (groupCommit.ts, with the allowance counts), and each request's answer waits for that
// commit: a crash loses no row of an answer that was sent. A row whose write failed waits in memory
// for the next attempt (the answer is not held back by a failing log).
import type Database from 'better-sqlite3';
import type { Logger } from '../../log.js';
import { describeError } from '../../log.js';
import type { Db } from './database.js';
import { SqliteGroupCommit, type TurnWrite } from './groupCommit.js';
import { WriteFailureLog } from '../writeFailureLog.js';
import { dailyCalls, usageStatistics } from '../usageReads.js';
import type { DailyCalls, UsageLog, UsageRow, UsageStatistics } from '../port.js';
import { SqliteSteps } from './steps.js';

const RETRY_MS = 1000;
/** Rows per multi-row INSERT statement (10 columns each, well under SQLite's 32,766 variables). */
const INSERT_CHUNK = 50;

/** The usage_log columns of a row, `at` given as its ISO text (the day is its first 10 characters). */
const columnsOf = (r: UsageRow, at: string): unknown[] => [
  at,
  at.slice(0, 10),
  r.subscriptionId,
  r.keyId,
  r.keyPrefix,
  r.endpoint,
  r.billable ? 1 : 0,
  r.status,
  r.latencyMs,
  r.requestId,
];

/** toISOString remembered for the last instant asked: the rows of a batch mostly share milliseconds. */
function isoMemo(): (at: Date) => string {
  let lastMs = Number.NaN;
  let lastIso = '';
  return (at) => {
    const ms = at.getTime();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = at.toISOString();
    }
    return lastIso;
  };
}

export class UsageStore implements UsageLog {
  /** This turn's rows, each with the request that waits for its commit. */
  private turnRows: { row: UsageRow; written: () => void }[] = [];
  /** Rows a failed write left for the next attempt. */
  private buffer: UsageRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly insert: Database.Statement;
  private readonly insertChunk: Database.Statement;
  private readonly writeBatch: Database.Transaction<(rows: UsageRow[]) => void>;
  private readonly steps: SqliteSteps;
  private readonly failures: WriteFailureLog;

  /** `writes`: the store's group commit, shared with the allowance counter (one of its own when alone). */
  constructor(
    db: Db,
    log: Logger,
    private readonly onFlush: (rows: UsageRow[]) => void = () => {},
    private readonly writes: SqliteGroupCommit = new SqliteGroupCommit(db),
  ) {
    this.failures = new WriteFailureLog(log);
    const columns =
      '(at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms, request_id)';
    const values = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
    this.insert = db.prepare(`INSERT INTO usage_log ${columns} VALUES ${values}`);
    this.insertChunk = db.prepare(
      `INSERT INTO usage_log ${columns} VALUES ${Array(INSERT_CHUNK).fill(values).join(', ')}`,
    );
    this.writeBatch = db.transaction((rows: UsageRow[]) => this.writeRows(rows));
    // usage_daily holds the counted calls of usage_log per day and endpoint (kept by triggers).
    this.steps = new SqliteSteps(db);
  }

  /** Inside a transaction: the rows, 50 to an INSERT, and the keys' last use. */
  private writeRows(rows: UsageRow[]): void {
    const iso = isoMemo();
    let i = 0;
    for (; i + INSERT_CHUNK <= rows.length; i += INSERT_CHUNK) {
      const params: unknown[] = [];
      for (let j = i; j < i + INSERT_CHUNK; j += 1) params.push(...columnsOf(rows[j], iso(rows[j].at)));
      this.insertChunk.run(params);
    }
    for (; i < rows.length; i += 1) this.insert.run(columnsOf(rows[i], iso(rows[i].at)));
    this.onFlush(rows);
  }

  /** Resolves once the row is committed (or, if the write failed, kept in memory for the next attempt). */
  record(row: UsageRow): Promise<void> {
    return new Promise((written) => {
      if (this.turnRows.length === 0) this.writes.join(() => this.turnWrite());
      this.turnRows.push({ row, written });
    });
  }

  /** This turn's rows, for the turn's transaction. */
  private turnWrite(): TurnWrite | null {
    const entries = this.turnRows;
    this.turnRows = [];
    if (entries.length === 0) return null;
    const rows = entries.map((e) => e.row);
    const release = () => {
      for (const e of entries) e.written();
    };
    return {
      write: () => this.writeRows(rows),
      committed: () => {
        this.failures.succeeded();
        release();
      },
      failed: (error) => {
        this.keepForRetry(rows, error);
        release();
      },
    };
  }

  private keepForRetry(rows: UsageRow[], error: unknown): void {
    this.buffer = rows.concat(this.buffer);
    this.failures.failed({ rows: rows.length, ...describeError(error) });
    this.timer ??= setTimeout(() => this.flush(), RETRY_MS);
  }

  /** Writes this turn's rows now, then any rows a failed write left. On failure the rows stay for the next attempt. */
  flush(): void {
    this.writes.flush();
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      this.writeBatch.immediate(rows);
      this.failures.succeeded();
    } catch (error) {
      this.keepForRetry(rows, error);
    }
  }

  get pending(): number {
    return this.turnRows.length + this.buffer.length;
  }

  /** Logged calls in the window that count as usage: billable or /subscription/*, not 401 or 429. */
  statistics(subscriptionId: string, fromDay: string): UsageStatistics {
    this.flush();
    return this.steps.run(usageStatistics(this.steps.dialect, subscriptionId, fromDay));
  }

  dailyByEndpoint(subscriptionId: string, fromDay: string): DailyCalls[] {
    this.flush();
    return this.steps.run(dailyCalls(this.steps.dialect, subscriptionId, fromDay));
  }

  close(): void {
    this.flush();
  }
}
