// GET /grants parameters: their specs, the checks across them, and their translation into the
// engine-neutral GrantQuery (grants/query.ts).
import {
  DEFAULT_LIMIT,
  FACET_NAMES,
  MAX_LIMIT,
  MAX_SEARCH_LENGTH,
  MAX_WINDOW,
  SORT_KEYS,
  type FacetName,
  type GrantQuery,
  type GrantSort,
  type SortKey,
} from '../../grants/query.js';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  GRANT_STATUSES,
  SERVED_FIELDS,
  PROVINCES,
  SDGS,
  type Beneficiary,
  type Complexity,
  type Currency,
  type FunderType,
  type FundingType,
  type GrantStatus,
  type Province,
  type ServedGrant,
  type Sdg,
} from '../../grants/schema.js';
import { parseSearch, positiveWords, type ParsedSearch } from '../../grants/searchSyntax.js';
import {
  DEFAULT_POST_TAG,
  DEFAULT_PRE_TAG,
  HIGHLIGHT_FIELDS,
  MAX_CROP_WORDS,
  MAX_TAG_LENGTH,
  type HighlightField,
  type HighlightSpec,
} from '../../grants/highlighting.js';
import {
  MAX_TYPO_VARIANTS,
  MAX_TYPO_VARIANTS_PER_SEARCH,
  MAX_TYPO_WORDS,
  TYPO_MODES,
  type TypoMode,
} from '../../grants/typos.js';
import { MATCHING_MODES, MAX_RELAXATION_STEPS, type MatchingMode } from '../../grants/relaxation.js';
import type { ErrorDetail } from '../errors.js';
import type { GrantConditions } from '../../grants/matching.js';
import { CURSOR_START, MAX_CURSOR_LENGTH, decodeCursor } from './grantCursor.js';
import { clip, paramValidator, type ParamSpecs, type ParamValues } from './queryParams.js';

/** The values of `sort`: each key ascending, and with a leading "-" descending (relevance: best first only). */
const SORT_VALUES: readonly string[] = SORT_KEYS.flatMap((key) => (key === 'relevance' ? [key] : [key, `-${key}`]));

