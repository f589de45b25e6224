// One webhook attempt: a POST to the address the target check resolved (never a second lookup),
// with the Standard Webhooks headers, no redirect followed, at most 64 KB of the answer read,
// within a time budget. Any 2xx is a success; anything else is a failed attempt with its cause.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AttemptResult } from './model.js';
import { checkTarget, TargetRefused, type Resolver, type TargetPolicy } from './targets.js';

export const MAX_ANSWER_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface PostOptions extends TargetPolicy {
  timeoutMs: number;
  resolve?: Resolver;
  clock?: () => Date;
}

/** Sends one attempt; never throws: every failure is an AttemptResult with ok false. */
export async function postWebhook(request: WebhookRequest, options: PostOptions): Promise<AttemptResult> {
  const clock = options.clock ?? (() => new Date());
  const at = clock().toISOString();
  const started = performance.now();
  const result = (ok: boolean, statusCode: number | null, error: string | null): AttemptResult => ({
    at,
    ok,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let target;
  try {
    target = await checkTarget(request.url, options, options.resolve);
  } catch (error) {
    return result(false, null, error instanceof TargetRefused ? `refused: ${error.message}` : 'refused: the target could not be checked');
  }
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (value: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const req = client.request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: { ...request.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(request.body)), 'user-agent': 'grants-api-webhooks/1' },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          finish(result(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : `answered ${status}`));
        };
        res.once('end', done);
        res.once('close', done);
        res.once('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish(result(false, null, `no answer within ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    req.once('error', (error: NodeJS.ErrnoException) => finish(result(false, null, describeNetworkError(error))));
    req.end(request.body);
  });
}

/** A network failure as one short sentence, without internals. */
function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (error.code?.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(error.message)) return 'TLS error';
      return `network error${error.code ? ` (${error.code})` : ''}`;
  }
}
