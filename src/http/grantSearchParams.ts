// GET /grants parameters: their specs, the checks across them, and their translation into the
// engine-neutral GrantQuery (grants/query.ts).
import {
  DEFAULT_LIMIT,
  FACET_NAMES,
  MAX_LIMIT,
  MAX_SEARCH_LENGTH,
  MAX_WINDOW,
  SORT_KEYS,
  searchWords,
  type FacetName,
  type GrantQuery,
  type GrantSort,
  type SortKey,
} from '../grants/query.js';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  GRANT_FIELDS,
  PROVINCES,
  SDGS,
  type Beneficiary,
  type Complexity,
  type Currency,
  type FunderType,
  type FundingType,
  type Grant,
  type Province,
  type Sdg,
} from '../grants/schema.js';
import type { ErrorDetail } from './errors.js';
import { CURSOR_START, MAX_CURSOR_LENGTH, decodeCursor } from './grantCursor.js';
import { paramValidator, type ParamSpecs, type ParamValues } from './queryParams.js';

/** The values of `sort`: each key ascending, and with a leading "-" descending (relevance: best first only). */
export const SORT_VALUES: readonly string[] = SORT_KEYS.flatMap((key) => (key === 'relevance' ? [key] : [key, `-${key}`]));

export const GRANT_SEARCH_PARAMS: ParamSpecs = {
  search: { kind: 'string', maxLength: MAX_SEARCH_LENGTH, message: `must be at most ${MAX_SEARCH_LENGTH} characters` },
  funderType: { kind: 'enumArray', values: FUNDER_TYPES },
  fundingType: { kind: 'enumArray', values: FUNDING_TYPES },
  eligibleProvinces: { kind: 'enumArray', values: PROVINCES },
  targetBeneficiaries: { kind: 'enumArray', values: BENEFICIARIES },
  currency: { kind: 'enumArray', values: CURRENCIES },
  applicationComplexity: { kind: 'enumArray', values: COMPLEXITIES },
  sdgAlignment: { kind: 'enumArray', values: SDGS },
  isRecurring: { kind: 'boolean' },
  amountMin: { kind: 'number', min: 0, message: 'must be a number ≥ 0' },
  amountMax: { kind: 'number', min: 0, message: 'must be a number ≥ 0' },
  open: { kind: 'boolean' },
  deadlineFrom: { kind: 'date', dayEdge: 'start' },
  deadlineTo: { kind: 'date', dayEdge: 'end' },
  updatedSince: { kind: 'date', dayEdge: 'start' },
  sort: { kind: 'enum', values: SORT_VALUES },
  facets: { kind: 'enumArray', values: FACET_NAMES },
  fields: { kind: 'enumArray', values: GRANT_FIELDS },
  page: { kind: 'integer', min: 1, default: 1, message: 'must be an integer ≥ 1' },
  /** Above MAX_LIMIT it is served as MAX_LIMIT; 0 asks for the counts alone (total, facets), no grant. */
  limit: { kind: 'integer', min: 0, clampAbove: MAX_LIMIT, default: DEFAULT_LIMIT, message: 'must be an integer ≥ 0' },
  /** Cursor paging: `*` starts, then each answer's pagination.nextCursor (grantCursor.ts). */
  cursor: { kind: 'string', maxLength: MAX_CURSOR_LENGTH, message: 'must be * or a nextCursor the API gave out' },
};

/** GET /grants/export: the filters, sort and fields of GET /grants (no paging or facets), and the format. */
export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
const { page: _page, limit: _limit, cursor: _cursor, facets: _facets, ...exportFilters } = GRANT_SEARCH_PARAMS;
export const GRANT_EXPORT_PARAMS: ParamSpecs = { ...exportFilters, format: { kind: 'enum', values: EXPORT_FORMATS } };

const wordsOf = (p: ParamValues): string[] => searchWords(((p.search as string | undefined) ?? '').trim());
const limitOf = (p: ParamValues): number => Math.min((p.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT);
const count = (n: number): string => n.toLocaleString('en-US');

/** Checks across the parameters GET /grants and its export share: the ranges in order, relevance only with search words. */
function filterCheck(p: ParamValues): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (typeof p.amountMin === 'number' && typeof p.amountMax === 'number' && p.amountMin > p.amountMax) {
    problems.push({ parameter: 'amountMin', message: 'must not exceed amountMax' });
  }
  if (typeof p.deadlineFrom === 'number' && typeof p.deadlineTo === 'number' && p.deadlineFrom > p.deadlineTo) {
    problems.push({ parameter: 'deadlineFrom', message: 'must not be after deadlineTo' });
  }
  if (p.sort === 'relevance' && wordsOf(p).length === 0) {
    problems.push({ parameter: 'sort', message: 'relevance needs search words (a search with at least one word); without them sort by another key' });
  }
  return problems;
}

/**
 * The shared checks, then paging: `page` and `cursor` exclude each other, and without a cursor
 * the page lies within the first 10,000 matches (whatever the total).
 */
