// Cursor paging on the in-memory columns: the page after a place (sort key, id) found by a binary
// search in the sort's precomputed order, never by counting an offset, so a page costs the same at
// the first match and at the millionth. Pure: the text hits come in, and the engine finds
// `boundary` (the first position whose id is above the place's id) in the catalog's id index and
// reads the titles a title sort compares (the columns keep no titles).
import { titleSortKey } from '../../../grants/folding.js';
import type { Facets, GrantQuery, KeysetPosition } from '../../../grants/query.js';
import { countBits } from '../index/bitset.js';
import { compareCodePoints, type CatalogColumns, type OrderKey } from '../index/columns.js';
import { matchesOf, type Condition } from '../query/filters.js';
import { rankedBy, type ScoredHits, type TextHits } from '../query/textHits.js';
import { facetCounts } from './facets.js';
import { orderOf, pageAlongOrder } from './sortOrderWalk.js';
import { relevancePage } from './topk.js';

interface KeysetAnswer {
  total: number;
  /** The page's positions, in order. */
  page: number[];
  facets?: Facets;
  /** The last position of the page and its sort key, when more matches follow; null otherwise. */
  last: { position: number; key: number | string | null } | null;
}

/** A position's title, read from the catalog the columns hold. */
type TitleOf = (position: number) => string | undefined;

/** A position's value of a sort key as the orders compare it: the folded title, or the number (null for null). */
function sortKeyOf(columns: CatalogColumns, titleOf: TitleOf, key: OrderKey, position: number): number | string | null {
  return key === 'title' ? titleSortKey(titleOf(position) ?? '') : columns.numberOf(key, position);
}

/**
 * Whether position p comes after the place in the order of `key`: nulls last in both directions,
 * then ids (positions at or above `boundary` have an id above the place's).
 */
function comesAfter(
  columns: CatalogColumns,
  titleOf: TitleOf,
  key: OrderKey,
  descending: boolean,
  after: KeysetPosition,
  boundary: number,
  p: number,
): boolean {
  const value = sortKeyOf(columns, titleOf, key, p);
  const wanted = after.key;
  let c: number;
  if (value === null || wanted === null) c = (value === null ? 1 : 0) - (wanted === null ? 1 : 0);
  else {
    c = typeof value === 'string' ? compareCodePoints(value, String(wanted)) : value - (wanted as number);
    if (descending) c = -c;
  }
  return c !== 0 ? c > 0 : p >= boundary;
}

/** The index in the order of the first entry after the place (0 without one): a binary search. */
function startInOrder(
  columns: CatalogColumns,
  titleOf: TitleOf,
  key: OrderKey,
  descending: boolean,
  after: KeysetPosition | null,
  boundary: number,
): number {
  const { positions } = columns.order(key, descending);
  if (after === null) return 0;
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (comesAfter(columns, titleOf, key, descending, after, boundary, positions[middle])) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The scored hits after the place (score, then id), bm25 being lower for better. */
function hitsAfter(hits: ScoredHits, after: KeysetPosition | null, boundary: number): ScoredHits {
  if (after === null) return hits;
  const score = after.key as number;
  const keep: number[] = [];
  for (let h = 0; h < hits.positions.length; h++) {
    const s = hits.scores[h];
    if (s > score || (s === score && hits.positions[h] >= boundary)) keep.push(h);
  }
  return {
    positions: Int32Array.from(keep, (h) => hits.positions[h]),
    scores: Float64Array.from(keep, (h) => hits.scores[h]),
  };
}

/**
 * The cursor page of a query: the first query.limit matches after `after` (from the first match
 * when null), the total and the facets as for an offset page, and the last position when more follow.
 */
export function keysetSearch(
  columns: CatalogColumns,
  query: GrantQuery,
  filters: Condition[],
  text: TextHits | null,
  after: KeysetPosition | null,
  boundary: number,
  titleOf: TitleOf,
): KeysetAnswer {
  const { conditions, matches } = matchesOf(columns, filters, text);
  const total = countBits(matches);
  const answer: KeysetAnswer = { total, page: [], last: null };
  if (query.facets.length > 0)
    answer.facets = facetCounts(columns, query.facets, conditions, matches, total, query.now);
  const wanted = query.limit + 1;
  let found: number[];
  let keyOf: (position: number) => number | string | null;
  const ranked = rankedBy(query, text);
  if (ranked !== null) {
    const hits = hitsAfter(ranked, after, boundary);
    found = relevancePage(hits, matches, 0, wanted);
    keyOf = (position) => hits.scores[hits.positions.indexOf(position)];
  } else {
    const { key, descending } = orderOf(query);
    const start = startInOrder(columns, titleOf, key, descending, after, boundary);
    found = pageAlongOrder(columns.order(key, descending), matches, total, start, 0, wanted);
    keyOf = (position) => sortKeyOf(columns, titleOf, key, position);
  }
  answer.page = found.slice(0, query.limit);
  if (found.length > query.limit) {
    const position = answer.page[answer.page.length - 1];
    answer.last = { position, key: keyOf(position) };
  }
  return answer;
}
