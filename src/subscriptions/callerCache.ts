// The callers of recently presented keys, by key hash, as both stores remember them: at most
// CALLER_CACHE_SIZE, the least recently used forgotten first, each trusted until its own time
// (its key's revocation, or how long the store may trust it without hearing of a change). Clearing
// is one step, however many are remembered: each caller carries the generation it was remembered
// in, and one of an earlier generation is forgotten when next asked for (an LRU's own clear visits
// every slot, which costs more than the look-up it saves when the SQLite store clears once a turn).
import { LRUCache } from 'lru-cache';
import type { Caller } from './port.js';

const CALLER_CACHE_SIZE = 10_000;

export class CallerCache {
  private readonly callers = new LRUCache<string, { caller: Caller; until: number; generation: number }>({
    max: CALLER_CACHE_SIZE,
  });
  private generation = 0;

  /** The caller remembered for `hash` while `nowMs` is before its time; undefined otherwise (then forgotten). */
  get(hash: string, nowMs: number): Caller | undefined {
    const known = this.callers.get(hash);
    if (known === undefined) return undefined;
    if (known.generation === this.generation && nowMs < known.until) return known.caller;
    this.callers.delete(hash);
    return undefined;
  }

  set(hash: string, caller: Caller, until: number): void {
    this.callers.set(hash, { caller, until, generation: this.generation });
  }

  /** Forgets every caller (a change was made or heard of). */
  clear(): void {
    this.generation += 1;
  }
}