export const GRANT_SEARCH_PARAMS: ParamSpecs = {
  search: {
    kind: 'string',
    maxLength: MAX_SEARCH_LENGTH,
    message: `must be at most ${MAX_SEARCH_LENGTH} characters`,
    description:
      'Words to find: every word must appear in the title, funder, description, French title or French ' +
      "description, or in the labels of the grant's funder type, funding type, beneficiaries and provinces " +
      '(in English and French: "Indigenous communities", "prêt"), case and accents ignored; a word matches ' +
      "in English (its word endings ignored) or in French (elided articles such as l' and d' dropped, " +
      'French endings ignored). ' +
      ('Web-search syntax: "a phrase" (adjacent words, in order, in one field); a leading -word or -"a ' +
        'phrase" excludes; ') +
      'upper-case OR between two terms matches either, AND binding tighter (a b OR c is (a AND b) OR c). ' +
      'Anything else (*, :, parentheses, NEAR, lower-case or, an unclosed quote) is plain text, never an error. ' +
      'Blank: no text condition; a search with no word to find (only exclusions or symbols) matches nothing.',
    example: 'clean energy',
  },
  typos: {
    kind: 'enum',
    values: TYPO_MODES,
    description:
      'Typo tolerance. `off` (the default): words match as typed. `auto`: a word of 5 to 8 letters also ' +
      'matches catalog words one typo away, ' +
      ('a word of 9 letters or more two typos away (a typo: a letter added, dropped, changed, or two ' +
        'adjacent letters swapped), the first letter ') +
      ('always as typed; never words under 5 letters, words with digits, words of a quoted phrase or ' +
        'excluded words. Grants matching every word ') +
      (`as typed rank first. Each word matches at most its ${MAX_TYPO_VARIANTS} closest catalog words (the ` +
        `most frequent first among equally close), `) +
      (`a search's words at most ${MAX_TYPO_VARIANTS_PER_SEARCH} together (shared: a word with fewer keeps ` +
        `all of its own), `) +
      `and only the first ${MAX_TYPO_WORDS} words of a search that may carry typos get them.`,
    example: 'auto',
  },
  matching: {
    kind: 'enum',
    values: MATCHING_MODES,
    description:
      'How many of the search words a grant must hold. `all` (the default): every word. `last`: grants ' +
      'holding every word come first, then ' +
      ('grants holding fewer, words being given up from the end of the search; `frequency`: the same, the ' +
        'words found in the most grants ') +
      ('given up first (a word no grant holds before any). Down to one word: `pagination.total` counts every ' +
        'grant the most relaxed step matches. A quoted word or phrase and an ') +
      (`excluded word are never given up; words a synonym joins count as one. At most ` +
        `${MAX_RELAXATION_STEPS} steps: a longer search gives up its extra words in the first.`),
    example: 'frequency',
  },
  synonyms: {
    kind: 'boolean',
    description:
      "Whether the operator's synonym list applies (the default: true): a search word or words the list " +
      'names also find their other spellings ' +
      ('(`nonprofit` finds "non-profit" and "not-for-profit", `NSERC` finds "CRSNG", `R&D` finds "research ' +
        'and development"). false: the words as typed.'),
    example: false,
  },
  funderType: {
    kind: 'enumArray',
    values: FUNDER_TYPES,
    description: 'Only grants from these kinds of funder.',
    example: ['FEDERAL_GRANT', 'FOUNDATION'],
  },
  fundingType: {
    kind: 'enumArray',
    values: FUNDING_TYPES,
    description: 'Only grants giving these kinds of funding.',
    example: ['GRANT', 'REBATE'],
  },
  eligibleProvinces: {
    kind: 'enumArray',
    values: PROVINCES,
    description: 'Only grants open to applicants in at least one of these provinces or territories.',
    example: ['QUEBEC', 'ONTARIO'],
  },
  targetBeneficiaries: {
    kind: 'enumArray',
    values: BENEFICIARIES,
    description: 'Only grants meant for at least one of these kinds of applicant.',
    example: ['SMALL_BUSINESS'],
  },
  currency: {
    kind: 'enumArray',
    values: CURRENCIES,
    description: 'Only grants whose amounts are in one of these currencies.',
    example: ['CAD'],
  },
  applicationComplexity: {
    kind: 'enumArray',
    values: COMPLEXITIES,
    description:
      'Only grants whose application takes this much effort (a grant whose complexity is unknown matches none).',
    example: ['LOW', 'MEDIUM'],
  },
  sdgAlignment: {
    kind: 'enumArray',
    values: SDGS,
    description: 'Only grants aligned with at least one of these UN Sustainable Development Goals.',
    example: ['SDG_7', 'SDG_13'],
  },
  isRecurring: {
    kind: 'boolean',
    description:
      'Only grants that come back every cycle (true) or one-off grants (false); unknown recurrence matches neither.',
    example: true,
  },
  status: {
    kind: 'enumArray',
    values: GRANT_STATUSES,
    description:
      'Only grants in one of these states at the time of the request: FORECASTED (applications open later, at ' +
      '`opensAt`), OPEN (accepting applications now), CLOSED (the deadline has passed).',
    example: ['FORECASTED', 'OPEN'],
  },
  amountMin: {
    kind: 'number',
    min: 0,
    message: 'must be a number ≥ 0',
    description:
      "Only grants whose amount range reaches this amount (the grant's amountMax is at least this, or unknown).",
    example: 10000,
  },
  amountMax: {
    kind: 'number',
    min: 0,
    message: 'must be a number ≥ 0',
    description:
      "Only grants whose amount range starts at or below this amount (the grant's amountMin is at most " +
      'this, or unknown).',
    example: 500000,
  },
  open: {
    kind: 'boolean',
    description:
      'true: only grants accepting applications now (status OPEN: opened, and the deadline in the future or none); ' +
      'false: only grants not accepting applications now (status FORECASTED or CLOSED). ' +
      'Without it, closed and forecasted grants are included (and, in the default order, closed grants come first).',
    example: true,
  },
  deadlineFrom: {
    kind: 'date',
    dayEdge: 'start',
    description: 'Only grants whose deadline is at or after this instant (grants without a deadline never match).',
    example: '2026-09-01',
  },
  deadlineTo: {
    kind: 'date',
    dayEdge: 'end',
    description: 'Only grants whose deadline is at or before this instant (grants without a deadline never match).',
    example: '2026-12-31',
  },
  updatedSince: {
    kind: 'date',
    dayEdge: 'start',
    description: 'Only grants changed (updatedAt) at or after this instant.',
    example: '2025-06-01T00:00:00Z',
  },
  sort: {
    kind: 'enum',
    values: SORT_VALUES,
    description:
      'The order of the results: a field ascending, or descending with a leading "-". By default: relevance when ' +
      '`search` has words to find, else `deadline` (the oldest deadlines first); with `open=true`, `deadline` ' +
      'lists the open grants closing soonest first.',
    example: 'deadline',
  },
  facets: {
    kind: 'enumArray',
    values: FACET_NAMES,
    description:
      'The fields to count values of over the matches; the answer gains a `facets` object, in the order asked.',
    example: ['eligibleProvinces', 'fundingType'],
  },
  fields: {
    kind: 'enumArray',
    values: SERVED_FIELDS,
    description: 'The grant fields to return (id always comes); all fields when absent or empty.',
    example: ['id', 'title', 'deadline'],
  },
  highlight: {
    kind: 'enumArray',
    values: HIGHLIGHT_FIELDS,
    description:
      'Text fields to highlight: each grant gains `highlights`, holding for each field named its text with every ' +
      'word the search matched (in English or French, a synonym or a typo alternative included) between ' +
      '`highlightPreTag` and `highlightPostTag`, and everything else HTML-escaped, ready to put into a page as ' +
      'it is. A field need not be in `fields`; a field the grant leaves empty is null.',
    example: ['title', 'description'],
  },
  highlightPreTag: {
    kind: 'string',
    maxLength: MAX_TAG_LENGTH,
    message: `must be at most ${MAX_TAG_LENGTH} characters`,
    description:
      `What goes before each matched word in \`highlights\` (default \`${DEFAULT_PRE_TAG}\`), as it is: it is ` +
      `not escaped.`,
    example: '<em>',
  },
  highlightPostTag: {
    kind: 'string',
    maxLength: MAX_TAG_LENGTH,
    message: `must be at most ${MAX_TAG_LENGTH} characters`,
    description:
      `What goes after each matched word in \`highlights\` (default \`${DEFAULT_POST_TAG}\`), as it is: it is ` +
      `not escaped.`,
    example: '</em>',
  },
  crop: {
    kind: 'string',
    maxLength: 200,
    message: 'must be at most 200 characters',
    description:
      `Fields to crop, comma-separated, each as field:words (words from 1 to ${MAX_CROP_WORDS}): the field ` +
      `in \`highlights\` is the passage of that many ` +
      ('words holding the most distinct matched words (the earliest on ties, its matches towards its ' +
        'middle), highlighted and escaped as `highlight` ') +
      'does, with … where text was cut. A cropped field is highlighted whether or not `highlight` names it.',
    example: 'description:40',
  },
  page: {
    kind: 'integer',
    min: 1,
    default: 1,
    message: 'must be an integer ≥ 1',
    description: 'The page of results to return, from 1.',
    example: 2,
  },
  /** Above MAX_LIMIT it is served as MAX_LIMIT; 0 asks for the counts alone (total, facets), no grant. */
  limit: {
    kind: 'integer',
    min: 0,
    clampAbove: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    message: 'must be an integer ≥ 0',
    description:
      `How many grants per page (at most ${MAX_LIMIT}: a larger limit is served as ${MAX_LIMIT}); 0 for the ` +
      `total and facets alone.`,
    example: 50,
  },
  /** Cursor paging: `*` starts, then each answer's pagination.nextCursor (grantCursor.ts). */
  cursor: {
    kind: 'string',
    maxLength: MAX_CURSOR_LENGTH,
    message: 'must be * or a nextCursor the API gave out',
    description:
      'Walks every match page by page instead of page numbers: `*` for the first page, then the nextCursor of ' +
      'the previous answer.',
    example: '*',
    fillIn: false,
  },
};

