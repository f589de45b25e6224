// The callers of recently presented keys, by key hash, as both stores remember them: at most
// CALLER_CACHE_SIZE, the least recently used forgotten first, each trusted until its own time
// (its key's revocation, or how long the store may trust it without hearing of a change).
import { LRUCache } from 'lru-cache';
import type { Caller } from './store.js';

export const CALLER_CACHE_SIZE = 10_000;

export class CallerCache {
  private readonly callers = new LRUCache<string, { caller: Caller; until: number }>({ max: CALLER_CACHE_SIZE });

  /** The caller remembered for `hash` while `nowMs` is before its time; undefined otherwise (then forgotten). */
  get(hash: string, nowMs: number): Caller | undefined {
    const known = this.callers.get(hash);
    if (known === undefined) return undefined;
    if (nowMs < known.until) return known.caller;
    this.callers.delete(hash);
    return undefined;
  }

  set(hash: string, caller: Caller, until: number): void {
    this.callers.set(hash, { caller, until });
  }

  /** Forgets every caller (a change was made or heard of). */
  clear(): void {
    this.callers.clear();
  }
}
