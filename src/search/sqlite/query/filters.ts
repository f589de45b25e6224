// A GrantQuery's conditions as bit sets over the in-memory columns: list filters (an OR of their
// values' bit sets), ranges (query/ranges.ts: kept per build), the statuses at the query's `now`
// (from ranges of opensAt and deadline), and the text hits as one more condition; the matches are
// the AND of them all. The sets are shared and never written to: every
// use copies before it combines. The columns and the text hits come in.
import {
  asksStatus,
  FACET_FILTERS,
  FACET_VALUES,
  type FacetName,
  type GrantQuery,
  type StoredFacetName,
} from '../../../grants/query.js';
import type { GrantStatus } from '../../../grants/schema.js';
import { bitsOf, countBits, intersection, union, type Bits } from '../index/bitset.js';
import { rangeSetsOf, type RangeSets } from './ranges.js';
import type { CatalogColumns } from '../index/columns.js';
import { testCandidatesOnly } from './plan.js';
import type { TextHits } from './textHits.js';

/** One condition of the query; `facet` names the facet it belongs to (its own filter), if any. */
export interface Condition {
  facet: FacetName | null;
  bits: Bits;
}

/**
 * The grants of each status at `now` (grants/lifecycle.ts), in GRANT_STATUSES order: FORECASTED
 * (opensAt > now), OPEN (deadline null or ≥ now, less the forecasted), CLOSED (deadline < now).
 * Dates are whole milliseconds, so opensAt > now is opensAt ≥ floor(now) + 1 and deadline < now
 * is deadline ≤ ceil(now) − 1. With `few` candidates, of those alone (as every range).
 */
export function statusSets(ranges: RangeSets, now: number, few: Int32Array | null): Record<GrantStatus, Bits> {
  const forecasted = ranges.within('opensAt', Math.floor(now) + 1, Number.POSITIVE_INFINITY, false, few);
  const notClosed = ranges.within('deadline', now, Number.POSITIVE_INFINITY, true, few);
  // No forecasted grant (every catalog without opensAt): OPEN is the kept set itself.
  const open = countBits(forecasted) === 0 ? notClosed : notClosed.map((word, i) => word & ~forecasted[i]);
  const closed = ranges.within('deadline', Number.NEGATIVE_INFINITY, Math.ceil(now) - 1, false, few);
  return { FORECASTED: forecasted, OPEN: open, CLOSED: closed };
}

/**
 * The query's conditions but the text as bit sets: list filters (OR within), then statuses and
 * ranges. With `candidates` (the positions the search words match), the ranges may be tested on
 * those alone.
 */
export function filterConditions(
  columns: CatalogColumns,
  query: GrantQuery,
  candidates: Int32Array | null = null,
): Condition[] {
  const { size, valueBits } = columns;
  const conditions: Condition[] = [];
  for (const [facet, valuesOf] of Object.entries(FACET_FILTERS) as [
    Exclude<StoredFacetName, 'isRecurring'>,
    (q: GrantQuery) => readonly string[],
  ][]) {
    const wanted = valuesOf(query);
    if (wanted.length === 0) continue;
    const all = FACET_VALUES[facet];
    conditions.push({
      facet,
      bits: union(
        wanted.map((value) => valueBits[facet][all.indexOf(value)]).filter((bits) => bits !== undefined),
        size,
      ),
    });
  }
  if (query.isRecurring !== null)
    conditions.push({ facet: 'isRecurring', bits: valueBits.isRecurring[query.isRecurring ? 1 : 0] });

  const { amountMin: low, amountMax: high, open, now, deadlineFrom, deadlineTo, updatedSince } = query;
  const few = candidates !== null && testCandidatesOnly(candidates.length, size) ? candidates : null;
  const ranges = rangeSetsOf(columns);
  if (low !== null || high !== null) {
    conditions.push({
      facet: null,
      bits: ranges.overlapping(low ?? Number.NEGATIVE_INFINITY, high ?? Number.POSITIVE_INFINITY, few),
    });
  }
  for (const [key, range] of [
    ['amountMin', query.amountMinRange],
    ['amountMax', query.amountMaxRange],
  ] as const) {
    if (range) conditions.push({ facet: null, bits: ranges.within(key, range.min, range.max, false, few) });
  }
  const statuses = asksStatus(query) ? statusSets(ranges, now, few) : null;
  if (statuses !== null && query.statuses.length > 0)
    conditions.push({
      facet: 'status',
      bits: union(
        query.statuses.map((status) => statuses[status]),
        size,
      ),
    });
  // `open` is a condition of its own, not the status facet's filter: the facet is counted with it.
  if (statuses !== null && open === true) conditions.push({ facet: null, bits: statuses.OPEN });
  if (statuses !== null && open === false)
    conditions.push({ facet: null, bits: union([statuses.FORECASTED, statuses.CLOSED], size) });
  if (deadlineFrom !== null || deadlineTo !== null) {
    conditions.push({
      facet: null,
      bits: ranges.within(
        'deadline',
        deadlineFrom ?? Number.NEGATIVE_INFINITY,
        deadlineTo ?? Number.POSITIVE_INFINITY,
        false,
        few,
      ),
    });
  }
  if (updatedSince !== null)
    conditions.push({
      facet: null,
      bits: ranges.within('updatedAt', updatedSince, Number.POSITIVE_INFINITY, false, few),
    });
  return conditions;
}

/** Every condition (the filters, then the text hits as one more) and the matches: the grants meeting them all. */
export function matchesOf(
  columns: CatalogColumns,
  filters: Condition[],
  text: TextHits | null,
): { conditions: Condition[]; matches: Bits } {
  const conditions = [...filters];
  if (text !== null) conditions.push({ facet: null, bits: bitsOf(text.positions, columns.size) });
  return {
    conditions,
    matches: intersection(
      conditions.map((c) => c.bits),
      columns.size,
    ),
  };
}
