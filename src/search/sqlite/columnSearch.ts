// A GrantQuery answered from the in-memory columns: its conditions as bit sets, the total as a
// count of bits, each facet as counts over the matches without its own condition, and the page as
// a walk along the sort's order (or, for relevance, the best text hits kept in a bounded heap).
// Pure: the text hits come in from FTS5, the documents of the page are read by the engine.
import { FACET_FILTERS, FACET_VALUES, type FacetCount, type FacetName, type Facets, type GrantQuery } from '../../grants/query.js';
import { countAnd, countBits, emptyBits, hasBit, intersection, positionsOf, setBit, union, type Bits } from './bitset.js';
import type { CatalogColumns } from './columns.js';

/** Text hits as positions in the columns, and bm25 scores (lower is better). */
export interface ScoredHits {
  positions: Int32Array;
  scores: Float64Array;
}

/**
 * The grants the search words match and, for relevance, the scores of those among them that may
 * be on the page (at least every hit that meets all the filters).
 */
export interface TextHits {
  positions: Int32Array;
  scored: ScoredHits | null;
}

/** One condition of the query; `facet` names the facet it belongs to (its own filter), if any. */
export interface Condition {
  facet: FacetName | null;
  bits: Bits;
}

export interface ColumnAnswer {
  total: number;
  /** The page's positions, in order. */
  page: number[];
  facets?: Facets;
}

/**
 * Positions whose value lies in [low, high], and with `nulls` those whose value is null (NaN).
 * Branch-free (comparisons as 0/1 bits, one word built per 32 positions): these loops see random
 * data, where a branch is mispredicted half the time.
 */
function rangeBits(values: Float64Array, low: number, high: number, nulls: boolean): Bits {
  const size = values.length;
  const bits = emptyBits(size);
  const nullBit = nulls ? 1 : 0;
  for (let w = 0, p = 0; p < size; w++) {
    let word = 0;
    for (let b = 0, end = Math.min(size, p + 32); p < end; p++, b++) {
      const v = values[p];
      word |= ((+(v >= low) & +(v <= high)) | (nullBit & +(v !== v))) << b;
    }
    bits[w] = word;
  }
  return bits;
}

/** Amount ranges that overlap [low, high]; a null bound is open on its side; no amounts, no match. */
function overlapBits(mins: Float64Array, maxes: Float64Array, low: number, high: number): Bits {
  const size = mins.length;
  const bits = emptyBits(size);
  for (let w = 0, p = 0; p < size; w++) {
    let word = 0;
    for (let b = 0, end = Math.min(size, p + 32); p < end; p++, b++) {
      const min = mins[p];
      const max = maxes[p];
      const noMin = +(min !== min);
      const noMax = +(max !== max);
      word |= ((1 ^ (noMin & noMax)) & (noMax | +(max >= low)) & (noMin | +(min <= high))) << b;
    }
    bits[w] = word;
  }
  return bits;
}

/**
 * Like rangeBits and overlapBits, over the candidates only (positions ascending): the grants the
 * search words match, when they are few enough that testing each beats a scan of the catalog.
 * Positions outside the candidates are left out, which every use ANDs with the words' hits anyway.
 */
function bitsAt(size: number, candidates: Int32Array, test: (p: number) => boolean): Bits {
  const bits = emptyBits(size);
  for (let i = 0; i < candidates.length; i++) {
    const p = candidates[i];
    if (test(p)) bits[p >>> 5] |= 1 << (p & 31);
  }
  return bits;
}

/** Below this share of the catalog, range conditions are tested on the text candidates alone. */
const CANDIDATE_SHARE = 0.25;

/**
 * The query's conditions but the text as bit sets: list filters (OR within), then ranges. With
 * `candidates` (the positions the search words match), the ranges may be tested on those alone.
 */
