// The CommonGrants requests as GrantQueries: the query of GET /common-grants/opportunities (page,
// pageSize) and the body of POST /common-grants/opportunities/search (search, filters, sorting,
// pagination). What the protocol allows and this API cannot answer (a total-funding range, an
// `outside` range, a sort by status) is refused by name, never ignored. The GrantQuery is built by
// GET /grants's own parser (parseGrantQuery) from the equivalent parameters, once the request is
// known to be valid, so both routes share one meaning of every condition.
import { OPP_STATUSES, type OppStatusValue } from '../../grants/commonGrants.js';
import { MAX_LIMIT, MAX_SEARCH_LENGTH, MAX_WINDOW, type GrantQuery } from '../../grants/query.js';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  PROVINCES,
  SDGS,
} from '../../grants/schema.js';
import { InvalidBodyError, type ErrorDetail } from '../../failures.js';
import { parseSearch, positiveWords } from '../../grants/searchSyntax.js';
import { parseGrantQuery } from './grantSearchParams.js';
import { parseDateParam, paramValidator, type ParamSpecs } from './queryParams.js';

/** The protocol's default page size (PaginatedQueryParams.pageSize), which is also our largest page. */
export const DEFAULT_PAGE_SIZE = 100;

export const LIST_PARAMS: ParamSpecs = {
  page: {
    kind: 'integer',
    min: 1,
    message: 'must be an integer ≥ 1',
    description: 'The page to return, from 1.',
    example: 1,
  },
  pageSize: {
    kind: 'integer',
    min: 1,
    max: MAX_LIMIT,
    message: `must be an integer from 1 to ${MAX_LIMIT}`,
    description:
      `The number of opportunities per page (1 to ${MAX_LIMIT}; ${DEFAULT_PAGE_SIZE} by default, as the ` +
      `protocol says).`,
    example: 20,
  },
};

/** The protocol's sort keys this API sorts by (OppSortBy), and the GET /grants sort key of each. */
export const SORT_BY: Record<string, string> = {
  lastModifiedAt: 'updatedAt',
  createdAt: 'createdAt',
  title: 'title',
  'keyDates.closeDate': 'deadline',
  'funding.minAwardAmount': 'amountMin',
  'funding.maxAwardAmount': 'amountMax',
};
/** The protocol's sort keys this API refuses: it holds no such value. */
const SORT_BY_REFUSED = ['status.value', 'funding.totalAmountAvailable', 'funding.estimatedAwardCount'];

/**
 * The custom filters (filters.customFilters) this API takes, each with operator `in`: a grant matches when it holds any
 * of the values.
 */
export const CUSTOM_FILTERS: Record<string, { param: string; values: readonly string[] }> = {
  funderType: { param: 'funderType', values: FUNDER_TYPES },
  fundingType: { param: 'fundingType', values: FUNDING_TYPES },
  eligibleProvinces: { param: 'eligibleProvinces', values: PROVINCES },
  targetBeneficiaries: { param: 'targetBeneficiaries', values: BENEFICIARIES },
  sdgAlignment: { param: 'sdgAlignment', values: SDGS },
  applicationComplexity: { param: 'applicationComplexity', values: COMPLEXITIES },
};

/** The order of a CommonGrants answer, as its sortInfo says it. */
interface SortInfo {
  sortBy: string;
  customSortBy?: string;
  sortOrder: 'asc' | 'desc';
}

/** A CommonGrants request as a GrantQuery; `query` null: no grant can match (a status filter wanting none of ours). */
export interface CommonGrantsRequest {
  query: GrantQuery | null;
  page: number;
  pageSize: number;
  sortInfo: SortInfo;
  /** The filters as sent (the protocol echoes them in filterInfo). */
  filters: Record<string, unknown>;
}

const validateList = paramValidator(LIST_PARAMS, (p) =>
  windowProblems(p.page as number | undefined, p.pageSize as number | undefined, 'page'),
);

function windowProblems(page = 1, pageSize = DEFAULT_PAGE_SIZE, parameter: string): ErrorDetail[] {
  const offset = (page - 1) * pageSize;
  return offset >= MAX_WINDOW
    ? [
        {
          parameter,
          message:
            `page ${page} at ${pageSize} per page would start past the first ` +
            `${MAX_WINDOW.toLocaleString('en-US')} matches, which is as far as paging reaches; narrow the ` +
            `search`,
        },
      ]
    : [];
}

