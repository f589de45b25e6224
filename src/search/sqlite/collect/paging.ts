// Pages of a query over its matches: an offset page (the total, the facets, and offset + size
// along the sort), every match in order (an export), and the one walk along a sort order that
// offset and cursor pages (keyset.ts) share. Pure: the columns, the conditions and the text hits
// come in; the engine reads the page's documents.
import type { Facets, GrantQuery } from '../../../grants/query.js';
import { countBits, hasBit, positionsOf, type Bits } from '../index/bitset.js';
import type { CatalogColumns, OrderKey, SortOrder } from '../index/columns.js';
import { matchesOf, type Condition } from '../query/filters.js';
import { sortBeatsWalk } from '../query/plan.js';
import { rankedBy, type TextHits } from '../query/textHits.js';
import { facetCounts } from './facets.js';
import { relevancePage } from './topk.js';

export interface ColumnAnswer {
  total: number;
  /** The page's positions, in order. */
  page: number[];
  facets?: Facets;
}

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

/** The offset page of the query from its filter conditions (query/filters.ts) and its text hits, if it has words. */
export function offsetPage(
  columns: CatalogColumns,
  query: GrantQuery,
  filters: Condition[],
  text: TextHits | null,
): ColumnAnswer {
  const { conditions, matches } = matchesOf(columns, filters, text);
  const total = countBits(matches);
  const answer: ColumnAnswer = { total, page: [] };
  if (query.facets.length > 0)
    answer.facets = facetCounts(columns, query.facets, conditions, matches, total, query.now);
  if (query.offset >= total) return answer;
  const ranked = rankedBy(query, text);
  if (ranked !== null) {
    answer.page = relevancePage(ranked, matches, query.offset, query.size);
  } else {
    const { key, descending } = orderOf(query);
    answer.page = pageAlongOrder(columns.order(key, descending), matches, total, 0, query.offset, query.size);
  }
  return answer;
}

/** Every match of the query in its order, for an export: a walk of the order, or the scored hits sorted. */
export function* everyMatch(
  columns: CatalogColumns,
  query: GrantQuery,
  filters: Condition[],
  text: TextHits | null,
): Generator<number> {
  const { matches } = matchesOf(columns, filters, text);
  const ranked = rankedBy(query, text);
  if (ranked !== null) {
    const { positions, scores } = ranked;
    const order = Array.from(positions.keys()).filter((h) => hasBit(matches, positions[h]));
    order.sort((a, b) => scores[a] - scores[b] || positions[a] - positions[b]);
    for (const h of order) yield positions[h];
    return;
  }
  const { key, descending } = orderOf(query);
  const { positions } = columns.order(key, descending);
  for (let i = 0; i < positions.length; i++) if (hasBit(matches, positions[i])) yield positions[i];
}

/** How many grants match (for an export's count). */
export function matchCount(columns: CatalogColumns, filters: Condition[], text: TextHits | null): number {
  return countBits(matchesOf(columns, filters, text).matches);
}
