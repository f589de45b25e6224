// The one walk along a sort order that offset pages (offsetPage.ts) and cursor pages (keyset.ts)
// share, and the order a query's page follows. Pure: the columns and the matches come in.
import type { GrantQuery } from '../../../grants/query.js';
import { hasBit, positionsOf, type Bits } from '../index/bitset.js';
import type { OrderKey, SortOrder } from '../index/columns.js';
import { sortBeatsWalk } from '../query/plan.js';

/** The order a page follows: the sort's, or deadline (ascending) for relevance without scores. */
export function orderOf(query: GrantQuery): { key: OrderKey; descending: boolean } {
  const key = query.sort.key === 'relevance' ? 'deadline' : query.sort.key;
  return { key, descending: key === query.sort.key && query.sort.descending };
}

/**
 * From index `start` of the order, the `count` matches after the first `skip` (`total` matches in
 * all): a walk of the order until they are found, or, when the plan finds it cheaper (few matches,
 * a deep page), the matches sorted by their place in the order.
 */
export function pageAlongOrder(
  order: SortOrder,
  matches: Bits,
  total: number,
  start: number,
  skip: number,
  count: number,
): number[] {
  if (total === 0 || count <= 0 || skip >= total) return [];
  const { positions, rank } = order;
  if (sortBeatsWalk(total, skip + count, positions.length)) {
    const found = Array.from(positionsOf(matches));
    const after = start === 0 ? found : found.filter((p) => rank[p] >= start);
    return after.sort((a, b) => rank[a] - rank[b]).slice(skip, skip + count);
  }
  const page: number[] = [];
  let skipped = 0;
  for (let i = start; i < positions.length && page.length < count; i++) {
    const p = positions[i];
    if (!hasBit(matches, p)) continue;
    if (skipped < skip) skipped += 1;
    else page.push(p);
  }
  return page;
}
