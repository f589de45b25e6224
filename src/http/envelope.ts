// The response envelope of the specification: success, data, pagination (a paged answer), meta.
// Every answer the server sends is built here: a success by successBody() or successJson(), an
// error by errorBody().
export const API_VERSION = 'v1';

interface Meta {
  timestamp: string;
  requestId: string;
  version: typeof API_VERSION;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  /** Cursor paging only: the next page's cursor, null on the last page. */
  nextCursor?: string | null;
}

/**
 * What a paged answer says of its page: Pagination for the grant lists; the alert, delivery and key lists and the
 * changes feed have fields of their own.
 */
type PageInfo = Pagination | object;

const meta = (requestId: string, now = new Date()): Meta => ({
  timestamp: now.toISOString(),
  requestId,
  version: API_VERSION,
});

export function successBody(requestId: string, data: unknown, pagination?: PageInfo) {
  return pagination === undefined
    ? { success: true, data, meta: meta(requestId) }
    : { success: true, data, pagination, meta: meta(requestId) };
}

/**
 * successBody() already serialised, with `data` given as JSON text (grants as the engine stores
 * them): the same bytes JSON.stringify(successBody(...)) would give, without re-serialising data.
 * `facets` (a grant search that asked for them) follows `pagination`.
 */
export function successJson(
  requestId: string,
  dataJson: string,
  pagination?: PageInfo,
  facets?: unknown,
  suggestion?: unknown,
): string {
  const metaJson = JSON.stringify(meta(requestId));
  if (pagination === undefined) return `{"success":true,"data":${dataJson},"meta":${metaJson}}`;
  const facetsJson = facets === undefined ? '' : `,"facets":${JSON.stringify(facets)}`;
  const suggestionJson = suggestion === undefined ? '' : `,"suggestion":${JSON.stringify(suggestion)}`;
  const pageJson = `"pagination":${JSON.stringify(pagination)}${facetsJson}${suggestionJson}`;
  return `{"success":true,"data":${dataJson},${pageJson},"meta":${metaJson}}`;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The fields of an error as partners see them (an ApiError has them). */
interface ErrorFields {
  code: string;
  message: string;
  details?: unknown;
}

export function errorBody(requestId: string, error: ErrorFields) {
  const body: ErrorFields = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  return { success: false, error: body, meta: meta(requestId) };
}

/**
 * An error on a CommonGrants route: the protocol's Error (`status`, `message`, `errors`: the
 * problems, or the error itself) and the envelope's fields beside them, so that a client of
 * either reads it.
 */
export function commonGrantsErrorBody(requestId: string, status: number, error: ErrorFields) {
  const errors =
    Array.isArray(error.details) && error.details.length > 0
      ? error.details
      : [{ code: error.code, message: error.message }];
  return { status, message: error.message, errors, ...errorBody(requestId, error) };
}

/** A success on a CommonGrants route: the protocol's `status` and `message`, its fields, and the envelope's `meta`. */
export function commonGrantsBody(requestId: string, fields: Record<string, unknown>) {
  return { status: 200, message: 'Success', ...fields, meta: meta(requestId) };
}
