// Browser access to the partner API (CORS), with @koa/cors: only the origins of CORS_ORIGINS ("*"
// for any) may call /external/v1/* from a page. A preflight from an allowed origin is answered
// here (204), before authentication, the limits and the usage log; a request from any other
// origin gets no CORS headers, and a browser then refuses to hand the answer to the page.
import koaCors from '@koa/cors';
import type { Middleware } from 'koa';
import { RATE_LIMIT_HEADER_NAMES } from '../ratelimit/headers.js';
import { isApiPath } from './routeTable.js';
import type { AppState } from './state.js';

/** How long a browser may reuse a preflight's answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/** The response headers a page may read: the request id, the rate-limit headers, Retry-After and the ETag. */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, 'Retry-After', 'ETag'] as const;

export function cors(allowedOrigins: readonly string[]): Middleware<AppState> {
  const anyOrigin = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins);
  const answer = koaCors({
    // '' (no origin) makes @koa/cors add no CORS header and pass the request on.
    origin: (ctx) => (anyOrigin ? '*' : allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'If-None-Match', 'Content-Type', 'Idempotency-Key'],
    exposeHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
  }) as unknown as Middleware<AppState>;
  return async function corsLayer(ctx, next) {
    if (allowed.size === 0 || !isApiPath(ctx.path)) return next();
    return answer(ctx, next);
  };
}
