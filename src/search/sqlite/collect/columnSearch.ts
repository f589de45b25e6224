// A GrantQuery answered from the in-memory columns: its conditions as bit sets, the total as a
// count of bits, each facet as counts over the matches without its own condition, and the page as
// a walk along the sort's order (or, for relevance, the best text hits kept in a bounded heap).
// Pure: the text hits come in from FTS5, the documents of the page are read by the engine.
import { FACET_FILTERS, FACET_VALUES, type FacetCount, type FacetName, type Facets, type GrantQuery } from '../../../grants/query.js';
import { countBits, emptyBits, hasBit, intersection, positionsOf, setBit, union, type Bits } from '../index/bitset.js';
import type { CatalogColumns } from '../index/columns.js';

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

/** 1 when v lies in [low, high], or is null (NaN) and nullBit is 1; else 0. Comparisons as 0/1 bits, no branch. */
const inRange = (v: number, low: number, high: number, nullBit: number): number => (+(v >= low) & +(v <= high)) | (nullBit & +(v !== v));

/** 1 when the amount range [min, max] overlaps [low, high] (a null bound is open on its side; no amounts, no match); else 0. */
function overlaps(min: number, max: number, low: number, high: number): number {
  const noMin = +(min !== min);
  const noMax = +(max !== max);
  return (1 ^ (noMin & noMax)) & (noMax | +(max >= low)) & (noMin | +(min <= high));
}

/*
 * The range conditions as bit sets. Over the whole catalog, one word is built per 32 positions,
 * branch-free (these loops see random data, where a branch is mispredicted half the time); with
 * `candidates` (positions ascending: the grants the search words match, when they are few), only
 * those are tested and the others left out, which every use ANDs with the words' hits anyway.
 * Each loop calls its test directly (a test passed in as a function would not be inlined: twice
 * the time over 1,000,000 grants).
 */

/** Positions whose value lies in [low, high], and with `nulls` those whose value is null (NaN). */
function rangeBits(values: Float64Array, low: number, high: number, nulls: boolean, candidates: Int32Array | null): Bits {
  const size = values.length;
  const bits = emptyBits(size);
  const nullBit = nulls ? 1 : 0;
  if (candidates !== null) {
    for (let i = 0; i < candidates.length; i++) {
      const p = candidates[i];
      bits[p >>> 5] |= inRange(values[p], low, high, nullBit) << (p & 31);
    }
    return bits;
  }
  for (let w = 0, p = 0; p < size; w++) {
    let word = 0;
    for (let b = 0, end = Math.min(size, p + 32); p < end; p++, b++) word |= inRange(values[p], low, high, nullBit) << b;
    bits[w] = word;
  }
  return bits;
}

/** Amount ranges that overlap [low, high]. */
function overlapBits(mins: Float64Array, maxes: Float64Array, low: number, high: number, candidates: Int32Array | null): Bits {
  const size = mins.length;
  const bits = emptyBits(size);
  if (candidates !== null) {
    for (let i = 0; i < candidates.length; i++) {
      const p = candidates[i];
      bits[p >>> 5] |= overlaps(mins[p], maxes[p], low, high) << (p & 31);
    }
    return bits;
  }
  for (let w = 0, p = 0; p < size; w++) {
    let word = 0;
    for (let b = 0, end = Math.min(size, p + 32); p < end; p++, b++) word |= overlaps(mins[p], maxes[p], low, high) << b;
    bits[w] = word;
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
  const range = (values: Float64Array, from: number, to: number, nulls: boolean): Bits => rangeBits(values, from, to, nulls, few);
  if (low !== null || high !== null) {
    conditions.push({ facet: null, bits: overlapBits(amountMin, amountMax, low ?? Number.NEGATIVE_INFINITY, high ?? Number.POSITIVE_INFINITY, few) });
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
 * Costs of counting a facet, in nanoseconds per word of a bit set or per grant (measured on
 * 100,000 grants, in a search worker under load): one value's bit set ANDed with the matches and
 * counted; one grant counted from its value mask (read in random order: mostly a cache miss),
 * after a pass over the matches' words.
 */
const VALUE_WORD_NS = 3.7;
const MASK_COUNT_NS = 12;
const WORD_PASS_NS = 1.5;

/** Each value's count among the positions of `base`, each value's bit set ANDed with it: cost grows with the catalog. */
export function countsByBits(columns: CatalogColumns, name: FacetName, base: Bits): Int32Array {
  return columns.countValues(name, base);
}

/**
 * Each value's count among the positions of `base`, from their value masks: each mask counted in
 * two halves, each half as one of its possible values (two increments per grant, however many
 * values it holds), then each half's counts added to the values its bits stand for. Cost grows
 * with the matches.
 */
export function countsByMasks(columns: CatalogColumns, name: FacetName, base: Bits): Int32Array {
  const masks = columns.valueMasks[name];
  const values = FACET_VALUES[name].length;
  const lowBits = (values + 1) >>> 1;
  const lowMask = (1 << lowBits) - 1;
  const highHalf = 1 << lowBits;
  const perHalf = new Int32Array(2 << lowBits);
  for (let w = 0; w < base.length; w++) {
    let word = base[w];
    while (word !== 0) {
      const low = word & -word;
      const mask = masks[(w << 5) + (31 - Math.clz32(low))];
      perHalf[mask & lowMask]++;
      perHalf[highHalf + (mask >>> lowBits)]++;
      word ^= low;
    }
  }
  const counts = new Int32Array(values);
  for (let i = 1; i < perHalf.length; i++) {
    const n = perHalf[i];
    if (n === 0) continue;
    const first = i < highHalf ? 0 : lowBits;
    for (let half = i & lowMask; half !== 0; half &= half - 1) counts[first + 31 - Math.clz32(half & -half)] += n;
  }
  return counts;
}

/** Each value's count among the `baseCount` positions of `base`, by whichever way costs least. */
function valueCounts(columns: CatalogColumns, name: FacetName, base: Bits, baseCount: number): Int32Array {
  const byBits = FACET_VALUES[name].length * VALUE_WORD_NS * base.length;
  const byMasks = base.length * WORD_PASS_NS + baseCount * MASK_COUNT_NS;
  return byBits <= byMasks ? countsByBits(columns, name, base) : countsByMasks(columns, name, base);
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
