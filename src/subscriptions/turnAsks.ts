// Group commit of the monthly allowance: the asks made during one turn of the event loop, grouped
// by subscription, month and limit, handed to the store together when the loop reaches its check
// phase (setImmediate), and the admissions one group gets from the count before it and the number
// the limit let in. Both stores' counters (SQLite, PostgreSQL) commit their turns through it.
import type { Admission } from './store.js';

export interface Waiting {
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
  private scheduled = false;

  /** `commit` receives each turn's groups once; it resolves or rejects every ask in them. */
  constructor(private readonly commit: (groups: AskGroup[]) => void) {}

  ask(subscriptionId: string, month: string, limit: number | null): Promise<Admission> {
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
        setImmediate(() => this.flush());
      }
    });
  }

  /** Hands this turn's asks to `commit` now (at the check phase, or before the store closes). */
  flush(): void {
    this.scheduled = false;
    if (this.groups.size === 0) return;
    const groups = [...this.groups.values()];
    this.groups = new Map();
    this.commit(groups);
  }
}

/** In order: the first `admitted` asks are allowed (each counted after the one before), the rest refused. */
export function admissionsOf(before: number, admitted: number, asks: number): Admission[] {
  return Array.from({ length: asks }, (_, i) => (i < admitted ? { allowed: true, calls: before + i + 1 } : { allowed: false, calls: before + admitted }));
}

/** Every ask of the turn fails alike: nothing of it was counted. */
export function rejectAll(groups: readonly AskGroup[], failure: unknown): void {
  for (const group of groups) for (const w of group.waiting) w.reject(failure);
}