/** GET /grants/export: the filters, sort and fields of GET /grants (no paging or facets), and the format. */
const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];
const {
  page: _page,
  limit: _limit,
  cursor: _cursor,
  facets: _facets,
  highlight: _highlight,
  highlightPreTag: _preTag,
  highlightPostTag: _postTag,
  crop: _crop,
  ...exportFilters
} = GRANT_SEARCH_PARAMS;
export const GRANT_EXPORT_PARAMS: ParamSpecs = {
  ...exportFilters,
  format: {
    kind: 'enum',
    values: EXPORT_FORMATS,
    description: 'The file format: one JSON grant per line (ndjson, the default) or CSV with a header row.',
    example: 'csv',
  },
};

/** GET /grants/:id/similar: how many grants come back. */
const SIMILAR_DEFAULT_LIMIT = 10;
const SIMILAR_MAX_LIMIT = 50;
/**
 * GET /grants/:id/similar: every parameter of GET /grants that filters or presents the grants (the
 * filters, `fields`, and whatever else shapes a grant of a page), and its own `limit`; no search,
 * sort, paging or facets: the similar grants are found by the grant's own words, best first.
 */
const {
  search: _search,
  typos: _typos,
  matching: _matching,
  synonyms: _synonyms,
  sort: _sortKey,
  facets: _facetNames,
  page: _pageNumber,
  cursor: _cursorValue,
  limit: _pageLimit,
  ...similarShared
} = GRANT_SEARCH_PARAMS;
export const SIMILAR_PARAMS: ParamSpecs = {
  ...similarShared,
  limit: {
    kind: 'integer',
    min: 1,
    max: SIMILAR_MAX_LIMIT,
    default: SIMILAR_DEFAULT_LIMIT,
    message: `must be an integer from 1 to ${SIMILAR_MAX_LIMIT}`,
    description: `How many similar grants to return, the most similar first (1 to ${SIMILAR_MAX_LIMIT}).`,
    example: 5,
  },
};

