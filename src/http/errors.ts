// Errors are values with a code: thrown anywhere, rendered once by the error middleware.
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { describeError } from '../log.js';
import { errorBody } from './envelope.js';
import type { AppState } from './state.js';

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'SUBSCRIPTION_INACTIVE'
  | 'FEATURE_NOT_AVAILABLE'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'URI_TOO_LONG'
  | 'RATE_LIMITED'
  | 'QUOTA_EXCEEDED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface ErrorDetail {
  parameter: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Thrown by an engine or store when the backing service cannot answer. */
export class ServiceUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
    this.name = 'ServiceUnavailableError';
  }
}

export const notFound = (message = 'No resource exists at this path.') => new ApiError(404, 'NOT_FOUND', message);

export const validationError = (details: ErrorDetail[]) =>
  new ApiError(
    400,
    'VALIDATION_ERROR',
    details.length === 1
      ? `Invalid query parameter "${details[0].parameter}": ${details[0].message}.`
      : `${details.length} query parameters are invalid; see error.details.`,
    details,
  );

/**
 * Renders every error in the envelope, keeping headers set before the throw (Retry-After,
 * rate-limit headers). Unknown errors become INTERNAL_ERROR and are logged with the requestId.
 */
export function errorHandler(log: Logger): Middleware<AppState> {
  return async function errorHandler(ctx, next) {
    try {
      await next();
    } catch (thrown) {
      let error: ApiError;
      if (thrown instanceof ApiError) {
        error = thrown;
      } else if (thrown instanceof ServiceUnavailableError) {
        log.warn('dependency unavailable', { requestId: ctx.state.requestId, reason: thrown.message });
        error = new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry after the delay in Retry-After.', undefined, {
          'Retry-After': String(thrown.retryAfterSeconds),
        });
      } else {
        log.error('unhandled error', { requestId: ctx.state.requestId, ...describeError(thrown) });
        error = new ApiError(500, 'INTERNAL_ERROR', `An internal error occurred; quote request id ${ctx.state.requestId} when reporting it.`);
      }
      ctx.state.errorCode = error.code;
      ctx.status = error.status;
      ctx.set(error.headers);
      if (error.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="grants-api"');
      ctx.body = errorBody(ctx.state.requestId, error);
    }
  };
}