/** The GrantQuery of GET /grants parameters built here (valid by construction), paged as asked. */
function grantQuery(
  params: Record<string, string | string[]>,
  page: number,
  pageSize: number,
  now: number,
): GrantQuery {
  const map = new Map<string, string[]>(
    Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  );
  map.set('page', [String(page)]);
  map.set('limit', [String(pageSize)]);
  return parseGrantQuery(map, now);
}

/** GET /common-grants/opportunities: page and pageSize; the protocol's order, lastModifiedAt newest first. */
export function parseListRequest(query: Map<string, string[]>, now: number): CommonGrantsRequest {
  const p = validateList(query);
  const page = (p.page as number | undefined) ?? 1;
  const pageSize = (p.pageSize as number | undefined) ?? DEFAULT_PAGE_SIZE;
  return {
    query: grantQuery({ sort: '-updatedAt' }, page, pageSize, now),
    page,
    pageSize,
    sortInfo: { sortBy: 'lastModifiedAt', sortOrder: 'desc' },
    filters: {},
  };
}

// ---- The search body, read by hand so that every refusal says what to send instead.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const list = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

/** Collects the problems of one body, each under its path (filters.status.operator). */
class Problems {
  readonly details: ErrorDetail[] = [];
  add(parameter: string, message: string): void {
    this.details.push({ parameter, message });
  }
  object(value: unknown, path: string, known: readonly string[], required: readonly string[] = []): Json | null {
    if (!isObject(value)) {
      this.add(path, 'must be a JSON object');
      return null;
    }
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    for (const key of Object.keys(value))
      if (!known.includes(key)) this.add(at(key), `is not a field here; the fields are ${list(known)}`);
    for (const key of required) if (value[key] === undefined) this.add(at(key), 'is required');
    return value;
  }
  stringsFrom(value: unknown, path: string, allowed: readonly string[]): string[] | null {
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      value.length > allowed.length ||
      value.some((v) => typeof v !== 'string' || !allowed.includes(v))
    ) {
      this.add(path, `must be a non-empty list of ${list(allowed)}`);
      return null;
    }
    return [...new Set(value as string[])];
  }
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A date (YYYY-MM-DD: its first or last millisecond, UTC) or an RFC 3339 date-time with its offset, as epoch ms; null
 * when neither.
 */
function instantOf(value: unknown, dayEdge: 'start' | 'end'): number | null {
  if (typeof value !== 'string') return null;
  const asParam = parseDateParam(value, dayEdge);
  if (asParam !== null) return asParam;
  const parsed = DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : null;
}

const DECIMAL = /^[0-9]+(?:\.[0-9]*)?$/;
const MAX_AMOUNT = 1e13;

/** A Money range filter (operator between; min and max in one of our currencies) → its bounds and currency. */
function moneyRange(
  filter: unknown,
  path: string,
  problems: Problems,
): { min: number; max: number; currency: string } | null {
  const f = problems.object(filter, path, ['operator', 'value'], ['operator', 'value']);
  if (f === null) return null;
  if (f.operator !== undefined && f.operator !== 'between')
    problems.add(
      `${path}.operator`,
      f.operator === 'outside' ? 'is not supported: only "between" is' : 'must be "between"',
    );
  const range =
    f.value === undefined ? null : problems.object(f.value, `${path}.value`, ['min', 'max'], ['min', 'max']);
  if (range === null || range.min === undefined || range.max === undefined) return null;
  const bounds: number[] = [];
  const currencies: string[] = [];
  for (const edge of ['min', 'max'] as const) {
    const money = problems.object(range[edge], `${path}.value.${edge}`, ['amount', 'currency'], ['amount', 'currency']);
    if (money === null) return null;
    if (typeof money.amount !== 'string' || !DECIMAL.test(money.amount) || Number(money.amount) > MAX_AMOUNT) {
      problems.add(
        `${path}.value.${edge}.amount`,
        `must be a decimal string ≥ 0 and at most ${MAX_AMOUNT} ("1500", "1500.50")`,
      );
      return null;
    }
    if (typeof money.currency !== 'string' || !(CURRENCIES as readonly string[]).includes(money.currency)) {
      problems.add(
        `${path}.value.${edge}.currency`,
        `must be one of ${list(CURRENCIES)}, the currencies of this API's grants`,
      );
      return null;
    }
    bounds.push(Number(money.amount));
    currencies.push(money.currency);
  }
  if (currencies[0] !== currencies[1]) problems.add(`${path}.value`, 'min and max must be in the same currency');
  else if (bounds[0] > bounds[1]) problems.add(`${path}.value.min`, 'must not exceed max');
  else return { min: bounds[0], max: bounds[1], currency: currencies[0] };
  return null;
}