/** The search parsed; null without a text condition (no search, or only spaces). */
const searchOf = (p: ParamValues): ParsedSearch | null => {
  const text = ((p.search as string | undefined) ?? '').trim();
  return text === '' ? null : parseSearch(text);
};
const wordsOf = (p: ParamValues): string[] => {
  const search = searchOf(p);
  return search === null ? [] : positiveWords(search);
};
const limitOf = (p: ParamValues): number => Math.min((p.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT);
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Checks across the parameters GET /grants and its export share: the ranges in order, relevance only with search words.
 */
function filterCheck(p: ParamValues): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (typeof p.amountMin === 'number' && typeof p.amountMax === 'number' && p.amountMin > p.amountMax) {
    problems.push({ parameter: 'amountMin', message: 'must not exceed amountMax' });
  }
  if (typeof p.deadlineFrom === 'number' && typeof p.deadlineTo === 'number' && p.deadlineFrom > p.deadlineTo) {
    problems.push({ parameter: 'deadlineFrom', message: 'must not be after deadlineTo' });
  }
  if (p.sort === 'relevance' && wordsOf(p).length === 0) {
    problems.push({
      parameter: 'sort',
      message:
        'relevance needs search words (a search with at least one word to find); without them sort by another key',
    });
  }
  return problems;
}

/**
 * The shared checks, then paging: `page` and `cursor` exclude each other, and without a cursor
 * the page lies within the first 10,000 matches (whatever the total).
 */
function crossCheck(p: ParamValues): ErrorDetail[] {
  const problems = filterCheck(p);
  if (typeof p.crop === 'string') {
    const crop = cropOf(p.crop);
    if ('problem' in crop) problems.push({ parameter: 'crop', message: crop.problem });
  }
  if (p.cursor !== undefined) {
    if (p.page !== undefined) {
      problems.push({
        parameter: 'page',
        message: 'cannot be combined with cursor: a cursor knows its page; send only the cursor',
      });
    }
    if (p.limit === 0) {
      problems.push({
        parameter: 'limit',
        message:
          'must be at least 1 with cursor: limit=0 asks for the counts alone, which a page-number request gives ' +
          '(leave out cursor)',
      });
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
        `page ${count(page)} at ${count(limit)} per page would start at match ${count(offset + 1)}, but ` +
        `paging by page number reaches ` +
        (`only the first ${count(MAX_WINDOW)} matches, whatever the total; narrow the search (filters, ` +
          `dates, words), or use cursor paging `) +
        '(cursor=*, then each nextCursor), which reaches every match',
    });
  }
  return problems;
}

