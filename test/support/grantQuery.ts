// Test support for suites that hand a GrantQuery to an engine directly: the query with no search
// and no filter, to spread the case's own fields over.
import type { GrantQuery } from '../../src/grants/query.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';

/**
 * The GrantQuery of an empty query string at `now` (no search, no filter, no facet, every field:
 * deadline order, page 1 of 20), the typo, matching and synonym modes left unset.
 */
export function unfilteredQuery(now: number): GrantQuery {
  const {
    typos: _typos,
    matching: _matching,
    synonyms: _synonyms,
    ...query
  } = parseGrantQuery(parseQueryString(''), now);
  return query;
}