export function filterConditions(columns: CatalogColumns, query: GrantQuery, candidates: Int32Array | null = null): Condition[] {
  const { size, valueBits } = columns;
  const conditions: Condition[] = [];
  for (const [facet, valuesOf] of Object.entries(FACET_FILTERS) as [FacetName, (q: GrantQuery) => readonly string[]][]) {
    const wanted = valuesOf(query);
    if (wanted.length === 0) continue;
    const all = FACET_VALUES[facet];
    conditions.push({ facet, bits: union(wanted.map((value) => valueBits[facet][all.indexOf(value)]).filter((bits) => bits !== undefined), size) });
  }
  if (query.isRecurring !== null) conditions.push({ facet: 'isRecurring', bits: valueBits.isRecurring[query.isRecurring ? 1 : 0] });

  const { amountMin: low, amountMax: high, open, now, deadlineFrom, deadlineTo, updatedSince } = query;
  const { amountMin, amountMax, deadline, updatedAt } = columns.numbers;
  const few = candidates !== null && candidates.length < size * CANDIDATE_SHARE ? candidates : null;
  const range = (values: Float64Array, from: number, to: number, nulls: boolean): Bits =>
    few === null ? rangeBits(values, from, to, nulls) : bitsAt(size, few, (p) => (values[p] >= from && values[p] <= to) || (nulls && Number.isNaN(values[p])));
  if (low !== null || high !== null) {
    const from = low ?? Number.NEGATIVE_INFINITY;
    const to = high ?? Number.POSITIVE_INFINITY;
    const overlaps = (p: number) => {
      const min = amountMin[p];
      const max = amountMax[p];
      return !(Number.isNaN(min) && Number.isNaN(max)) && (Number.isNaN(max) || max >= from) && (Number.isNaN(min) || min <= to);
    };
    conditions.push({ facet: null, bits: few === null ? overlapBits(amountMin, amountMax, from, to) : bitsAt(size, few, overlaps) });
  }
  // Deadlines are whole milliseconds, so deadline < now is deadline ≤ ceil(now) − 1.
  if (open === true) conditions.push({ facet: null, bits: range(deadline, now, Number.POSITIVE_INFINITY, true) });
  if (open === false) conditions.push({ facet: null, bits: range(deadline, Number.NEGATIVE_INFINITY, Math.ceil(now) - 1, false) });
  if (deadlineFrom !== null || deadlineTo !== null) {
    conditions.push({ facet: null, bits: range(deadline, deadlineFrom ?? Number.NEGATIVE_INFINITY, deadlineTo ?? Number.POSITIVE_INFINITY, false) });
  }
  if (updatedSince !== null) conditions.push({ facet: null, bits: range(updatedAt, updatedSince, Number.POSITIVE_INFINITY, false) });
  return conditions;
}

/**
 * Per-match work of counting from the value masks, in units of one word of a bit-set AND and count:
 * below it, counting each match's mask beats counting each value's bit set against the matches.
 */
const MASK_COUNT_COST = 6;

/** Each value's count among the positions of `base`, from the value masks of those positions: cost grows with the matches. */
export function countsByMasks(columns: CatalogColumns, name: FacetName, base: Bits): Int32Array {
  const counts = new Int32Array(FACET_VALUES[name].length);
  const masks = columns.valueMasks[name];
  for (let w = 0; w < base.length; w++) {
    let word = base[w];
    while (word !== 0) {
      const low = word & -word;
      let mask = masks[(w << 5) + (31 - Math.clz32(low))];
      while (mask !== 0) {
        const bit = mask & -mask;
        counts[31 - Math.clz32(bit)]++;
        mask ^= bit;
      }
      word ^= low;
    }
  }
  return counts;
}

/** Each value's count among the positions of `base`, each value's bit set ANDed with it: cost grows with the catalog. */
export function countsByBits(columns: CatalogColumns, name: FacetName, base: Bits): Int32Array {
  return Int32Array.from(columns.valueBits[name], (bits) => countAnd(base, bits));
}

/** Each value's count among the `baseCount` positions of `base`, by whichever way costs less. */
function valueCounts(columns: CatalogColumns, name: FacetName, base: Bits, baseCount: number): Int32Array {
  return baseCount * MASK_COUNT_COST < FACET_VALUES[name].length * base.length ? countsByMasks(columns, name, base) : countsByBits(columns, name, base);
}

/** Each asked facet's counts over the matches (`total` of them) of every condition but its own, by count descending then value. */
export function facetCounts(columns: CatalogColumns, names: readonly FacetName[], conditions: Condition[], matches: Bits, total: number): Facets {
  const facets: Facets = {};
  for (const name of names) {
    const others = conditions.filter((c) => c.facet !== name);
    const noConditionOfItsOwn = others.length === conditions.length;
    const base = noConditionOfItsOwn ? matches : intersection(others.map((c) => c.bits), columns.size);
    const counted = valueCounts(columns, name, base, noConditionOfItsOwn ? total : countBits(base));
    const counts: FacetCount[] = [];
    FACET_VALUES[name].forEach((value, i) => {
      if (counted[i] > 0) counts.push({ value, count: counted[i] });
    });
    facets[name] = counts.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  }
  return facets;
}

/**
 * The value that would stand at index `k` if `values` were sorted ascending (quickselect, Hoare's
 * partition: linear on average). Reorders `values`.
 */
export function selectKth(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1];
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const swap = values[i];
        values[i] = values[j];
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k];
  }
  return values[k];
}