/** The statuses a status filter wants (operator in, or notIn: every other). */
function statusesOf(filter: unknown, problems: Problems): Set<OppStatusValue> | null {
  const f = problems.object(filter, 'filters.status', ['operator', 'value'], ['operator', 'value']);
  if (f === null) return null;
  if (f.operator !== undefined && f.operator !== 'in' && f.operator !== 'notIn')
    problems.add('filters.status.operator', 'must be "in" or "notIn"');
  const values = f.value === undefined ? null : problems.stringsFrom(f.value, 'filters.status.value', OPP_STATUSES);
  if (values === null || (f.operator !== 'in' && f.operator !== 'notIn')) return null;
  return new Set(OPP_STATUSES.filter((s) => values.includes(s) === (f.operator === 'in')));
}

/** The sort of a search: as asked, or relevance (best first) with search words, else lastModifiedAt newest first. */
function sortOf(sorting: unknown, hasWords: boolean, problems: Problems): { sort: string; info: SortInfo } | null {
  if (sorting === undefined) {
    return hasWords
      ? { sort: 'relevance', info: { sortBy: 'custom', customSortBy: 'relevance', sortOrder: 'desc' } }
      : { sort: '-updatedAt', info: { sortBy: 'lastModifiedAt', sortOrder: 'desc' } };
  }
  const s = problems.object(sorting, 'sorting', ['sortBy', 'customSortBy', 'sortOrder'], ['sortBy']);
  if (s === null || s.sortBy === undefined) return null;
  const order = s.sortOrder ?? 'asc';
  if (order !== 'asc' && order !== 'desc') {
    problems.add('sorting.sortOrder', 'must be "asc" or "desc"');
    return null;
  }
  if (s.sortBy === 'custom') {
    if (s.customSortBy !== 'relevance')
      problems.add('sorting.customSortBy', 'must be "relevance" with sortBy "custom" (the text score, best first)');
    else if (!hasWords) problems.add('sorting.customSortBy', 'relevance needs search words in `search`');
    else if (s.sortOrder === 'asc')
      problems.add('sorting.sortOrder', 'must be "desc" (or left out) with relevance: best first');
    else return { sort: 'relevance', info: { sortBy: 'custom', customSortBy: 'relevance', sortOrder: 'desc' } };
    return null;
  }
  const key = typeof s.sortBy === 'string' ? SORT_BY[s.sortBy] : undefined;
  if (key === undefined) {
    problems.add(
      'sorting.sortBy',
      typeof s.sortBy === 'string' && SORT_BY_REFUSED.includes(s.sortBy)
        ? `is not supported: this API holds no ${s.sortBy}; sort by ${list([...Object.keys(SORT_BY), 'custom'])}`
        : `must be one of ${list([...Object.keys(SORT_BY), 'custom'])}`,
    );
    return null;
  }
  if (s.customSortBy !== undefined) problems.add('sorting.customSortBy', 'goes only with sortBy "custom"');
  return { sort: order === 'desc' ? `-${key}` : key, info: { sortBy: s.sortBy as string, sortOrder: order } };
}

/**
 * POST /common-grants/opportunities/search: the body (already parsed) as a GrantQuery; every problem listed at once
 * (400).
 */
