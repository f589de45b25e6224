// A resolver that keeps each host's answer for a few seconds: a receiver takes many events in a
// row, and every delivery resolved its name again (a getaddrinfo on libuv's thread pool, shared
// with file and crypto work, per webhook). Only the lookup is kept: every delivery still checks
// each address of the answer and connects to the one it checked (targets.ts), so a cached answer
// can never reach an address a fresh one could not. Failures are not kept (a name that did not
// resolve is asked again at the next delivery); lookups of one host under way are shared.
import { LRUCache } from 'lru-cache';
import type { Resolver } from './targets.js';

/** How long a host's answer is reused: short, so that a receiver moving to a new address is followed within seconds. */
const RESOLVED_TTL_MS = 5_000;
/** Hosts kept at most (the least recently used are dropped). */
const HOSTS_KEPT = 1024;

export function cachedResolver(resolve: Resolver, ttlMs = RESOLVED_TTL_MS): Resolver {
  const answers = new LRUCache<string, ReturnType<Resolver>>({ max: HOSTS_KEPT, ttl: ttlMs });
  return (host) => {
    const known = answers.get(host);
    if (known !== undefined) return known;
    const answer = resolve(host);
    answers.set(host, answer);
    answer.catch(() => {
      if (answers.get(host) === answer) answers.delete(host);
    });
    return answer;
  };
}
