// The monthly allowance counter in the subscriptions database. A call is counted at admission, in
// the same write transaction that checks it against the limit, and the request goes on only once
// that transaction has committed: the count never trails what is served, survives a crash, and
// is exact across every process that shares the file (SQLite's write lock serialises them).
//
// Group commit: the admissions asked for during one turn of the event loop are checked and counted
// together, in one transaction, when the loop reaches its check phase (setImmediate). Under load a
// transaction carries many calls instead of one, which is what makes the exact count affordable;
// alone, a request waits for nothing but that one transaction, as before.
import type Database from 'better-sqlite3';
import { transientAsUnavailable } from '../sqliteFailures.js';
import type { Db } from './database.js';

import type { Admission, AllowanceRecord } from './store.js';

export type { Admission, AllowanceCounter } from './store.js';

interface Waiting {
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

/** The asks of one turn for one subscription, month and limit; `limit` null: counted without a check. */
interface Group {
  subscriptionId: string;
  month: string;
  limit: number | null;
  waiting: Waiting[];
}

export class SqliteAllowanceCounter implements AllowanceRecord {
  private readonly add: Database.Statement;
  private readonly read: Database.Statement;
  private readonly month: Database.Statement;
  private readonly commitTurn: Database.Transaction<(groups: Group[]) => Admission[][]>;
  private groups = new Map<string, Group>();
  private scheduled = false;

  constructor(db: Db) {
    this.add = db.prepare(
      `INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, ?)
       ON CONFLICT (subscription_id, month) DO UPDATE SET calls = calls + excluded.calls`,
    );
    this.read = db.prepare('SELECT calls FROM monthly_usage WHERE subscription_id = ? AND month = ?').pluck();
    this.month = db.prepare('SELECT subscription_id AS subscriptionId, calls FROM monthly_usage WHERE month = ?');
    this.commitTurn = db.transaction((groups: Group[]) => groups.map((group) => this.countGroup(group)));
  }

  /** Inside the write transaction: admits as many of the group's calls as the limit leaves room for, in order. */
  private countGroup({ subscriptionId, month, limit, waiting }: Group): Admission[] {
    const before = this.currentSync(subscriptionId, month);
    const admitted = limit === null ? waiting.length : Math.min(waiting.length, Math.max(0, limit - before));
    if (admitted > 0) this.add.run(subscriptionId, month, admitted);
    return waiting.map((_, i) => (i < admitted ? { allowed: true, calls: before + i + 1 } : { allowed: false, calls: before + admitted }));
  }

  private ask(subscriptionId: string, month: string, limit: number | null): Promise<Admission> {
    return new Promise((resolve, reject) => {
      const key = `${subscriptionId}\n${month}\n${limit}`;
      let group = this.groups.get(key);
      if (group === undefined) {
        group = { subscriptionId, month, limit, waiting: [] };
        this.groups.set(key, group);
      }
      group.waiting.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.commit());
      }
    });
  }

  /**
   * Commits this turn's asks in one IMMEDIATE transaction; on failure every ask of the turn fails
   * and nothing is counted (503 when a retry may cure it, such as a lock held past busy_timeout).
   */
  private commit(): void {
    this.scheduled = false;
    if (this.groups.size === 0) return;
    const groups = [...this.groups.values()];
    this.groups = new Map();
    let results: Admission[][];
    try {
      results = this.commitTurn.immediate(groups);
    } catch (error) {
      const failure = transientAsUnavailable(error, 'subscriptions database');
      for (const group of groups) for (const w of group.waiting) w.reject(failure);
      return;
    }
    groups.forEach((group, g) => group.waiting.forEach((w, i) => w.resolve(results[g][i])));
  }

  tryConsume(subscriptionId: string, month: string, limit: number): Promise<Admission> {
    return this.ask(subscriptionId, month, limit);
  }

  /** Counts a call another counter admitted, so this record never trails what was served; resolves once committed. */
  recordServed(subscriptionId: string, month: string): Promise<number> {
    return this.ask(subscriptionId, month, null).then((admission) => admission.calls);
  }

  /** Commits what this turn asked for now (before the database closes). */
  close(): void {
    this.commit();
  }

  currentSync(subscriptionId: string, month: string): number {
    return (this.read.get(subscriptionId, month) as number | undefined) ?? 0;
  }

  async current(subscriptionId: string, month: string): Promise<number> {
    return this.currentSync(subscriptionId, month);
  }

  floor(subscriptionId: string, month: string): number {
    return this.currentSync(subscriptionId, month);
  }

  /** Every subscription's count for a month. */
  monthCounts(month: string): { subscriptionId: string; calls: number }[] {
    return this.month.all(month) as { subscriptionId: string; calls: number }[];
  }
}
