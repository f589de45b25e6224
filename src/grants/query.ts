// GET /grants parameters → GrantQuery, the engine-neutral description of a search.
import type { ErrorDetail } from '../http/errors.js';
import { foldText } from './folding.js';
import { paramValidator, type ParamSpecs, type ParamValues } from '../http/queryParams.js';
import { FUNDER_TYPES, FUNDING_TYPES, PROVINCES, type FunderType, type FundingType, type Province } from './schema.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Offset paging reaches this many matches (Elasticsearch's max_result_window). */
export const MAX_WINDOW = 10_000;
export const MAX_SEARCH_LENGTH = 200;

export interface GrantQuery {
  /** The words of the search text (letters and digits), in order; empty for no text condition. */
  words: string[];
  funderTypes: FunderType[];
  fundingTypes: FundingType[];
  provinces: Province[];
  amountMin: number | null;
  amountMax: number | null;
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
  return {
    words: searchWords(((p.search as string | undefined) ?? '').trim()),
    funderTypes: distinct(p.funderType as FunderType[] | undefined),
    fundingTypes: distinct(p.fundingType as FundingType[] | undefined),
    provinces: distinct(p.eligibleProvinces as Province[] | undefined),
    amountMin,
    amountMax,
    page,
    limit,
    offset,
    size: Math.min(limit, MAX_WINDOW - offset),
  };
}
