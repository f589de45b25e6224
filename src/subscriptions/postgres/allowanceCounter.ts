// The monthly record in PostgreSQL, exact across every instance that shares the database. The asks
// of one event-loop turn (group commit) go in one call of consume_allowance (migration 1), which
// locks each month's row, admits as many asks as the limit leaves room for, and counts them in the
// same statement: two requests on two machines never both take the last call, and a request goes
// on only once its call is committed, so the count never trails what was served.
import type { Admission, AllowanceRecord, Awaitable } from '../port.js';
import { SeenMonthlyCounts } from '../allowanceCountsSeen.js';
import { admissionsOf, rejectAll, TurnAsks, type AskGroup as Group } from '../allowanceGroupCommit.js';
import { pgUnavailable, type Pool } from './database.js';
import { monthCounts } from '../usageReads.js';
import { PgSteps } from './steps.js';

const byRow = (a: Group, b: Group): number =>
  a.subscriptionId < b.subscriptionId
    ? -1
    : a.subscriptionId > b.subscriptionId
      ? 1
      : a.month < b.month
        ? -1
        : a.month > b.month
          ? 1
          : 0;

export class PgAllowanceCounter implements AllowanceRecord {
  private readonly turn = new TurnAsks(() => setImmediate(() => this.commit(this.turn.take())));
  private readonly inFlight = new Set<Promise<void>>();
  /** The highest count this instance has seen per subscription and month (a floor, never above the record). */
  private readonly seen = new SeenMonthlyCounts();

  constructor(private readonly pool: Pool) {}

  /** Sends this turn's asks in one statement; on failure every ask of the turn fails and nothing is counted. */
  private commit(turn: Group[]): void {
    if (turn.length === 0) return;
    const groups = turn.sort(byRow);
    const done = this.pool
      .query(
        'SELECT calls_before, calls_admitted FROM consume_allowance($1::text[], $2::text[], $3::integer[], ' +
          '$4::integer[])',
        [
          groups.map((g) => g.subscriptionId),
          groups.map((g) => g.month),
          groups.map((g) => g.waiting.length),
          groups.map((g) => g.limit),
        ],
      )
      .then(
        ({ rows }) => {
          groups.forEach((group, g) => {
            const before = Number(rows[g].calls_before);
            const admitted = Number(rows[g].calls_admitted);
            this.seen.see(group.subscriptionId, group.month, before + admitted);
            admissionsOf(before, admitted, group.waiting.length).forEach((admission, i) =>
              group.waiting[i].resolve(admission),
            );
          });
        },
        (error) => rejectAll(groups, pgUnavailable(error)),
      );
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  tryConsume(subscriptionId: string, month: string, limit: number): Promise<Admission> {
    return this.turn.ask(subscriptionId, month, limit);
  }

  recordServed(subscriptionId: string, month: string): Promise<number> {
    return this.turn.ask(subscriptionId, month, null).then((admission) => admission.calls);
  }

  async current(subscriptionId: string, month: string): Promise<number> {
    let rows: { calls: number }[];
    try {
      ({ rows } = await this.pool.query('SELECT calls FROM monthly_usage WHERE subscription_id = $1 AND month = $2', [
        subscriptionId,
        month,
      ]));
    } catch (error) {
      throw pgUnavailable(error);
    }
    const calls = rows.length === 0 ? 0 : Number(rows[0].calls);
    return this.seen.see(subscriptionId, month, calls);
  }

  /** What this instance last saw committed, without a round trip; read once when it has seen nothing. */
  floor(subscriptionId: string, month: string): Awaitable<number> {
    return this.seen.get(subscriptionId, month) ?? this.current(subscriptionId, month);
  }

  async monthCounts(month: string): Promise<{ subscriptionId: string; calls: number }[]> {
    return new PgSteps(this.pool).run(monthCounts(month));
  }

  /** Sends what this turn asked for now and waits for every statement in flight. */
  async close(): Promise<void> {
    this.commit(this.turn.take());
    await Promise.allSettled([...this.inFlight]);
  }
}
