// GET /grants parameters → GrantQuery, the engine-neutral description of a search.
import type { ErrorDetail } from '../http/errors.js';
import { foldText } from './folding.js';
import { paramValidator, type ParamSpecs, type ParamValues } from '../http/queryParams.js';
import {
  FUNDER_TYPES,
  FUNDING_TYPES,
  PROVINCES,
  type Beneficiary,
  type Complexity,
  type Currency,
  type FunderType,
  type FundingType,
  type Grant,
  type Province,
  type Sdg,
} from './schema.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Offset paging reaches this many matches (Elasticsearch's max_result_window). */
export const MAX_WINDOW = 10_000;
export const MAX_SEARCH_LENGTH = 200;

/** Sort keys of GET /grants; `relevance` needs search words. */
export const SORT_KEYS = ['relevance', 'deadline', 'amountMin', 'amountMax', 'createdAt', 'updatedAt', 'title'] as const;
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

/** Facets a search may count; each is disjunctive (counted without its own filter). */
export const FACET_NAMES = [
  'funderType',
  'fundingType',
  'eligibleProvinces',
  'targetBeneficiaries',
  'currency',
  'applicationComplexity',
  'sdgAlignment',
  'isRecurring',
] as const;
export type FacetName = (typeof FACET_NAMES)[number];

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
 * sdgs, isRecurring ↔ isRecurring); paging never changes them.
 */
export type Facets = Partial<Record<FacetName, FacetCount[]>>;

export interface GrantQuery {
  /** The words of the search text (letters and digits), in order; empty for no text condition. */
  words: string[];
  /** Each list: OR within (a grant matches when it holds any value); empty means no condition. */
  funderTypes: FunderType[];
  fundingTypes: FundingType[];
  provinces: Province[];
  beneficiaries: Beneficiary[];
  currencies: Currency[];
  complexities: Complexity[];
  sdgs: Sdg[];
  /** Equality on isRecurring (a null isRecurring never matches); null: no condition. */
  isRecurring: boolean | null;
  amountMin: number | null;
  amountMax: number | null;
  /**
   * true: deadline null (rolling) or deadline ≥ now; false: deadline < now (null never matches);
   * null: no condition.
   */
  open: boolean | null;
  /** The request time as epoch milliseconds: what `open` compares against. */
  now: number;
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
  fields: (keyof Grant)[] | null;
  page: number;
  limit: number;
  offset: number;
  /** How many results this page may hold within the 10,000-match window. */
  size: number;
}

export const GRANT_SEARCH_PARAMS: ParamSpecs = {
  search: { kind: 'string', maxLength: MAX_SEARCH_LENGTH, message: `must be at most ${MAX_SEARCH_LENGTH} characters` },
  funderType: { kind: 'enumArray', values: FUNDER_TYPES },
  fundingType: { kind: 'enumArray', values: FUNDING_TYPES },
  eligibleProvinces: { kind: 'enumArray', values: PROVINCES },
  amountMin: { kind: 'number', min: 0, message: 'must be a number ≥ 0' },
  amountMax: { kind: 'number', min: 0, message: 'must be a number ≥ 0' },
  page: { kind: 'integer', min: 1, message: 'must be an integer ≥ 1' },
  limit: { kind: 'integer', min: 1, message: 'must be an integer ≥ 1' },
};

/** amountMin ≤ amountMax, and the page within the first 10,000 matches. */
function crossCheck(p: ParamValues): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (typeof p.amountMin === 'number' && typeof p.amountMax === 'number' && p.amountMin > p.amountMax) {
    problems.push({ parameter: 'amountMin', message: 'must not exceed amountMax' });
  }
  const page = (p.page as number | undefined) ?? 1;
  const limit = Math.min((p.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT);
  if ((page - 1) * limit >= MAX_WINDOW) {
    problems.push({
      parameter: 'page',
      message: `reaches past the first ${MAX_WINDOW.toLocaleString('en-US')} matches (page × limit must stay within them); narrow the search with filters instead`,
    });
  }
  return problems;
}

const validateParams = paramValidator(GRANT_SEARCH_PARAMS, crossCheck);

/**
 * Splits search text into words: runs of letters, marks and digits that hold at least one letter
 * or digit (a lone combining mark is no word), folded as both engines fold indexed text
 * (accents dropped, ligatures spelled out), so the engines see the same words.
 */
export function searchWords(text: string): string[] {
  return (text.normalize('NFC').match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? []).map(foldText).filter((word) => word !== '');
}

const distinct = <T>(values: T[] | undefined): T[] => [...new Set(values ?? [])];

export function parseGrantQuery(query: Map<string, string[]>): GrantQuery {
  const p = validateParams(query);
  const amountMin = (p.amountMin as number | undefined) ?? null;
  const amountMax = (p.amountMax as number | undefined) ?? null;
  const page = (p.page as number | undefined) ?? 1;
  const limit = Math.min((p.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT);
  const offset = (page - 1) * limit;
  const words = searchWords(((p.search as string | undefined) ?? '').trim());
  return {
    words,
    funderTypes: distinct(p.funderType as FunderType[] | undefined),
    fundingTypes: distinct(p.fundingType as FundingType[] | undefined),
    provinces: distinct(p.eligibleProvinces as Province[] | undefined),
    beneficiaries: [],
    currencies: [],
    complexities: [],
    sdgs: [],
    isRecurring: null,
    amountMin,
    amountMax,
    open: null,
    now: Date.now(),
    deadlineFrom: null,
    deadlineTo: null,
    updatedSince: null,
    sort: { key: words.length > 0 ? 'relevance' : 'deadline', descending: false },
    facets: [],
    fields: null,
    page,
    limit,
    offset,
    size: Math.min(limit, MAX_WINDOW - offset),
  };
}
