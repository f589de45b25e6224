// The SQLite store's group commit: one write transaction per turn of the event loop. What the
// allowance counter and the usage log were asked to write during the turn (the calls admitted, the
// usage rows of the requests that finished) is written together, in one IMMEDIATE transaction,
// when the loop reaches its check phase (setImmediate). A request waits for that commit before it
// goes on (admission) or before its answer is sent (usage row): nothing it was counted or logged
// for lives only in memory. Under load a transaction carries many calls and rows; alone, a request
// waits for one commit. The allowance's asks of a turn are grouped before they join it
// (../allowanceGroupCommit.ts).
import type { Db } from './database.js';

/** One part's share of a turn: written inside the transaction, then told how it ended. */
export interface TurnWrite {
  write(): void;
  committed(): void;
  failed(error: unknown): void;
}

export class SqliteGroupCommit {
  private collectors: (() => TurnWrite | null)[] = [];
  private scheduled = false;
  private readonly transaction: { immediate(writes: TurnWrite[]): void };

  constructor(db: Db) {
    this.transaction = db.transaction((writes: TurnWrite[]) => {
      for (const w of writes) w.write();
    });
  }

  /** `collect` is called once, at the end of this turn, for its part's share (null: nothing after all). */
  join(collect: () => TurnWrite | null): void {
    this.collectors.push(collect);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes this turn's shares now (at the check phase, or when a reader or closing needs them). */
  flush(): void {
    this.scheduled = false;
    if (this.collectors.length === 0) return;
    const collectors = this.collectors;
    this.collectors = [];
    const writes = collectors.map((collect) => collect()).filter((w): w is TurnWrite => w !== null);
    if (writes.length === 0) return;
    try {
      this.transaction.immediate(writes);
    } catch (error) {
      for (const w of writes) w.failed(error);
      return;
    }
    for (const w of writes) w.committed();
  }
}
