// Group commit of the monthly allowance: the asks made during one turn of the event loop, grouped
// by subscription, month and limit, handed to the store together when the loop reaches its check
// phase, and the admissions one group gets from the count before it and the number the limit let
// in. Both stores' counters (SQLite, PostgreSQL) gather their turns with it; the SQLite counter
// commits them in its store's group commit of the turn (sqlite/groupCommit.ts).
import type { Admission } from './port.js';

interface Waiting {
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

/** The asks of one turn for one subscription, month and limit; `limit` null: counted without a check. */
export interface AskGroup {
  subscriptionId: string;
  month: string;
  limit: number | null;
  waiting: Waiting[];
}

export class TurnAsks {
  private groups = new Map<string, AskGroup>();

  /**
   * `onFirstAsk` is called at the first ask of each turn: it arranges for `take()` to be called at
   * the turn's end, and for each ask taken to be resolved or rejected.
   */
  constructor(private readonly onFirstAsk: () => void) {}

  ask(subscriptionId: string, month: string, limit: number | null): Promise<Admission> {
    return new Promise((resolve, reject) => {
      if (this.groups.size === 0) this.onFirstAsk();
      const key = `${subscriptionId}\n${month}\n${limit}`;
      let group = this.groups.get(key);
      if (group === undefined) {
        group = { subscriptionId, month, limit, waiting: [] };
        this.groups.set(key, group);
      }
      group.waiting.push({ resolve, reject });
    });
  }

  /** This turn's asks, grouped; the next ask starts a new turn. */
  take(): AskGroup[] {
    const groups = [...this.groups.values()];
    this.groups = new Map();
    return groups;
  }
}

/** In order: the first `admitted` asks are allowed (each counted after the one before), the rest refused. */
export function admissionsOf(before: number, admitted: number, asks: number): Admission[] {
  return Array.from({ length: asks }, (_, i) =>
    i < admitted ? { allowed: true, calls: before + i + 1 } : { allowed: false, calls: before + admitted },
  );
}

/** Every ask of the turn fails alike: nothing of it was counted. */
export function rejectAll(groups: readonly AskGroup[], failure: unknown): void {
  for (const group of groups) for (const w of group.waiting) w.reject(failure);
}
