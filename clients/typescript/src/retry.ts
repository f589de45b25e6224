// Retries of answers the API asks to be retried (429 RATE_LIMITED or QUOTA_EXCEEDED, 503
// SERVICE_UNAVAILABLE), waiting what Retry-After says, within a bound: a number of attempts and a
// total wait. A wait longer than what is left of the bound is not waited: the answer is returned
// (and becomes a GrantsApiError), so a monthly quota's Retry-After of days fails at once.

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 = never retry). */
  maxAttempts?: number;
  /** The most time spent waiting between attempts, over all retries of one call (default 30 000 ms). */
  maxTotalWaitMs?: number;
  /**
   * The wait before the first retry when the answer has no usable Retry-After, doubled for each further retry (default
   * 500 ms).
   */
  baseDelayMs?: number;
  /** Told before each wait (for logs or metrics). */
  onRetry?: (retry: RetryInfo) => void;
}

export interface RetryInfo {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  status: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  method: string;
  url: string;
}

export const RETRY_DEFAULTS = { maxAttempts: 4, maxTotalWaitMs: 30_000, baseDelayMs: 500 } as const;

type Fetch = (request: Request) => Promise<Response>;
type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Retry-After (delay-seconds or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Whether an answer may be retried. 429 means the request was refused before it was processed,
 * so any method may be sent again. 503 may come after a request started: it is retried for methods
 * that are safe to repeat, for a POST that carries an Idempotency-Key (the API replays it), and for
 * the CommonGrants search, a POST that only reads.
 */
export function isRetryable(request: Request, status: number): boolean {
  if (status === 429) return true;
  if (status !== 503) return false;
  return (
    ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(request.method) ||
    request.headers.has('idempotency-key') ||
    new URL(request.url).pathname.endsWith('/common-grants/opportunities/search')
  );
}

const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A fetch that retries as RetryOptions says; `options === false` gives `fetchImpl` unchanged. */
export function retryingFetch(
  fetchImpl: Fetch,
  options: RetryOptions | false = {},
  sleep: Sleep = abortableSleep,
): Fetch {
  if (options === false) return fetchImpl;
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts));
  const maxTotalWaitMs = Math.max(0, options.maxTotalWaitMs ?? RETRY_DEFAULTS.maxTotalWaitMs);
  const baseDelayMs = Math.max(0, options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs);
  return async (request) => {
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      // A request's body can be read once: each attempt but the last sends a copy.
      const response = await fetchImpl(attempt < maxAttempts ? request.clone() : request);
      if (attempt >= maxAttempts || !isRetryable(request, response.status)) return response;
      const delayMs = retryAfterMs(response.headers.get('retry-after')) ?? baseDelayMs * 2 ** (attempt - 1);
      if (waited + delayMs > maxTotalWaitMs) return response;
      await response.body?.cancel().catch(() => {});
      options.onRetry?.({ attempt, status: response.status, delayMs, method: request.method, url: request.url });
      await sleep(delayMs, request.signal);
      waited += delayMs;
    }
  };
}
