// Cursor paging and export on the in-memory columns: the page after a place (sort key, id) found by
// a binary search in the sort's precomputed order, never by counting an offset, so a page costs the
// same at the first match and at the millionth; and every match in order, for an export. Pure: the
// text hits come from FTS5, and the engine finds `boundary` (the first position whose id is above
// the place's id) in the catalog's id index.
import type { Facets, GrantQuery, KeysetPosition, SortKey } from '../../../grants/query.js';
import { countBits, emptyBits, hasBit, intersection, positionsOf, setBit, type Bits } from '../index/bitset.js';
import { compareCodePoints, type CatalogColumns } from '../index/columns.js';
import { facetCounts, relevancePage, type Condition, type ScoredHits, type TextHits } from './columnSearch.js';

export interface KeysetAnswer {
  total: number;
  /** The page's positions, in order. */
  page: number[];
  facets?: Facets;
  /** The last position of the page and its sort key, when more matches follow; null otherwise. */
  last: { position: number; key: number | string | null } | null;
}

type OrderKey = Exclude<SortKey, 'relevance'>;

/** The text hits as one more condition; the matches of them all. */
function conditionsAndMatches(columns: CatalogColumns, filters: Condition[], text: TextHits | null): { conditions: Condition[]; matches: Bits } {
  const conditions = [...filters];
  if (text !== null) {
    const bits = emptyBits(columns.size);
    for (const position of text.positions) setBit(bits, position);
    conditions.push({ facet: null, bits });
  }
  return { conditions, matches: intersection(conditions.map((c) => c.bits), columns.size) };
}

/** The order a query walks (relevance without scores falls back to deadline, as columnSearch does). */
const orderKeyOf = (query: GrantQuery): OrderKey => (query.sort.key === 'relevance' ? 'deadline' : query.sort.key);

/**
 * Whether position p comes after the place in the order of `key`: nulls last in both directions,
 * then ids (positions at or above `boundary` have an id above the place's).
 */
function comesAfter(columns: CatalogColumns, key: OrderKey, descending: boolean, after: KeysetPosition, boundary: number, p: number): boolean {
  const value = columns.sortKeyOf(key, p);
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
export function startInOrder(columns: CatalogColumns, key: OrderKey, descending: boolean, after: KeysetPosition | null, boundary: number): number {
  const { positions } = columns.order(key, descending);
  if (after === null) return 0;
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (comesAfter(columns, key, descending, after, boundary, positions[middle])) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Up to `count` matches from index `start` of the order: a walk, about count × catalog / total
 * steps; when the matches are few, sorting them by their place in the order is cheaper.
 */
function walkFrom(columns: CatalogColumns, key: OrderKey, descending: boolean, matches: Bits, total: number, start: number, count: number): number[] {
  const { positions, rank } = columns.order(key, descending);
  if (total === 0 || count <= 0) return [];
  const walkSteps = (count * positions.length) / total;
  if (total * (Math.log2(total) + 1) * 4 < walkSteps) {
    return Array.from(positionsOf(matches))
      .filter((p) => rank[p] >= start)
      .sort((a, b) => rank[a] - rank[b])
      .slice(0, count);
  }
  const page: number[] = [];
  for (let i = start; i < positions.length && page.length < count; i++) {
    if (hasBit(matches, positions[i])) page.push(positions[i]);
  }
  return page;
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
  return { positions: Int32Array.from(keep, (h) => hits.positions[h]), scores: Float64Array.from(keep, (h) => hits.scores[h]) };
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
): KeysetAnswer {
  const { conditions, matches } = conditionsAndMatches(columns, filters, text);
  const total = countBits(matches);
  const answer: KeysetAnswer = { total, page: [], last: null };
  if (query.facets.length > 0) answer.facets = facetCounts(columns, query.facets, conditions, matches, total);
  const wanted = query.limit + 1;
  let found: number[];
  let keyOf: (position: number) => number | string | null;
  if (query.sort.key === 'relevance' && text !== null && text.scored !== null) {
    const hits = hitsAfter(text.scored, after, boundary);
    found = relevancePage(hits, matches, 0, wanted);
    keyOf = (position) => hits.scores[hits.positions.indexOf(position)];
  } else {
    const key = orderKeyOf(query);
    const descending = key === query.sort.key && query.sort.descending;
    found = walkFrom(columns, key, descending, matches, total, startInOrder(columns, key, descending, after, boundary), wanted);
    keyOf = (position) => columns.sortKeyOf(key, position);
  }
  answer.page = found.slice(0, query.limit);
  if (found.length > query.limit) {
    const position = answer.page[answer.page.length - 1];
    answer.last = { position, key: keyOf(position) };
  }
  return answer;
}

/** Every match of the query in its order, for an export: a walk of the order, or the scored hits sorted. */
export function* everyMatch(columns: CatalogColumns, query: GrantQuery, filters: Condition[], text: TextHits | null): Generator<number> {
  const { matches } = conditionsAndMatches(columns, filters, text);
  if (query.sort.key === 'relevance' && text !== null && text.scored !== null) {
    const { positions, scores } = text.scored;
    const order = Array.from(positions.keys()).filter((h) => hasBit(matches, positions[h]));
    order.sort((a, b) => scores[a] - scores[b] || positions[a] - positions[b]);
    for (const h of order) yield positions[h];
    return;
  }
  const key = orderKeyOf(query);
  const { positions } = columns.order(key, key === query.sort.key && query.sort.descending);
  for (let i = 0; i < positions.length; i++) if (hasBit(matches, positions[i])) yield positions[i];
}

/** How many grants match (for an export's count). */
export function matchCount(columns: CatalogColumns, filters: Condition[], text: TextHits | null): number {
  return countBits(conditionsAndMatches(columns, filters, text).matches);
}
