// The changes feed as the engines serve it: the compacted change log's entries and state, and the
// opaque `since` token (its codec and its check against the log). Pure: no I/O here.
import { randomBytes } from 'node:crypto';
import { InvalidInputError, SyncExpiredError } from '../failures.js';

/** Where a change log stands, read in the same snapshot as its entries. */
export interface ChangeLogState {
  /** The id of this change log (random, made by its first write); null while nothing was ever recorded. */
  log: string | null;
  /** The last sequence number given out: never goes backwards. */
  counter: number;
  /** Tombstones with a sequence up to this one were dropped (older than the retention); 0 when none was. */
  horizon: number;
}

/** One entry of the feed: a grant at its latest sequence (its served JSON), or a tombstone (grantJson null). */
export interface ChangeEntryJson {
  seq: number;
  id: string;
  deleted: boolean;
  changedAt: string;
  grantJson: string | null;
  /**
   * The fields the grant's latest change updated, as JSON text (grants/history.ts FieldChange[]); null when it added or
   * removed the grant, or was recorded before changes were kept.
   */
  changesJson: string | null;
}

export interface ChangesPage {
  state: ChangeLogState;
  /** Entries with a sequence after the one asked, oldest first: at most limit + 1 (one more says there are more). */
  entries: ChangeEntryJson[];
}

/** A decoded `since`: null for "0", the beginning. */
interface SinceToken {
  log: string;
  seq: number;
}

/** The longest token accepted (a real one is about 50 characters). */
export const MAX_SINCE_LENGTH = 200;
const TOKEN_VERSION = 1;
const LOG_ID = /^[a-z0-9]{1,40}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The token of a position in a log: base64url of a versioned JSON structure. */
export function encodeSince(log: string, seq: number): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, l: log, s: seq }), 'utf8').toString('base64url');
}

const malformed = () =>
  new InvalidInputError([
    {
      parameter: 'since',
      message: 'is not a token this API gave out: use 0, or the pagination.nextSince of an earlier answer, as sent',
    },
  ]);

/** Decodes a `since` ("0", or a token encodeSince made); throws InvalidInputError for anything else. */
export function decodeSince(text: string): SinceToken | null {
  if (text === '0') return null;
  if (text.length > MAX_SINCE_LENGTH || !BASE64URL.test(text)) throw malformed();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed();
  const { v, l, s, ...rest } = parsed as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || v !== TOKEN_VERSION || typeof l !== 'string' || !LOG_ID.test(l))
    throw malformed();
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 1) throw malformed();
  // The exact bytes encodeSince would give: no second spelling of one position.
  if (encodeSince(l, s) !== text) throw malformed();
  return { log: l, seq: s };
}

/**
 * Checks a decoded `since` against the log it is read from: a token of another log (the catalog was
 * rebuilt from nothing) or older than the horizon of dropped tombstones is expired; one beyond the
 * log's counter was never given out by it.
 */
export function checkSince(since: SinceToken | null, state: ChangeLogState): void {
  if (since === null) return;
  if (since.log !== state.log || since.seq < state.horizon) {
    throw new SyncExpiredError('the changes after this position are no longer kept');
  }
  if (since.seq > state.counter) {
    throw new InvalidInputError([
      {
        parameter: 'since',
        message: 'names a position this catalog has not reached: use the pagination.nextSince of an earlier answer',
      },
    ]);
  }
}

/** A new change log id: the moment in base 36 and 40 random bits in hex. */
export const newChangeLogId = (): string => `${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;
