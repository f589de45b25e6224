// A GrantQuery's conditions as bit sets over the in-memory columns: list filters (an OR of their
// values' bit sets), ranges (a test of each grant's number), and the text hits as one more
// condition; the matches are the AND of them all. Pure: the columns and the text hits come in.
import { FACET_FILTERS, FACET_VALUES, type FacetName, type GrantQuery } from '../../../grants/query.js';
import { emptyBits, intersection, setBit, union, type Bits } from '../index/bitset.js';
import type { CatalogColumns } from '../index/columns.js';
import { testCandidatesOnly } from './plan.js';
import type { TextHits } from './textHits.js';

/** One condition of the query; `facet` names the facet it belongs to (its own filter), if any. */
export interface Condition {
  facet: FacetName | null;
  bits: Bits;
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
  const few = candidates !== null && testCandidatesOnly(candidates.length, size) ? candidates : null;
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

/** Every condition (the filters, then the text hits as one more) and the matches: the grants meeting them all. */
export function matchesOf(columns: CatalogColumns, filters: Condition[], text: TextHits | null): { conditions: Condition[]; matches: Bits } {
  const conditions = [...filters];
  if (text !== null) {
    const bits = emptyBits(columns.size);
    for (const position of text.positions) setBit(bits, position);
    conditions.push({ facet: null, bits });
  }
  return { conditions, matches: intersection(conditions.map((c) => c.bits), columns.size) };
}
