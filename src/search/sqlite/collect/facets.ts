// Facet counts over the matches: each asked facet counted over the matches of every condition but
// its own, by whichever of two ways the plan (query/plan.ts) finds cheaper: each value's bit set
// ANDed with the matches and counted, or each match's value mask. `status`, derived at the query's
// time, is counted from the status sets of that time (query/filters.ts), bit sets alone. Pure: the
// columns and the conditions come in.
import {
  FACET_VALUES,
  type FacetCount,
  type FacetName,
  type Facets,
  type StoredFacetName,
} from '../../../grants/query.js';
import { GRANT_STATUSES } from '../../../grants/grant.js';
import { countAnd, countBits, intersection, type Bits } from '../index/bitset.js';
import type { CatalogColumns } from '../index/columns.js';
import { statusSets, type Condition } from '../query/filters.js';
import { countFacetByBits } from '../query/plan.js';
import { rangeSetsOf } from '../query/ranges.js';

/**
 * Each value's count among the positions of `base` (|base ∧ value|), each value's bit set ANDed
 * with it. Cost grows with the catalog.
 */
export function countsByBits(columns: CatalogColumns, name: StoredFacetName, base: Bits): Int32Array {
  return Int32Array.from(columns.valueBits[name], (bits) => countAnd(base, bits));
}

/**
 * Each value's count among the positions of `base`, from their value masks: each mask counted in
 * two halves, each half as one of its possible values (two increments per grant, however many
 * values it holds), then each half's counts added to the values its bits stand for. Cost grows
 * with the matches.
 */
export function countsByMasks(columns: CatalogColumns, name: StoredFacetName, base: Bits): Int32Array {
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

/** Each value's count among the `baseCount` positions of `base`, by whichever way costs least; statuses at `now`. */
function valueCounts(columns: CatalogColumns, name: FacetName, base: Bits, baseCount: number, now: number): Int32Array {
  if (name === 'status') {
    const sets = statusSets(rangeSetsOf(columns), now, null);
    return Int32Array.from(GRANT_STATUSES, (status) => countAnd(base, sets[status]));
  }
  return countFacetByBits(FACET_VALUES[name].length, base.length, baseCount)
    ? countsByBits(columns, name, base)
    : countsByMasks(columns, name, base);
}

/**
 * Each asked facet's counts over the matches (`total` of them) of every condition but its own, by
 * count descending then value; `now` (epoch ms) is the query's, what the statuses are taken at.
 */
export function facetCounts(
  columns: CatalogColumns,
  names: readonly FacetName[],
  conditions: Condition[],
  matches: Bits,
  total: number,
  now: number,
): Facets {
  const facets: Facets = {};
  for (const name of names) {
    const others = conditions.filter((c) => c.facet !== name);
    const noConditionOfItsOwn = others.length === conditions.length;
    const base = noConditionOfItsOwn
      ? matches
      : intersection(
          others.map((c) => c.bits),
          columns.size,
        );
    const counted = valueCounts(columns, name, base, noConditionOfItsOwn ? total : countBits(base), now);
    const counts: FacetCount[] = [];
    FACET_VALUES[name].forEach((value, i) => {
      if (counted[i] > 0) counts.push({ value, count: counted[i] });
    });
    facets[name] = counts.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  }
  return facets;
}
