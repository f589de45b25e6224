// Test support for suites that hand a GrantQuery to an engine directly: the query with no search
// and no filter, to spread the case's own fields over.
import type { GrantQuery } from '../../src/grants/query.js';

/**
 * A GrantQuery at `now` with no search, no filter, no facet and every field: deadline order, page 1
 * of 20 (the typo, matching and synonym modes left unset).
 */
export const unfilteredQuery = (now: number): GrantQuery => ({
  search: null,
  words: [],
  funderTypes: [],
  fundingTypes: [],
  provinces: [],
  beneficiaries: [],
  currencies: [],
  complexities: [],
  sdgs: [],
  statuses: [],
  isRecurring: null,
  amountMin: null,
  amountMax: null,
  open: null,
  now,
  deadlineFrom: null,
  deadlineTo: null,
  updatedSince: null,
  sort: { key: 'deadline', descending: false },
  facets: [],
  fields: null,
  page: 1,
  limit: 20,
  offset: 0,
  size: 20,
});
