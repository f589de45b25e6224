// Errors are values with a code: thrown anywhere, rendered once by the error middleware. The core
// throws domain failures (src/failures.ts); this module alone decides how each one answers.
import type { Middleware } from 'koa';
import {
  InvalidBodyError,
  InvalidInputError,
  NotFoundError,
  ServiceUnavailableError,
  SyncExpiredError,
  type ErrorDetail,
} from '../failures.js';
import type { Logger } from '../log.js';
import { describeError } from '../log.js';
import { commonGrantsErrorBody, errorBody } from './envelope.js';
import { outcomeOf } from './requestOutcome.js';
import { isCommonGrantsPath } from './routeTable.js';
import type { AppState } from './state.js';

export type { ErrorDetail } from '../failures.js';

/**
 * Every error code the server sends and its HTTP status (those Node's parser answers before the
 * app, in server.ts, included). An ApiError's status must be its code's.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  SUBSCRIPTION_INACTIVE: 403,
  FEATURE_NOT_AVAILABLE: 403,
  SCOPE_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  IP_NOT_ALLOWED: 403,
  KEY_RESTRICTIONS_EXCEEDED: 403,
  NOT_FOUND: 404,
  ALERT_LIMIT_REACHED: 403,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_KEY_REUSED: 409,
  LAST_UNRESTRICTED_KEY: 409,
  SYNC_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  REQUEST_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

/** What each code means for the partner, one line (the OpenAPI document lists them by status). */
export const ERROR_MEANING: Record<keyof typeof ERROR_STATUS, string> = {
  VALIDATION_ERROR: 'a query parameter or body field is invalid or unknown; error.details lists every problem',
  BAD_REQUEST:
    'the HTTP request itself is malformed (refused before its method is read), or carries more than one ' +
    '`Authorization` header',
  UNAUTHORIZED:
    'no key, an Authorization header that is not `Bearer <key>`, or a key that is unknown, revoked or expired',
  SUBSCRIPTION_INACTIVE: 'the subscription is suspended (grant endpoints) or cancelled (everything)',
  FEATURE_NOT_AVAILABLE: "the subscription's feature for this endpoint is switched off",
  SCOPE_NOT_ALLOWED: "the key's scopes do not include the one this endpoint (or MCP tool) needs; the message names it",
  ORIGIN_NOT_ALLOWED: 'a browser request (with an `Origin` header) from an origin the key does not list',
  IP_NOT_ALLOWED: "a request from an address outside the key's IP ranges",
  KEY_RESTRICTIONS_EXCEEDED: 'the key to create or revoke would have rights the calling key lacks',
  NOT_FOUND: 'no grant has this id, or no endpoint has this path',
  ALERT_LIMIT_REACHED: 'the subscription already holds as many alerts as its tier allows',
  METHOD_NOT_ALLOWED: 'a method the path does not take (the `Allow` header lists those it takes)',
  NOT_ACCEPTABLE: 'POST /mcp without `Accept: application/json, text/event-stream`, as MCP clients send it',
  IDEMPOTENCY_KEY_REUSED: 'the Idempotency-Key was used in the last 24 hours with another request',
  LAST_UNRESTRICTED_KEY:
    'the key is the last unrestricted key of the subscription: it cannot be revoked through the API',
  PAYLOAD_TOO_LARGE: 'the JSON body is larger than 16 KB',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not sent as application/json',
  REQUEST_TIMEOUT: 'the request was not received in time; the connection is closed',
  SYNC_EXPIRED: 'the since token is older than the changes kept: start again from since=0',
  URI_TOO_LONG: 'the URL is longer than 8,192 bytes',
  RATE_LIMITED: 'the per-second rate is used up; retry after Retry-After',
  QUOTA_EXCEEDED: 'the monthly allowance is used up; Retry-After tells when it resets',
  REQUEST_TOO_LARGE: 'the request line and headers are too large; the connection is closed',
  INTERNAL_ERROR: 'an unexpected failure; quote the request id',
  SERVICE_UNAVAILABLE:
    'the search engine or a store cannot answer, a search ran past its time budget, or the service is overloaded ' +
    'or starting; retry after Retry-After',
};

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly status: (typeof ERROR_STATUS)[C],
    readonly code: C,
    message: string,
    readonly details?: readonly ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A domain failure's class and the answer it gets. */
