// Disjunctive facet counts on Elasticsearch: one filter aggregation per facet (every faceted
// filter but the facet's own) around a terms aggregation sized to the facet's enumeration (for
// `status`, derived at the query's time, a filters aggregation of one clause per status), and
// the response read back into Facets. Pure: no I/O.
import { FACET_VALUES, type FacetCount, type FacetName, type Facets } from '../../grants/query.js';
import { GRANT_STATUSES } from '../../grants/schema.js';
import { statusClauses, type StatusCut } from './statusClauses.js';

/** One condition of a query, and the facet it belongs to (a facet is counted without its own). */
export interface Condition {
  facet: FacetName | null;
  clause: Record<string, unknown>;
}

/** The name of the terms aggregation inside each facet's filter aggregation. */
const VALUES = 'values';

/**
 * The aggregations of `facets`. The query's own filters already hold every condition but the
 * faceted ones (`faceted`: the filters of facets asked for, which go to post_filter); each facet
 * adds back the faceted filters of the other facets. Buckets: count descending, then value
 * ascending (keyword order is code point order; booleans order false before true).
 */
export function facetAggregations(
  facets: readonly FacetName[],
  faceted: readonly Condition[],
  statusCut: StatusCut,
): Record<string, unknown> {
  return Object.fromEntries(
    facets.map((facet) => {
      const others = faceted.filter((c) => c.facet !== facet).map((c) => c.clause);
      // Each facet's field has the facet's name; terms sized to its enumeration, so counts are exact.
      const field = facet;
      const values = FACET_VALUES[facet].length;
      // Unkeyed buckets carry their key, as terms buckets do (facetsOf drops the empty ones and orders them).
      const clauses = facet === 'status' ? statusClauses(statusCut) : null;
      const counted =
        clauses === null
          ? { terms: { field, size: values, order: [{ _count: 'desc' }, { _key: 'asc' }] } }
          : {
              filters: {
                keyed: false,
                filters: Object.fromEntries(GRANT_STATUSES.map((status) => [status, clauses[status]])),
              },
            };
      return [
        facet,
        {
          filter: others.length > 0 ? { bool: { filter: others } } : { match_all: {} },
          aggs: { [VALUES]: counted },
        },
      ];
    }),
  );
}

/** The parts of the aggregations facetsOf reads (for filter_path). */
export const FACETS_FILTER_PATH = [
  'aggregations.*.values.buckets.key',
  'aggregations.*.values.buckets.key_as_string',
  'aggregations.*.values.buckets.doc_count',
];

interface Bucket {
  key: string | number;
  key_as_string?: string;
  doc_count: number;
}

/**
 * Facets from a response's aggregations, in the order asked. A boolean's bucket key is 1 or 0
 * with key_as_string "true" or "false"; a facet without buckets (absent under filter_path) is [].
 */
export function facetsOf(
  facets: readonly FacetName[],
  aggregations: Record<string, { values?: { buckets?: Bucket[] } }> | undefined,
): Facets {
  const result: Facets = {};
  for (const facet of facets) {
    const buckets = aggregations?.[facet]?.values?.buckets ?? [];
    const counts = buckets.map((b): FacetCount => ({ value: b.key_as_string ?? String(b.key), count: b.doc_count }));
    // A filters aggregation answers every bucket, empty ones too, in the order asked.
    result[facet] =
      facet === 'status'
        ? counts
            .filter((c) => c.count > 0)
            .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        : counts;
  }
  return result;
}
