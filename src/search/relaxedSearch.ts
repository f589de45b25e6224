// Relaxed matching around one search, the same on every engine: the terms that may be given up
// are counted in the catalog (for `frequency`) by the engine's own count, and the plan of
// grants/relaxation.ts is attached to the query the engine runs (GrantQuery.relaxed).
import type { GrantConditions } from '../grants/matching.js';
import type { GrantQuery } from '../grants/query.js';
import { relaxableTerms, relaxationPlan, termSearch } from '../grants/relaxation.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';

/**
 * The query with this search and no other condition, no page, facet or score: what a term's count in the catalog is
 * taken from.
 */
export function countQuery(query: GrantQuery, search: ParsedSearch): GrantQuery {
  return {
    ...query,
    search,
    matching: 'all',
    relaxed: null,
    sort: { key: 'deadline', descending: false },
    facets: [],
    cursor: null,
    page: 1,
    offset: 0,
    size: 0,
    limit: 0,
    funderTypes: [],
    fundingTypes: [],
    provinces: [],
    beneficiaries: [],
    currencies: [],
    complexities: [],
    sdgs: [],
    isRecurring: null,
    amountMin: null,
    amountMax: null,
    open: null,
    deadlineFrom: null,
    deadlineTo: null,
    updatedSince: null,
  };
}

/**
 * The query as the engine runs it: with `matching=last|frequency` and a search, the relaxation
 * plan attached (null when nothing is given up); `counts` gives how many grants each query
 * matches (asked only for `frequency`, one query per term that may be given up).
 */
export async function withRelaxation(
  query: GrantQuery,
  counts: (queries: GrantQuery[]) => Promise<number[]>,
): Promise<GrantQuery> {
  const mode = query.matching ?? 'all';
  if (query.search === null || mode === 'all' || query.relaxed !== undefined) return query;
  const search = query.search;
  let perClause: number[][] | null = null;
  if (mode === 'frequency') {
    const terms = relaxableTerms(search);
    const flat = await counts(terms.flat().map((term) => countQuery(query, termSearch(term))));
    let next = 0;
    perClause = terms.map((clause) => clause.map(() => flat[next++]));
  }
  return { ...query, relaxed: relaxationPlan(search, mode, perClause) };
}

/**
 * What a grant must match for conditions with `matching=last|frequency` (an alert's): the most
 * relaxed step's search, the terms counted in the catalog for `frequency` by `count` (a query's
 * total); the search itself with `all` or when nothing is given up.
 */
export async function relaxedMatchSearch(
  conditions: GrantConditions,
  count: (query: GrantQuery) => Promise<number>,
): Promise<ParsedSearch | null> {
  if (conditions.search === null || (conditions.matching ?? 'all') === 'all') return conditions.search;
  const query: GrantQuery = {
    ...conditions,
    sort: { key: 'deadline', descending: false },
    facets: [],
    fields: null,
    page: 1,
    limit: 0,
    offset: 0,
    size: 0,
    cursor: null,
  };
  const relaxed = await withRelaxation(query, (queries) => Promise.all(queries.map(count)));
  return relaxed.relaxed?.search ?? conditions.search;
}