/** The best `keep` hits among those in `matches`, in a bounded max-heap (worst at the root): for short pages. */
function heapBest(hits: ScoredHits, matches: Bits, keep: number): Int32Array {
  const { scores, positions } = hits;
  const heap = new Int32Array(Math.min(keep, positions.length)); // indexes into hits
  let length = 0;
  const worse = (a: number, b: number) => scores[a] > scores[b] || (scores[a] === scores[b] && positions[a] > positions[b]);
  for (let h = 0; h < positions.length; h++) {
    if (!hasBit(matches, positions[h])) continue;
    if (length < keep) {
      // Sift up from the end, moving the hole instead of swapping.
      let i = length++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(h, heap[parent])) break;
        heap[i] = heap[parent];
        i = parent;
      }
      heap[i] = h;
    } else if (worse(heap[0], h)) {
      // Sift down from the root.
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= length) break;
        const right = left + 1;
        const child = right < length && worse(heap[right], heap[left]) ? right : left;
        if (!worse(heap[child], h)) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = h;
    }
  }
  return heap.subarray(0, length);
}

/** The best `keep` hits among those in `matches`, by selecting the score of the last one: for deep pages. */
function selectedBest(hits: ScoredHits, matches: Bits, keep: number): Int32Array {
  const { scores, positions } = hits;
  const found = new Int32Array(positions.length); // indexes into hits
  let count = 0;
  for (let h = 0; h < positions.length; h++) if (hasBit(matches, positions[h])) found[count++] = h;
  if (count <= keep) return found.subarray(0, count);
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = scores[found[i]];
  const last = selectKth(values, keep - 1);
  // Every hit scored better than the last one needed, then the ties at its score with the lowest positions.
  const picked = new Int32Array(keep);
  const ties: number[] = [];
  let n = 0;
  for (let i = 0; i < count; i++) {
    const h = found[i];
    if (scores[h] < last) picked[n++] = h;
    else if (scores[h] === last) ties.push(h);
  }
  ties.sort((a, b) => positions[a] - positions[b]);
  for (let t = 0; n < keep; t++) picked[n++] = ties[t];
  return picked;
}

/** Above this offset + size, a page selects rather than keeps a heap (measured: a heap of 4,020 costs twice the selection). */
const HEAP_LIMIT = 256;

/**
 * The `size` best hits after `offset` by (score, position), among those in `matches`: the best
 * offset + size of them kept in a bounded heap for short pages or, for deep pages, the score of the
 * last one needed selected in linear time; then only those are sorted, never every hit.
 */
export function relevancePage(hits: ScoredHits, matches: Bits, offset: number, size: number): number[] {
  const { scores, positions } = hits;
  const keep = offset + size;
  if (size <= 0) return [];
  const best = keep <= HEAP_LIMIT ? heapBest(hits, matches, keep) : selectedBest(hits, matches, keep);
  return Array.from(best)
    .sort((a, b) => scores[a] - scores[b] || positions[a] - positions[b])
    .slice(offset, keep)
    .map((h) => positions[h]);
}

/**
 * The page along a sort order: a walk until the page is full, costing about
 * (offset + size) × catalog / total steps; when the matches are few, sorting them by their place in
 * the order is cheaper.
 */
export function orderedPage(positions: Int32Array, rank: Int32Array, matches: Bits, total: number, offset: number, size: number): number[] {
  if (size <= 0 || offset >= total) return [];
  const walkSteps = ((offset + size) * positions.length) / total;
  if (total * (Math.log2(total) + 1) * 4 < walkSteps) {
    const found = Array.from(positionsOf(matches));
    return found.sort((a, b) => rank[a] - rank[b]).slice(offset, offset + size);
  }
  const page: number[] = [];
  let skipped = 0;
  for (let i = 0; i < positions.length && page.length < size; i++) {
    const p = positions[i];
    if (!hasBit(matches, p)) continue;
    if (skipped < offset) skipped += 1;
    else page.push(p);
  }
  return page;
}

/** The answer to the query from its filter conditions (filterConditions) and its text hits, if it has words. */
export function searchColumns(columns: CatalogColumns, query: GrantQuery, filters: Condition[], text: TextHits | null): ColumnAnswer {
  const conditions = [...filters];
  if (text !== null) {
    const bits = emptyBits(columns.size);
    for (const position of text.positions) setBit(bits, position);
    conditions.push({ facet: null, bits });
  }
  const matches = intersection(
    conditions.map((c) => c.bits),
    columns.size,
  );
  const total = countBits(matches);
  const answer: ColumnAnswer = { total, page: [] };
  if (query.facets.length > 0) answer.facets = facetCounts(columns, query.facets, conditions, matches, total);
  if (query.offset >= total) return answer;
  if (query.sort.key === 'relevance' && text !== null && text.scored !== null) {
    answer.page = relevancePage(text.scored, matches, query.offset, query.size);
  } else {
    const key = query.sort.key === 'relevance' ? 'deadline' : query.sort.key;
    const { positions, rank } = columns.order(key, key === query.sort.key && query.sort.descending);
    answer.page = orderedPage(positions, rank, matches, total, query.offset, query.size);
  }
  return answer;
}
