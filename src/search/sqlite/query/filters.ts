// A GrantQuery's conditions as bit sets over the in-memory columns: list filters (an OR of their
// values' bit sets), ranges (query/ranges.ts: kept per build), and the text hits as one more
// condition; the matches are the AND of them all. The sets are shared and never written to: every
// use copies before it combines. The columns and the text hits come in.
import { FACET_FILTERS, FACET_VALUES, type FacetName, type GrantQuery } from '../../../grants/query.js';
import { emptyBits, intersection, setBit, union, type Bits } from '../index/bitset.js';
import { rangeSetsOf } from './ranges.js';
import type { CatalogColumns } from '../index/columns.js';
import { testCandidatesOnly } from './plan.js';
import type { TextHits } from './textHits.js';

/** One condition of the query; `facet` names the facet it belongs to (its own filter), if any. */
export interface Condition {
  facet: FacetName | null;
  bits: Bits;
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
  const few = candidates !== null && testCandidatesOnly(candidates.length, size) ? candidates : null;
  const ranges = rangeSetsOf(columns);
  if (low !== null || high !== null) {
    conditions.push({ facet: null, bits: ranges.overlapping(low ?? Number.NEGATIVE_INFINITY, high ?? Number.POSITIVE_INFINITY, few) });
  }
  for (const [key, range] of [['amountMin', query.amountMinRange], ['amountMax', query.amountMaxRange]] as const) {
    if (range) conditions.push({ facet: null, bits: ranges.within(key, range.min, range.max, false, few) });
  }
  // Deadlines are whole milliseconds, so deadline < now is deadline ≤ ceil(now) − 1.
  if (open === true) conditions.push({ facet: null, bits: ranges.within('deadline', now, Number.POSITIVE_INFINITY, true, few) });
  if (open === false) conditions.push({ facet: null, bits: ranges.within('deadline', Number.NEGATIVE_INFINITY, Math.ceil(now) - 1, false, few) });
  if (deadlineFrom !== null || deadlineTo !== null) {
    conditions.push({ facet: null, bits: ranges.within('deadline', deadlineFrom ?? Number.NEGATIVE_INFINITY, deadlineTo ?? Number.POSITIVE_INFINITY, false, few) });
  }
  if (updatedSince !== null) conditions.push({ facet: null, bits: ranges.within('updatedAt', updatedSince, Number.POSITIVE_INFINITY, false, few) });
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
