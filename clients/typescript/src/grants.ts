// GET /grants, /grants/{id}, /grants/{id}/history, /grants/{id}/similar, /grants/filters and /grants/suggest, and
// iteration over every match by cursor paging.
import type { ApiClient } from './api.js';
import { unwrap } from './errors.js';
import type {
  GrantAnswer,
  GrantFields,
  GrantFiltersAnswer,
  GrantHistoryAnswer,
  GrantHistoryQuery,
  GrantIterateQuery,
  GrantSearchAnswer,
  GrantSearchQuery,
  GrantSimilarAnswer,
  GrantSimilarQuery,
  GrantSuggestAnswer,
  GrantSuggestQuery,
} from './types.js';

export interface GrantsApi {
  /** One page of GET /grants (page paging, or cursor paging with `cursor`). */
  search(query?: GrantSearchQuery): Promise<GrantSearchAnswer>;
  /**
   * Every grant matching `query`, in order, read page after page with cursor paging (`cursor=*`,
   * then each page's `pagination.nextCursor` until it is null). `limit` is the page size (default 100).
   */
  iterate(query?: GrantIterateQuery): AsyncGenerator<GrantFields, void, undefined>;
  /** GET /grants/{id}: one grant (a GrantsApiError with code NOT_FOUND when there is none). */
  get(id: string): Promise<GrantAnswer>;
  /**
   * GET /grants/{id}/history: the grant's versions, newest first (created, each update with the
   * fields it changed, deleted); `cursor` the previous page's `pagination.nextCursor` for older ones.
   */
  history(id: string, query?: GrantHistoryQuery): Promise<GrantHistoryAnswer>;
  /**
   * GET /grants/{id}/similar: the grants most like it, the most similar first (a GrantsApiError with code NOT_FOUND
   * when there is none).
   */
  similar(id: string, query?: GrantSimilarQuery): Promise<GrantSimilarAnswer>;
  /** GET /grants/filters: the values each filter accepts. */
  filters(): Promise<GrantFiltersAnswer>;
  /**
   * GET /grants/suggest: completions of the text typed so far (`q`), the most grants first, under the filters given.
   */
  suggest(query: GrantSuggestQuery): Promise<GrantSuggestAnswer>;
}

export function grantsApi(api: ApiClient): GrantsApi {
  const search = (query: GrantSearchQuery = {}) => unwrap(api.GET('/grants', { params: { query } }));
  return {
    search,
    async *iterate(query: GrantIterateQuery = {}) {
      let cursor: string | null = '*';
      while (cursor !== null) {
        const page: GrantSearchAnswer = await search({ limit: 100, ...query, cursor });
        yield* page.data;
        cursor = page.pagination.nextCursor ?? null;
      }
    },
    get: (id) => unwrap(api.GET('/grants/{id}', { params: { path: { id } } })),
    history: (id, query = {}) => unwrap(api.GET('/grants/{id}/history', { params: { path: { id }, query } })),
    similar: (id, query = {}) => unwrap(api.GET('/grants/{id}/similar', { params: { path: { id }, query } })),
    filters: () => unwrap(api.GET('/grants/filters')),
    suggest: (query) => unwrap(api.GET('/grants/suggest', { params: { query } })),
  };
}
