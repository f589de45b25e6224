// GrantsApiError: an answer that was not a success, read from the API's error envelope
// { success: false, error: { code, message, details? }, meta: { requestId, ... } }.
import type { ErrorCode, ErrorDetail } from './types.js';

export class GrantsApiError extends Error {
  override readonly name = 'GrantsApiError';
  /** The HTTP status (400, 401, 403, 404, 410, 429, 503, ...). */
  readonly status: number;
  /**
   * The API's error code (VALIDATION_ERROR, NOT_FOUND, RATE_LIMITED, ...): what to do depends on it alone. `HTTP_ERROR`
   * when the answer was not the API's envelope (e.g. a proxy's page).
   */
  readonly code: ErrorCode | 'HTTP_ERROR' | (string & {});
  /** The id of the request (meta.requestId, else the X-Request-Id header): quote it when reporting a problem. */
  readonly requestId: string | null;
  /** With VALIDATION_ERROR: every invalid parameter and why. Empty otherwise. */
  readonly details: readonly ErrorDetail[];
  /** The Retry-After header in seconds, when the answer had one (429, 503). */
  readonly retryAfterSeconds: number | null;
  /** The parsed body as received. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId: string | null;
    details?: readonly ErrorDetail[];
    retryAfterSeconds?: number | null;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.body = init.body;
  }

  /** The error of a response that was not a success; `body` is its parsed JSON (or text) when already read. */
  static fromResponse(response: Response, body: unknown): GrantsApiError {
    const envelope = isEnvelope(body) ? body : null;
    const retryAfter = Number(response.headers.get('retry-after'));
    return new GrantsApiError({
      status: response.status,
      code: envelope?.error.code ?? 'HTTP_ERROR',
      message: envelope?.error.message ?? `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId: envelope?.meta?.requestId ?? response.headers.get('x-request-id'),
      details: Array.isArray(envelope?.error.details) ? envelope.error.details : [],
      retryAfterSeconds: response.headers.has('retry-after') && Number.isFinite(retryAfter) ? retryAfter : null,
      body,
    });
  }
}

interface LooseEnvelope {
  success: false;
  error: { code: string; message: string; details?: ErrorDetail[] };
  meta?: { requestId?: string };
}

function isEnvelope(body: unknown): body is LooseEnvelope {
  if (typeof body !== 'object' || body === null) return false;
  const { success, error } = body as { success?: unknown; error?: { code?: unknown; message?: unknown } };
  return (
    success === false &&
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
  );
}

/** The data of an openapi-fetch result, or a GrantsApiError for an answer that was not a success. */
export async function unwrap<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok && data !== undefined) return data;
  throw GrantsApiError.fromResponse(response, error);
}
