// The catalog in the CommonGrants protocol: GET /common-grants/opportunities, GET
// /common-grants/opportunities/{id} (the opportunity's UUID or the grant id) and POST
// /common-grants/opportunities/search. The answers are the protocol's shapes (status, message,
// items or data) with `meta`; an error is a GrantsApiError as elsewhere.
import type { ApiClient } from './api.js';
import { unwrap } from './errors.js';
import type {
  CommonGrantsListAnswer,
  CommonGrantsListQuery,
  CommonGrantsOpportunityAnswer,
  CommonGrantsSearchAnswer,
  CommonGrantsSearchBody,
} from './types.js';

export interface CommonGrantsApi {
  /**
   * GET /common-grants/opportunities: a page of opportunities, most recently modified first (`pageSize` 1 to 100,
   * default 100).
   */
  list(query?: CommonGrantsListQuery): Promise<CommonGrantsListAnswer>;
  /**
   * GET /common-grants/opportunities/{id}: one opportunity by its UUID or by the grant id (a GrantsApiError with code
   * NOT_FOUND when there is none).
   */
  get(id: string): Promise<CommonGrantsOpportunityAnswer>;
  /** POST /common-grants/opportunities/search: search text, filters, sorting and paging as the protocol writes them. */
  search(body?: CommonGrantsSearchBody): Promise<CommonGrantsSearchAnswer>;
}

export function commonGrantsApi(api: ApiClient): CommonGrantsApi {
  return {
    list: (query = {}) => unwrap(api.GET('/common-grants/opportunities', { params: { query } })),
    get: (id) => unwrap(api.GET('/common-grants/opportunities/{id}', { params: { path: { id } } })),
    search: (body = {}) => unwrap(api.POST('/common-grants/opportunities/search', { body })),
  };
}
