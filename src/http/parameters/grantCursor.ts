// The `cursor` of GET /grants: an opaque, URL-safe token (base64url of a small JSON object) that
// carries the place to continue after (the last grant's sort key and id, not a position, so it
// survives a reindex), the number of the page it leads to, and a digest of the query it belongs to.
import { createHash } from 'node:crypto';
import type { GrantQuery, KeysetPosition } from '../../grants/query.js';
import { isPlainSearch } from '../../grants/searchSyntax.js';
import { validationError } from '../errors.js';

/** The value of `cursor` that starts cursor paging. */
export const CURSOR_START = '*';
/** A cursor longer than this was not given out by the API (a title sort key is the longest part). */
export const MAX_CURSOR_LENGTH = 4096;

interface CursorContent {
  /** Format version. */
  v: 1;
  /** binding() of the query. */
  q: string;
  /** The page number the cursor leads to. */
  p: number;
  k: number | string | null;
  i: string;
}

interface DecodedCursor {
  page: number;
  after: KeysetPosition;
}

/**
 * A digest of what a cursor is bound to: the query's conditions, sort and limit (not `fields` or
 * `facets`, which change what each page shows, not which grants it holds), list values as a set.
 */
function binding(query: GrantQuery): string {
  const set = (values: readonly string[]) => [...values].sort();
  const bound = [
    // Plain words as their list, the form cursors without search syntax carry, so those cursors still hold.
    query.search === null ? [] : isPlainSearch(query.search) ? query.words : query.search,
    set(query.funderTypes),
    set(query.fundingTypes),
    set(query.provinces),
    set(query.beneficiaries),
    set(query.currencies),
    set(query.complexities),
    set(query.sdgs),
    query.isRecurring,
    query.amountMin,
    query.amountMax,
    query.open,
    query.deadlineFrom,
    query.deadlineTo,
    query.updatedSince,
    query.sort.key,
    query.sort.descending,
    query.limit,
    // Only when it changes the matches (on, with a search), so cursors given out before typo tolerance existed still
    // hold.
    ...(query.search !== null && query.typos === 'auto' ? [query.typos] : []),
    // Only when asked, so that a cursor given out before the status filter existed still holds.
    ...(query.statuses.length > 0 ? [set(query.statuses)] : []),
    // Only when they change the matches (relaxed, synonyms off, with a search), so cursors given out before they
    // existed still hold.
    ...(query.search !== null && (query.matching ?? 'all') !== 'all' ? [query.matching] : []),
    ...(query.search !== null && query.synonyms === false ? ['synonyms=false'] : []),
  ];
  return createHash('sha256').update(JSON.stringify(bound)).digest('base64url').slice(0, 16);
}

export function encodeCursor(query: GrantQuery, page: number, after: KeysetPosition): string {
  const content: CursorContent = { v: 1, q: binding(query), p: page, k: after.key, i: after.id };
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

const notACursor = () =>
  validationError([
    {
      parameter: 'cursor',
      message:
        'is not a cursor this API gave out; start again with cursor=* (and then send each nextCursor as it comes)',
    },
  ]);

/**
 * The cursor's page and place, checked against the query it is sent with: a cursor of another
 * query (other filters, sort or limit) is a 400, as is anything the API did not give out.
 */
export function decodeCursor(text: string, query: GrantQuery): DecodedCursor {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw notACursor();
  let content: Partial<CursorContent>;
  try {
    content = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    throw notACursor();
  }
  if (content === null || typeof content !== 'object' || content.v !== 1 || typeof content.q !== 'string')
    throw notACursor();
  const { p: page, k: key, i: id } = content;
  if (
    typeof page !== 'number' ||
    !Number.isSafeInteger(page) ||
    page < 2 ||
    typeof id !== 'string' ||
    id.length === 0 ||
    id.length > 200
  )
    throw notACursor();
  const keyFits =
    query.sort.key === 'title'
      ? typeof key === 'string'
      : query.sort.key === 'relevance'
        ? typeof key === 'number' && Number.isFinite(key)
        : key === null || (typeof key === 'number' && Number.isFinite(key));
  if (content.q !== binding(query) || !keyFits) {
    throw validationError([
      {
        parameter: 'cursor',
        message:
          'belongs to another query: send it with the same filters, search, sort and limit as the request that ' +
          'gave it, or start again with cursor=*',
      },
    ]);
  }
  return { page, after: { key: key as number | string | null, id } };
}
