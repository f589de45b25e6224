// The monthly allowance counter in the subscriptions database. A call is counted at admission, in
// the same write transaction that checks it against the limit, and the request goes on only once
// that transaction has committed: the count never trails what is served, survives a crash, and
// is exact across every process that shares the file (SQLite's write lock serialises them).
//
// Group commit: the admissions asked for during one turn of the event loop are checked and counted
// together, in the turn's one write transaction (groupCommit.ts), with the usage rows of the requests
// that finished in the same turn. Under load a transaction carries many calls instead of one, which
// is what makes the exact count affordable; alone, a request waits for nothing but that one commit.
import type Database from 'better-sqlite3';
import { transientAsUnavailable } from '../../sqliteFailures.js';
import type { Db } from './database.js';
import type { Admission, AllowanceRecord } from '../port.js';
import { admissionsOf, rejectAll, TurnAsks, type AskGroup as Group } from '../allowanceGroupCommit.js';
import { SqliteGroupCommit, type TurnWrite } from './groupCommit.js';
import { monthCounts } from '../usageReads.js';
import { SqliteSteps } from './steps.js';

export class SqliteAllowanceCounter implements AllowanceRecord {
  private readonly add: Database.Statement;
  private readonly read: Database.Statement;
  private readonly steps: SqliteSteps;
  private readonly turn: TurnAsks;

  /** `writes`: the store's group commit, shared with the usage log (one of its own when alone). */
  constructor(
    db: Db,
    private readonly writes: SqliteGroupCommit = new SqliteGroupCommit(db),
  ) {
    this.add = db.prepare(
      `INSERT INTO monthly_usage (subscription_id, month, calls) VALUES (?, ?, ?)
       ON CONFLICT (subscription_id, month) DO UPDATE SET calls = calls + excluded.calls`,
    );
    this.read = db.prepare('SELECT calls FROM monthly_usage WHERE subscription_id = ? AND month = ?').pluck();
    this.steps = new SqliteSteps(db);
    this.turn = new TurnAsks(() => writes.join(() => this.turnWrite(this.turn.take())));
  }

  /** Inside the write transaction: admits as many of the group's calls as the limit leaves room for, in order. */
  private countGroup({ subscriptionId, month, limit, waiting }: Group): Admission[] {
    const before = this.currentSync(subscriptionId, month);
    const admitted = limit === null ? waiting.length : Math.min(waiting.length, Math.max(0, limit - before));
    if (admitted > 0) this.add.run(subscriptionId, month, admitted);
    return admissionsOf(before, admitted, waiting.length);
  }

  /**
   * This turn's asks, counted in the turn's transaction; on failure every ask of the turn fails and
   * nothing is counted (503 when a retry may cure it, such as a lock held past busy_timeout).
   */
  private turnWrite(groups: Group[]): TurnWrite | null {
    if (groups.length === 0) return null;
    let results: Admission[][] = [];
    return {
      write: () => {
        results = groups.map((group) => this.countGroup(group));
      },
      committed: () => groups.forEach((group, g) => group.waiting.forEach((w, i) => w.resolve(results[g][i]))),
      failed: (error) => rejectAll(groups, transientAsUnavailable(error, 'subscriptions database')),
    };
  }

  tryConsume(subscriptionId: string, month: string, limit: number): Promise<Admission> {
    return this.turn.ask(subscriptionId, month, limit);
  }

  /** Counts a call another counter admitted, so this record never trails what was served; resolves once committed. */
  recordServed(subscriptionId: string, month: string): Promise<number> {
    return this.turn.ask(subscriptionId, month, null).then((admission) => admission.calls);
  }

  /** Commits what this turn asked for now (before the database closes). */
  close(): void {
    this.writes.flush();
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
    return this.steps.run(monthCounts(month));
  }
}