function crossCheck(p: ParamValues): ErrorDetail[] {
  const problems = filterCheck(p);
  if (p.cursor !== undefined) {
    if (p.page !== undefined) {
      problems.push({ parameter: 'page', message: 'cannot be combined with cursor: a cursor knows its page; send only the cursor' });
    }
    if (p.limit === 0) {
      problems.push({ parameter: 'limit', message: 'must be at least 1 with cursor: limit=0 asks for the counts alone, which a page-number request gives (leave out cursor)' });
    }
    return problems;
  }
  const page = (p.page as number | undefined) ?? 1;
  const limit = limitOf(p);
  const offset = (page - 1) * limit;
  if (offset >= MAX_WINDOW) {
    problems.push({
      parameter: 'page',
      message:
        `page ${count(page)} at ${count(limit)} per page would start at match ${count(offset + 1)}, but paging by page number reaches ` +
        `only the first ${count(MAX_WINDOW)} matches, whatever the total; narrow the search (filters, dates, words), or use cursor paging ` +
        '(cursor=*, then each nextCursor), which reaches every match',
    });
  }
  return problems;
}

const validateParams = paramValidator(GRANT_SEARCH_PARAMS, crossCheck);
const validateExportParams = paramValidator(GRANT_EXPORT_PARAMS, filterCheck);

function sortOf(value: string | undefined, words: string[]): GrantSort {
  if (value === undefined) return { key: words.length > 0 ? 'relevance' : 'deadline', descending: false };
  const descending = value.startsWith('-');
  return { key: (descending ? value.slice(1) : value) as SortKey, descending };
}

/** The fields asked for in canonical order, id first; null when every field is wanted. */
function fieldsOf(asked: string[] | undefined): (keyof Grant)[] | null {
  if (asked === undefined || asked.length === 0) return null;
  const wanted = new Set<string>(asked);
  return GRANT_FIELDS.filter((field) => field === 'id' || wanted.has(field));
}

/** The conditions, sort and fields of a GrantQuery from valid parameters; paging is the caller's. */
function conditionsOf(p: ParamValues, now: number): Omit<GrantQuery, 'page' | 'limit' | 'offset' | 'size' | 'facets'> {
  const words = wordsOf(p);
  const orNull = <T>(value: unknown): T | null => (value === undefined ? null : (value as T));
  return {
    words,
    funderTypes: (p.funderType as FunderType[] | undefined) ?? [],
    fundingTypes: (p.fundingType as FundingType[] | undefined) ?? [],
    provinces: (p.eligibleProvinces as Province[] | undefined) ?? [],
    beneficiaries: (p.targetBeneficiaries as Beneficiary[] | undefined) ?? [],
    currencies: (p.currency as Currency[] | undefined) ?? [],
    complexities: (p.applicationComplexity as Complexity[] | undefined) ?? [],
    sdgs: (p.sdgAlignment as Sdg[] | undefined) ?? [],
    isRecurring: orNull<boolean>(p.isRecurring),
    amountMin: orNull<number>(p.amountMin),
    amountMax: orNull<number>(p.amountMax),
    open: orNull<boolean>(p.open),
    now,
    deadlineFrom: orNull<number>(p.deadlineFrom),
    deadlineTo: orNull<number>(p.deadlineTo),
    updatedSince: orNull<number>(p.updatedSince),
    sort: sortOf(p.sort as string | undefined, words),
    fields: fieldsOf(p.fields as string[] | undefined),
  };
}

/**
 * Validates GET /grants parameters (every problem listed) and translates them into a GrantQuery.
 * `now` is the request time in epoch milliseconds, from the app's clock: what `open` compares to.
 * With `cursor`, the query is a cursor page: `*` the first, otherwise the page the cursor leads to
 * after its place (a cursor of another query is a 400).
 */
export function parseGrantQuery(query: Map<string, string[]>, now: number = Date.now()): GrantQuery {
  const p = validateParams(query);
  const limit = limitOf(p);
  const base = { ...conditionsOf(p, now), facets: (p.facets as FacetName[] | undefined) ?? [], limit };
  const cursor = p.cursor as string | undefined;
  if (cursor !== undefined) {
    const grantQuery: GrantQuery = { ...base, page: 1, offset: 0, size: limit, cursor: { after: null } };
    if (cursor === CURSOR_START) return grantQuery;
    const decoded = decodeCursor(cursor, grantQuery);
    return { ...grantQuery, page: decoded.page, cursor: { after: decoded.after } };
  }
  const page = (p.page as number | undefined) ?? 1;
  const offset = (page - 1) * limit;
  return { ...base, page, offset, size: Math.min(limit, MAX_WINDOW - offset) };
}

/** Validates GET /grants/export parameters and translates them into a GrantQuery (no paging, no facets) and a format. */
export function parseExportQuery(query: Map<string, string[]>, now: number = Date.now()): { query: GrantQuery; format: ExportFormat } {
  const p = validateExportParams(query);
  return {
    query: { ...conditionsOf(p, now), facets: [], page: 1, limit: MAX_LIMIT, offset: 0, size: MAX_LIMIT, cursor: null },
    format: (p.format as ExportFormat | undefined) ?? 'ndjson',
  };
}
