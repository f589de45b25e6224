// GrantQuery: the engine-neutral description of a search, its constants and pure helpers.
// The HTTP layer (http/parameters/grantSearchParams.ts) builds it from GET /grants parameters; the engines
// (search/) translate it. Nothing here knows HTTP.
import type { ParsedSearch } from './searchSyntax.js';
import type { TypoMode } from './typos.js';
import type { MatchingMode, RelaxationPlan } from './relaxation.js';

/** The words of search text (searchSyntax.ts), here too for the modules that know it from here. */
export { searchWords } from './searchSyntax.js';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  GRANT_STATUSES,
  PROVINCES,
  SDGS,
  type Beneficiary,
  type Complexity,
  type Currency,
  type FunderType,
  type FundingType,
  type ServedGrant,
  type GrantStatus,
  type Province,
  type Sdg,
} from './grant.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Offset paging reaches this many matches (Elasticsearch's max_result_window). */
export const MAX_WINDOW = 10_000;
export const MAX_SEARCH_LENGTH = 200;

/** Sort keys of GET /grants; `relevance` needs search words. */
export const SORT_KEYS = [
  'relevance',
  'deadline',
  'opensAt',
  'amountMin',
  'amountMax',
  'createdAt',
  'updatedAt',
  'title',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/**
 * The order of a search. Every order ends with `id` ascending (ties), in both directions.
 * Null values (deadline, amounts) come last in both directions. `relevance` is the text score,
 * best first. `title` compares titleSortKey(title) (grants/folding.ts) by Unicode code point
 * (the order of UTF-8 bytes: SQLite's BINARY collation, Elasticsearch's keyword order).
 */
export interface GrantSort {
  key: SortKey;
  descending: boolean;
}

/** The facets of stored fields: the values a grant holds, the same at any time. */
export const STORED_FACET_NAMES = [
  'funderType',
  'fundingType',
  'eligibleProvinces',
  'targetBeneficiaries',
  'currency',
  'applicationComplexity',
  'sdgAlignment',
  'isRecurring',
] as const;
export type StoredFacetName = (typeof STORED_FACET_NAMES)[number];

/**
 * Facets a search may count; each is disjunctive (counted without its own filter). `status` is
 * derived at the query's `now` (grants/lifecycle.ts).
 */
export const FACET_NAMES = [...STORED_FACET_NAMES, 'status'] as const;
export type FacetName = (typeof FACET_NAMES)[number];

/** The values each facet counts, in enumeration order (booleans as "false"/"true"). */
export const FACET_VALUES: Record<FacetName, readonly string[]> = {
  funderType: FUNDER_TYPES,
  fundingType: FUNDING_TYPES,
  eligibleProvinces: PROVINCES,
  targetBeneficiaries: BENEFICIARIES,
  currency: CURRENCIES,
  applicationComplexity: COMPLEXITIES,
  sdgAlignment: SDGS,
  isRecurring: ['false', 'true'],
  status: GRANT_STATUSES,
};

/**
 * The query's own filter of each list facet (the values it asks for; empty: no condition), in the
 * order engines apply them; `isRecurring` is the boolean `GrantQuery.isRecurring`.
 */
export const FACET_FILTERS: Record<
  Exclude<StoredFacetName, 'isRecurring'>,
  (query: GrantQuery) => readonly string[]
> = {
  funderType: (q) => q.funderTypes,
  fundingType: (q) => q.fundingTypes,
  eligibleProvinces: (q) => q.provinces,
  targetBeneficiaries: (q) => q.beneficiaries,
  currency: (q) => q.currencies,
  applicationComplexity: (q) => q.complexities,
  sdgAlignment: (q) => q.sdgs,
};

/** One facet value and the number of grants that hold it; booleans as "true"/"false". */
export interface FacetCount {
  value: string;
  count: number;
}

/**
 * Facet counts by facet name, in the order the query asked for them. Each lists every value
 * with a count above zero, by count descending then value ascending (code point order); a null
 * field adds to no value, a list field adds one to each of its values. A facet is counted over
 * the grants matching every condition of the query except that facet's own filter (funderType ↔
 * funderTypes, fundingType ↔ fundingTypes, eligibleProvinces ↔ provinces, targetBeneficiaries ↔
 * beneficiaries, currency ↔ currencies, applicationComplexity ↔ complexities, sdgAlignment ↔
 * sdgs, isRecurring ↔ isRecurring, status ↔ statuses: `open` is not the status facet's own
 * filter); paging never changes them.
 */
export type Facets = Partial<Record<FacetName, FacetCount[]>>;

/** Inclusive bounds on an amount. */
export interface AmountRange {
  min: number;
  max: number;
}

export interface GrantQuery {
  /**
   * The search text parsed (searchSyntax.ts): the text condition; null for none (no search, or
   * only spaces). A search with no clause matches nothing.
   */
  search: ParsedSearch | null;
  /** The words the search looks for (positiveWords of `search`), in order: what relevance ranks by; empty without. */
  words: string[];
  /**
   * Typo tolerance (grants/typos.ts): `off` finds the words as they are; `auto` lets each word
   * that may carry typos stand for catalog words within the typo rule too, the words as typed ranked first.
   * Absent: off.
   */
  typos?: TypoMode;
  /**
   * Relaxed matching (grants/relaxation.ts): `all` every term must match; `last` and `frequency`
   * give terms up, from the end or the most common first, down to one, grants keeping more
   * ranking first. Absent: all.
   */
  matching?: MatchingMode;
  /**
   * Whether the operator's synonyms (grants/synonyms.ts) give the search's words their other spellings. Absent: true.
   */
  synonyms?: boolean;
  /**
   * Set by an engine for the search it runs (never by a caller): the relaxed search's plan, from
   * `matching` and the catalog's counts. Absent or null: the search is run as it is.
   */
  relaxed?: RelaxationPlan | null;
  /** Each list: OR within (a grant matches when it holds any value); empty means no condition. */
  funderTypes: FunderType[];
  fundingTypes: FundingType[];
  provinces: Province[];
  beneficiaries: Beneficiary[];
  currencies: Currency[];
  complexities: Complexity[];
  sdgs: Sdg[];
  /** The grant's status at `now` (grants/lifecycle.ts) is one of these; empty means no condition. */
  statuses: GrantStatus[];
  /** Equality on isRecurring (a null isRecurring never matches); null: no condition. */
  isRecurring: boolean | null;
  amountMin: number | null;
  amountMax: number | null;
  /**
   * true: the status at `now` is OPEN (opensAt null or ≤ now, and deadline null or ≥ now); false:
   * it is not (FORECASTED or CLOSED); null: no condition.
   */
  open: boolean | null;
  /** The request time as epoch milliseconds: what `open` and `statuses` compare against. */
  now: number;
  /**
   * Inclusive bounds on the grant's own amountMin (amountMinRange) or amountMax (amountMaxRange):
   * the value lies in [min, max]; a null amount never matches. Absent or null: no condition.
   * (Unlike amountMin/amountMax above, which ask for an overlap of the grant's range.)
   */
  amountMinRange?: AmountRange | null;
  amountMaxRange?: AmountRange | null;
  /** Inclusive bounds on deadline, epoch milliseconds; a null deadline never matches a bound. */
  deadlineFrom: number | null;
  deadlineTo: number | null;
  /** updatedAt ≥ this, epoch milliseconds. */
  updatedSince: number | null;
  sort: GrantSort;
  /** Facets to count (empty: none, and the result carries no facets). */
  facets: FacetName[];
  /**
   * Grant fields to return (id always included, canonical order); null: every field. Engines
   * return whole documents; the HTTP presenter projects them.
   */
  fields: (keyof ServedGrant)[] | null;
  page: number;
  limit: number;
  offset: number;
  /** How many results this page may hold within the 10,000-match window. */
  size: number;
  /**
   * Cursor paging (absent or null: offset paging, `offset` and `size` in effect). The page holds
   * the first `limit` matches after `after` in the query's order (from the first match when
   * `after` is null), whatever `offset` says, with no 10,000-match window.
   */
  cursor?: { after: KeysetPosition | null } | null;
}

/** Whether a query asks for a status at its `now` (`open` or `statuses`): its matches then depend on the time. */
export const asksStatus = (query: Pick<GrantQuery, 'open' | 'statuses'>): boolean =>
  query.open !== null || query.statuses.length > 0;

/**
 * A place in a search's order: the sort key of a grant and its id (the tie-break). `key` is the
 * grant's value of the sort key as the engine orders it: epoch milliseconds for dates, the amount,
 * titleSortKey(title) for title, the engine's text score for relevance; null for a null value
 * (nulls come last). A place, not a position: it stays meaningful when the catalog changes.
 */
export interface KeysetPosition {
  key: number | string | null;
  id: string;
}