export function parseSearchBody(body: Json, now: number): CommonGrantsRequest {
  const problems = new Problems();
  problems.object(body, '', ['search', 'filters', 'sorting', 'pagination']);
  const params: Record<string, string | string[]> = {};

  let hasWords = false;
  if (body.search !== undefined) {
    if (typeof body.search !== 'string' || body.search.length > MAX_SEARCH_LENGTH)
      problems.add('search', `must be a string of at most ${MAX_SEARCH_LENGTH} characters`);
    else {
      params.search = body.search;
      hasWords = body.search.trim() !== '' && positiveWords(parseSearch(body.search)).length > 0;
    }
  }

  let statuses: Set<OppStatusValue> | null = null;
  let amountRanges: Pick<GrantQuery, 'amountMinRange' | 'amountMaxRange'> = {};
  const filters =
    body.filters === undefined
      ? {}
      : problems.object(body.filters, 'filters', [
          'status',
          'closeDateRange',
          'totalFundingAvailableRange',
          'minAwardAmountRange',
          'maxAwardAmountRange',
          'customFilters',
        ]);
  if (filters !== null) {
    if (filters.status !== undefined) statuses = statusesOf(filters.status, problems);
    if (filters.closeDateRange !== undefined) {
      const f = problems.object(
        filters.closeDateRange,
        'filters.closeDateRange',
        ['operator', 'value'],
        ['operator', 'value'],
      );
      if (f !== null && f.operator !== undefined && f.operator !== 'between')
        problems.add(
          'filters.closeDateRange.operator',
          f.operator === 'outside' ? 'is not supported: only "between" is' : 'must be "between"',
        );
      const range =
        f?.value === undefined
          ? null
          : problems.object(f.value, 'filters.closeDateRange.value', ['min', 'max'], ['min', 'max']);
      if (range !== null && range.min !== undefined && range.max !== undefined) {
        const from = instantOf(range.min, 'start');
        const to = instantOf(range.max, 'end');
        const message =
          'must be a date YYYY-MM-DD (UTC) or a date-time with its offset (2026-09-01T17:00:00Z, ' +
          '2026-09-01T17:00:00-04:00)';
        if (from === null) problems.add('filters.closeDateRange.value.min', message);
        if (to === null) problems.add('filters.closeDateRange.value.max', message);
        if (from !== null && to !== null) {
          if (from > to) problems.add('filters.closeDateRange.value.min', 'must not be after max');
          params.deadlineFrom = new Date(from).toISOString();
          params.deadlineTo = new Date(to).toISOString();
        }
      }
    }
    if (filters.totalFundingAvailableRange !== undefined) {
      problems.add(
        'filters.totalFundingAvailableRange',
        "is not supported: this API's grants carry no total funding available; filter on " +
          'minAwardAmountRange or maxAwardAmountRange',
      );
    }
    const currencies = new Set<string>();
    for (const [name, key] of [
      ['minAwardAmountRange', 'amountMinRange'],
      ['maxAwardAmountRange', 'amountMaxRange'],
    ] as const) {
      if (filters[name] === undefined) continue;
      const range = moneyRange(filters[name], `filters.${name}`, problems);
      if (range === null) continue;
      currencies.add(range.currency);
      amountRanges = { ...amountRanges, [key]: { min: range.min, max: range.max } };
    }
    if (currencies.size > 1) problems.add('filters', 'the amount ranges must be in one currency');
    else if (currencies.size === 1) params.currency = [...currencies];
    if (filters.customFilters !== undefined) {
      const custom = problems.object(filters.customFilters, 'filters.customFilters', Object.keys(CUSTOM_FILTERS));
      for (const [name, spec] of Object.entries(CUSTOM_FILTERS)) {
        if (custom?.[name] === undefined) continue;
        const path = `filters.customFilters.${name}`;
        const f = problems.object(custom[name], path, ['operator', 'value'], ['operator', 'value']);
        if (f === null) continue;
        if (f.operator !== undefined && f.operator !== 'in')
          problems.add(`${path}.operator`, 'must be "in" (a grant matches when it holds any of the values)');
        const values = f.value === undefined ? null : problems.stringsFrom(f.value, `${path}.value`, spec.values);
        if (values !== null) params[spec.param] = values;
      }
    }
  }

  const sorted = sortOf(body.sorting, hasWords, problems);
  if (sorted !== null) params.sort = sorted.sort;

  let page = 1;
  let pageSize = DEFAULT_PAGE_SIZE;
  if (body.pagination !== undefined) {
    const p = problems.object(body.pagination, 'pagination', ['page', 'pageSize']);
    if (p?.page !== undefined) {
      if (!Number.isSafeInteger(p.page) || (p.page as number) < 1)
        problems.add('pagination.page', 'must be an integer ≥ 1');
      else page = p.page as number;
    }
    if (p?.pageSize !== undefined) {
      if (!Number.isSafeInteger(p.pageSize) || (p.pageSize as number) < 1 || (p.pageSize as number) > MAX_LIMIT)
        problems.add('pagination.pageSize', `must be an integer from 1 to ${MAX_LIMIT}`);
      else pageSize = p.pageSize as number;
    }
  }
  problems.details.push(...windowProblems(page, pageSize, 'pagination.page'));
  if (problems.details.length > 0 || sorted === null) throw new InvalidBodyError(problems.details);

  // The protocol's statuses as ours (grants/lifecycle.ts); no grant has the protocol's custom status.
  const ours =
    statuses === null
      ? []
      : [...statuses].flatMap((s) =>
          s === 'forecasted' ? ['FORECASTED'] : s === 'open' ? ['OPEN'] : s === 'closed' ? ['CLOSED'] : [],
        );
  if (ours.length > 0) params.status = ours;
  const query =
    statuses === null || ours.length > 0 ? { ...grantQuery(params, page, pageSize, now), ...amountRanges } : null;
  return { query, page, pageSize, sortInfo: sorted.info, filters: (body.filters as Json | undefined) ?? {} };
}