const CROP_ITEM = /^([^:]*):(\d{1,6})$/;

/**
 * The words to keep per field of a `crop` value (field:words, comma-separated), or the first problem with it, naming
 * the item.
 */
function cropOf(text: string): { crop: Map<HighlightField, number> } | { problem: string } {
  const crop = new Map<HighlightField, number>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const parsed = CROP_ITEM.exec(item);
    if (parsed === null)
      return { problem: `"${clip(item)}" is not field:words (a field and a number of words, e.g. description:40)` };
    const [, field, words] = parsed;
    if (!(HIGHLIGHT_FIELDS as readonly string[]).includes(field))
      return { problem: `"${clip(field)}" is not one of ${HIGHLIGHT_FIELDS.join(', ')}` };
    const count = Number(words);
    if (count < 1 || count > MAX_CROP_WORDS)
      return { problem: `${field}:${words}: the words must be from 1 to ${MAX_CROP_WORDS}` };
    if (crop.has(field as HighlightField)) return { problem: `names ${field} twice` };
    crop.set(field as HighlightField, count);
  }
  return { crop };
}

/** What to highlight and crop (null: neither asked). */
function highlightOf(p: ParamValues): HighlightSpec | null {
  const asked = new Set((p.highlight as string[] | undefined) ?? []);
  const cropped = typeof p.crop === 'string' ? cropOf(p.crop) : { crop: new Map<HighlightField, number>() };
  const crop = 'crop' in cropped ? cropped.crop : new Map<HighlightField, number>();
  const fields = HIGHLIGHT_FIELDS.filter((field) => asked.has(field) || crop.has(field));
  if (fields.length === 0) return null;
  return {
    fields,
    preTag: (p.highlightPreTag as string | undefined) ?? DEFAULT_PRE_TAG,
    postTag: (p.highlightPostTag as string | undefined) ?? DEFAULT_POST_TAG,
    crop,
  };
}

const validateParams = paramValidator(GRANT_SEARCH_PARAMS, crossCheck);
const validateExportParams = paramValidator(GRANT_EXPORT_PARAMS, filterCheck);

function sortOf(value: string | undefined, words: string[]): GrantSort {
  if (value === undefined) return { key: words.length > 0 ? 'relevance' : 'deadline', descending: false };
  const descending = value.startsWith('-');
  return { key: (descending ? value.slice(1) : value) as SortKey, descending };
}

/** The fields asked for in canonical order, id first; null when every field is wanted. */
function fieldsOf(asked: string[] | undefined): (keyof ServedGrant)[] | null {
  if (asked === undefined || asked.length === 0) return null;
  const wanted = new Set<string>(asked);
  return SERVED_FIELDS.filter((field) => field === 'id' || wanted.has(field));
}

