// GET /grants/suggest parameters: the typed text, how many completions and of which kinds, and
// every filter of GET /grants; translated into the engine-neutral SuggestRequest
// (search/suggestSearch.ts).
import type { GrantQuery } from '../../grants/query.js';
import { positiveWords } from '../../grants/searchSyntax.js';
import {
  DEFAULT_SUGGEST_LIMIT,
  MAX_SUGGEST_LENGTH,
  MAX_SUGGEST_LIMIT,
  SUGGEST_TYPES,
  suggestInput,
  type SuggestTypes,
} from '../../grants/suggest.js';
import type { SuggestRequest } from '../../search/suggestSearch.js';
import type { ErrorDetail } from '../errors.js';
import { conditionsOf, GRANT_SEARCH_PARAMS } from './grantSearchParams.js';
import { paramValidator, type ParamSpecs, type ParamValues } from './queryParams.js';

/**
 * The filters of GET /grants: every parameter but the search, its modes, the order, the paging, the facets and the
 * fields.
 */
const {
  search: _search,
  typos: _typos,
  matching: _matching,
  synonyms: _synonyms,
  sort: _sort,
  facets: _facets,
  fields: _fields,
  page: _page,
  limit: _limit,
  cursor: _cursor,
  ...filters
} = GRANT_SEARCH_PARAMS;

export const GRANT_SUGGEST_PARAMS: ParamSpecs = {
  q: {
    kind: 'string',
    maxLength: MAX_SUGGEST_LENGTH,
    message: `must be 1 to ${MAX_SUGGEST_LENGTH} characters`,
    required: true,
    description:
      'The text typed so far (required, 1 to 100 characters). Its last word is completed: catalog words starting ' +
      'with it, case and accents ignored, and from 5 letters words whose beginning is one typo away (two from 9 ' +
      'letters; the first letter as typed), as `typos=auto` counts typos. The words before it narrow the grants ' +
      'as `search` would (every word, as typed); a word completion keeps them (`text` is the typed text with its ' +
      'last word completed), a title or funder completion is the whole name. Anything typed after the last word ' +
      '(spaces, punctuation) is left out.',
    example: 'clean ener',
  },
  limit: {
    kind: 'integer',
    min: 1,
    max: MAX_SUGGEST_LIMIT,
    default: DEFAULT_SUGGEST_LIMIT,
    message: `must be an integer from 1 to ${MAX_SUGGEST_LIMIT}`,
    description: `How many completions at most (1 to ${MAX_SUGGEST_LIMIT}, default ${DEFAULT_SUGGEST_LIMIT}).`,
    example: 5,
  },
  type: {
    kind: 'enumArray',
    values: SUGGEST_TYPES,
    description: 'The kinds of completion: catalog words, grant titles, funder names (all three by default).',
    example: ['words', 'funders'],
  },
  ...filters,
};

/** q is not empty (a missing q is refused as required). */
function suggestCheck(p: ParamValues): ErrorDetail[] {
  return p.q === '' ? [{ parameter: 'q', message: `must be 1 to ${MAX_SUGGEST_LENGTH} characters` }] : [];
}

const validateSuggestParams = paramValidator(GRANT_SUGGEST_PARAMS, suggestCheck);

/**
 * Validates GET /grants/suggest parameters (every problem listed) and translates them into a
 * SuggestRequest; null when the text holds no word to complete. The context (the words before the
 * last) is a search of every word as typed (no typos, no synonyms); with no word to find (only
 * exclusions or symbols) it sets no condition.
 */
export function parseSuggestQuery(query: Map<string, string[]>, now: number = Date.now()): SuggestRequest | null {
  const p = validateSuggestParams(query);
  const input = suggestInput(p.q as string);
  if (input === null) return null;
  const conditions = conditionsOf({ ...p, search: input.before }, now);
  const search = conditions.search !== null && positiveWords(conditions.search).length > 0 ? conditions.search : null;
  const grantQuery: GrantQuery = {
    ...conditions,
    search,
    words: search === null ? [] : conditions.words,
    typos: 'off',
    matching: 'all',
    synonyms: false,
    sort: { key: 'deadline', descending: false },
    fields: null,
    facets: [],
    page: 1,
    limit: 0,
    offset: 0,
    size: 0,
    cursor: null,
  };
  const types = (p.type as SuggestTypes[] | undefined) ?? [];
  return {
    input,
    query: grantQuery,
    limit: (p.limit as number | undefined) ?? DEFAULT_SUGGEST_LIMIT,
    types: types.length === 0 ? SUGGEST_TYPES : SUGGEST_TYPES.filter((type) => types.includes(type)),
  };
}
