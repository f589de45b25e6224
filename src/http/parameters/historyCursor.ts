// The `cursor` of GET /grants/{id}/history: an opaque, URL-safe token (base64url of a small JSON
// object) that carries the sequence of the last version served and a digest of the grant it
// belongs to. Pure.
import { createHash } from 'node:crypto';
import { validationError } from '../errors.js';

/** A cursor longer than this was not given out by the API (a real one is about 50 characters). */
export const MAX_HISTORY_CURSOR_LENGTH = 200;

interface HistoryCursorContent {
  /** Format version. */
  v: 1;
  /** The digest of the grant's id. */
  g: string;
  /** The sequence of the last version served: the next page holds older ones. */
  s: number;
}

const grantDigest = (id: string): string => createHash('sha256').update(id).digest('base64url').slice(0, 12);

export function encodeHistoryCursor(id: string, seq: number): string {
  const content: HistoryCursorContent = { v: 1, g: grantDigest(id), s: seq };
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

const notACursor = (why: string) => validationError([{ parameter: 'cursor', message: why }]);

/**
 * The sequence a cursor continues before; a 400 naming `cursor` for anything the API did not give out for this grant.
 */
export function decodeHistoryCursor(text: string, id: string): number {
  const foreign =
    'is not a cursor this API gave out: leave it out for the newest versions, then send each ' +
    'pagination.nextCursor as it comes';
  if (text.length > MAX_HISTORY_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw notACursor(foreign);
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw notACursor(foreign);
  }
  if (content === null || typeof content !== 'object' || Array.isArray(content)) throw notACursor(foreign);
  const { v, g, s, ...rest } = content as Record<string, unknown>;
  if (
    Object.keys(rest).length > 0 ||
    v !== 1 ||
    typeof g !== 'string' ||
    typeof s !== 'number' ||
    !Number.isSafeInteger(s) ||
    s < 1
  )
    throw notACursor(foreign);
  if (g !== grantDigest(id))
    throw notACursor("belongs to another grant's history: send it with the grant it came from");
  return s;
}