interface Translation<E extends Error> {
  type: new (...args: never[]) => E;
  answer(failure: E): ApiError;
}
const translation = <E extends Error>(
  type: new (...args: never[]) => E,
  answer: (failure: E) => ApiError,
): Translation<Error> => ({ type, answer });

/** How each domain failure answers over HTTP: the one place the core's failures get a status and a code. */
const DOMAIN_FAILURES: readonly Translation<Error>[] = [
  translation(
    InvalidBodyError,
    (failure) =>
      new ApiError(
        400,
        'VALIDATION_ERROR',
        failure.details.length === 1
          ? `Invalid field "${failure.details[0].parameter}" in the body: ${failure.details[0].message}.`
          : `${failure.details.length} fields of the body are invalid; see error.details.`,
        failure.details,
      ),
  ),
  translation(
    InvalidInputError,
    (failure) =>
      new ApiError(
        400,
        'VALIDATION_ERROR',
        failure.details.length === 1
          ? `Invalid query parameter "${failure.details[0].parameter}": ${failure.details[0].message}.`
          : `${failure.details.length} query parameters are invalid; see error.details.`,
        failure.details,
      ),
  ),
  translation(NotFoundError, (failure) => new ApiError(404, 'NOT_FOUND', failure.message)),
  translation(
    SyncExpiredError,
    () =>
      new ApiError(
        410,
        'SYNC_EXPIRED',
        'The changes after this since token are no longer kept; take a fresh copy by starting again from since=0.',
      ),
  ),
  translation(
    ServiceUnavailableError,
    (failure) =>
      new ApiError(
        503,
        'SERVICE_UNAVAILABLE',
        'The service is temporarily unavailable; retry after the delay in Retry-After.',
        undefined,
        {
          'Retry-After': String(failure.retryAfterSeconds),
        },
      ),
  ),
];

/** The answer to a domain failure, or undefined for anything else. */
export function answerTo(thrown: unknown): ApiError | undefined {
  return DOMAIN_FAILURES.find((t) => thrown instanceof t.type)?.answer(thrown as Error);
}

export const notFound = (message = 'No resource exists at this path.') => new NotFoundError(message);

export const validationError = (details: ErrorDetail[]) => new InvalidInputError(details);

/**
 * Renders every error in the envelope, keeping headers set before the throw (Retry-After,
 * rate-limit headers). Unknown errors become INTERNAL_ERROR and are logged with the requestId.
 */
export function errorHandler(log: Logger): Middleware<AppState> {
  return async function errorHandler(ctx, next) {
    try {
      await next();
    } catch (thrown) {
      let error = thrown instanceof ApiError ? thrown : answerTo(thrown);
      if (error === undefined) {
        (ctx.state.log ?? log).error('unhandled error', { requestId: ctx.state.requestId, ...describeError(thrown) });
        error = new ApiError(
          500,
          'INTERNAL_ERROR',
          `An internal error occurred; quote request id ${ctx.state.requestId} when reporting it.`,
        );
      } else if (thrown instanceof ServiceUnavailableError) {
        outcomeOf(ctx.state).failure = thrown;
        (ctx.state.log ?? log).warn('dependency unavailable', {
          requestId: ctx.state.requestId,
          reason: thrown.message,
        });
      }
      outcomeOf(ctx.state).errorCode = error.code;
      ctx.status = error.status;
      ctx.set(error.headers);
      if (error.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="grants-api"');
      const commonGrants =
        ctx.state.route === undefined ? isCommonGrantsPath(ctx.path) : ctx.state.route.protocol === 'commonGrants';
      ctx.body = commonGrants
        ? commonGrantsErrorBody(ctx.state.requestId, error.status, error)
        : errorBody(ctx.state.requestId, error);
    }
  };
}