/** The conditions, sort and fields of a GrantQuery from valid parameters; paging is the caller's. */
export function conditionsOf(
  p: ParamValues,
  now: number,
): Omit<GrantQuery, 'page' | 'limit' | 'offset' | 'size' | 'facets'> {
  const search = searchOf(p);
  const words = search === null ? [] : positiveWords(search);
  const orNull = <T>(value: unknown): T | null => (value === undefined ? null : (value as T));
  return {
    search,
    words,
    typos: (p.typos as TypoMode | undefined) ?? 'off',
    matching: (p.matching as MatchingMode | undefined) ?? 'all',
    synonyms: (p.synonyms as boolean | undefined) ?? true,
    funderTypes: (p.funderType as FunderType[] | undefined) ?? [],
    fundingTypes: (p.fundingType as FundingType[] | undefined) ?? [],
    provinces: (p.eligibleProvinces as Province[] | undefined) ?? [],
    beneficiaries: (p.targetBeneficiaries as Beneficiary[] | undefined) ?? [],
    currencies: (p.currency as Currency[] | undefined) ?? [],
    complexities: (p.applicationComplexity as Complexity[] | undefined) ?? [],
    sdgs: (p.sdgAlignment as Sdg[] | undefined) ?? [],
    statuses: (p.status as GrantStatus[] | undefined) ?? [],
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
 * `now` is the request time in epoch milliseconds, from the app's clock: what `open` and `status` compare to.
 * With `cursor`, the query is a cursor page: `*` the first, otherwise the page the cursor leads to
 * after its place (a cursor of another query is a 400).
 */
export function parseGrantQuery(query: Map<string, string[]>, now: number = Date.now()): GrantQuery {
  return parseGrantSearch(query, now).query;
}

/** A GET /grants request: its GrantQuery (parseGrantQuery) and what to highlight in the grants it returns. */
interface GrantSearchRequest {
  query: GrantQuery;
  highlight: HighlightSpec | null;
}

/**
 * Validates GET /grants parameters (every problem listed): the GrantQuery of parseGrantQuery, and the highlights asked.
 */
export function parseGrantSearch(query: Map<string, string[]>, now: number = Date.now()): GrantSearchRequest {
  const p = validateParams(query);
  return { query: grantQueryOf(p, now), highlight: highlightOf(p) };
}

function grantQueryOf(p: ParamValues, now: number): GrantQuery {
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

/**
 * Validates GET /grants/export parameters and translates them into a GrantQuery (no paging, no facets) and a format.
 */
export function parseExportQuery(
  query: Map<string, string[]>,
  now: number = Date.now(),
): { query: GrantQuery; format: ExportFormat } {
  const p = validateExportParams(query);
  return {
    query: { ...conditionsOf(p, now), facets: [], page: 1, limit: MAX_LIMIT, offset: 0, size: MAX_LIMIT, cursor: null },
    format: (p.format as ExportFormat | undefined) ?? 'ndjson',
  };
}

const validateSimilarParams = paramValidator(SIMILAR_PARAMS, filterCheck);

/**
 * Validates GET /grants/:id/similar parameters and translates them into a GrantQuery: the filters and fields, one page
 * of `limit`.
 */
export function parseSimilarQuery(query: Map<string, string[]>, now: number = Date.now()): GrantQuery {
  return parseSimilarSearch(query, now).query;
}

/**
 * A GET /grants/:id/similar request: its GrantQuery (parseSimilarQuery) and what to highlight in the grants it returns.
 */
export function parseSimilarSearch(query: Map<string, string[]>, now: number = Date.now()): GrantSearchRequest {
  const p = validateSimilarParams(query);
  const limit = (p.limit as number | undefined) ?? SIMILAR_DEFAULT_LIMIT;
  return {
    query: { ...conditionsOf(p, now), facets: [], page: 1, limit, offset: 0, size: limit, cursor: null },
    highlight: highlightOf(p),
  };
}

/**
 * An alert's `query`: the filter parameters of GET /grants, with the same names, meanings and
 * validation (the same specs); paging, sort, facets, fields, cursor and highlights do not apply.
 */
const { sort: _sort, fields: _fields, format: _format, ...alertFilters } = GRANT_EXPORT_PARAMS;
export const ALERT_QUERY_PARAMS: ParamSpecs = alertFilters;
/** The GET /grants parameters an alert's query refuses by name. */
export const NOT_ALERT_PARAMS = [
  'page',
  'limit',
  'cursor',
  'facets',
  'fields',
  'sort',
  'highlight',
  'highlightPreTag',
  'highlightPostTag',
  'crop',
] as const;
const validateAlertParams = paramValidator(ALERT_QUERY_PARAMS, filterCheck);

/**
 * Validates an alert query given as parameters (every problem listed) and translates it into conditions, `now` left to
 * the matcher.
 */
export function parseAlertConditions(query: Map<string, string[]>): GrantConditions {
  const { sort: _s, fields: _f, ...conditions } = conditionsOf(validateAlertParams(query), 0);
  return conditions;
}
