// Browser access to the partner API (CORS), with @koa/cors: the origins of CORS_ORIGINS ("*" for
// any) may call /external/v1/* from a page, and so may the origins a working key lists (a partner
// sets them on its keys, POST /keys). A preflight carries no key: it is answered (204, before
// authentication, the limits and the usage log) for an origin of either list. Which answers a page
// may then read is decided per key once the key is known (keyOriginAndIpChecks.ts): a key that lists origins
// is answered for those alone, a key that lists none as CORS_ORIGINS says. A request from any
// other origin gets no CORS headers, and a browser then refuses to hand the answer to the page.
import koaCors from '@koa/cors';
import type { Middleware } from 'koa';
import { RATE_LIMIT_HEADER_NAMES } from '../../ratelimit/headers.js';
import type { Awaitable } from '../../subscriptions/port.js';
import { isApiPath } from '../routeTable.js';
import type { AppState } from '../state.js';

/** How long a browser may reuse a preflight's answer, in seconds. */
const CORS_MAX_AGE_SECONDS = 600;

/** The response headers a page may read: the request id, the rate-limit headers, Retry-After and the ETag. */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, 'Retry-After', 'ETag'] as const;

/** The CORS headers of an actual answer (what a refusal takes away). */
export const CORS_ANSWER_HEADERS = [
  'Access-Control-Allow-Origin',
  'Access-Control-Allow-Credentials',
  'Access-Control-Expose-Headers',
] as const;

/** Whether the deployment's own list (CORS_ORIGINS) lets `origin` in. */
export function deploymentAllows(allowedOrigins: readonly string[]): (origin: string) => boolean {
  const anyOrigin = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins);
  return (origin) => anyOrigin || allowed.has(origin);
}

/** The origins some working key lists (SubscriptionRecords.keyOrigins). */
type KeyOrigins = () => Awaitable<ReadonlySet<string>>;

export function cors(allowedOrigins: readonly string[], keyOrigins?: KeyOrigins): Middleware<AppState> {
  const anyOrigin = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins);
  /** Whether a key lists `origin`; a store that cannot answer lets nothing more in. */
  const listedByKey = async (origin: string): Promise<boolean> => {
    if (keyOrigins === undefined) return false;
    try {
      return (await keyOrigins()).has(origin);
    } catch {
      return false;
    }
  };
  const answer = koaCors({
    // '' (no origin) makes @koa/cors add no CORS header and pass the request on.
    origin: async (ctx) => {
      if (anyOrigin) return '*';
      const origin = ctx.get('Origin');
      if (origin === '') return '';
      return allowed.has(origin) || (await listedByKey(origin)) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'If-None-Match', 'Content-Type', 'Idempotency-Key'],
    exposeHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
  }) as unknown as Middleware<AppState>;
  return async function corsLayer(ctx, next) {
    if (!isApiPath(ctx.path)) return next();
    // Without a list of its own, the deployment answers only pages whose origin a key lists.
    if (allowed.size === 0 && (keyOrigins === undefined || ctx.get('Origin') === '')) return next();
    return answer(ctx, next);
  };
}
