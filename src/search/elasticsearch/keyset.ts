// Cursor paging and export on Elasticsearch: the translated search (translator.ts) continued after a
// place (sort key, id) with search_after, never from an offset. Pure: no I/O, unit-tested on its output.
//
// The place of a grant whose sort value is null cannot be given to search_after (Elasticsearch
// stands a sentinel in for it, a long beyond JavaScript's exact integers), so the walk through the
// null tail of an order is a walk by id among the grants that have no value: a post_filter keeps
// those, and the total (which a post_filter would cut) is counted by an aggregation instead.
import type { GrantQuery, KeysetPosition } from '../../grants/query.js';
import type { Grant } from '../../grants/schema.js';
import { missing } from './clauses.js';
import { SORT_FIELDS, sortOf, translateToElasticsearch, type EsSearchRequest } from './translator.js';

/** The aggregation that counts the matches when the request's post_filter walks a null tail. */
export const KEYSET_TOTAL_AGG = 'keyset_total';

type EsKeysetRequest = Omit<EsSearchRequest, 'from'> & { search_after?: unknown[] };

/** The grant fields holding each sort key's value in _source (title's key is titleSort, never null). */
const SOURCE_FIELDS: Record<keyof typeof SORT_FIELDS, keyof Grant> = {
  deadline: 'deadline',
  opensAt: 'opensAt',
  amountMin: 'amountMin',
  amountMax: 'amountMax',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  title: 'title',
};

/** The request for `size` matches after `after` (from the first match when null), in the query's order. */
export function keysetRequest(query: GrantQuery, after: KeysetPosition | null, size: number): EsKeysetRequest {
  const { from: _from, ...request } = translateToElasticsearch(query);
  const keyset: EsKeysetRequest = { ...request, sort: sortOf(query), size };
  if (after === null) return keyset;
  if (query.sort.key === 'relevance' || after.key !== null) return { ...keyset, search_after: [after.key, after.id] };
  const field = SORT_FIELDS[query.sort.key];
  const tail = missing(field);
  const postFilters = request.post_filter === undefined ? [] : [request.post_filter];
  return {
    ...keyset,
    post_filter: { bool: { filter: [...postFilters, tail] } },
    aggs: { ...request.aggs, [KEYSET_TOTAL_AGG]: { filter: request.post_filter ?? { match_all: {} } } },
    sort: [{ id: 'asc' }],
    search_after: [after.id],
  };
}

/** The place of a hit in the query's order: its sort value (null when the grant has none), and its id. */
export function placeOf(query: GrantQuery, hit: { _source?: Grant; sort?: unknown[] }): KeysetPosition {
  const grant = hit._source as Grant;
  if (query.sort.key === 'relevance') return { key: Number(hit.sort?.[0]), id: grant.id };
  const value = grant[SOURCE_FIELDS[query.sort.key]];
  if (value === null || value === undefined) return { key: null, id: grant.id };
  const sortValue = hit.sort?.[0];
  return { key: typeof sortValue === 'number' || typeof sortValue === 'string' ? sortValue : null, id: grant.id };
}
