// The checks a key's restrictions add to a request (src/subscriptions/keyRestrictions.ts): where it
// comes from (the key's origins and IP ranges, 403) right after authentication, and what it asks
// for (the key's scopes, 403) beside the feature check. The client address is the connection's,
// or, only behind a proxy TRUST_PROXY names, the one that proxy put in X-Forwarded-For.
import type { Middleware, ParameterizedContext } from 'koa';
import proxyaddr from 'proxy-addr';
import { hasScope, inRanges, type Scope } from '../../subscriptions/keyRestrictions.js';
import { CORS_ANSWER_HEADERS, CORS_EXPOSED_HEADERS, deploymentAllows } from './cors.js';
import { ApiError } from '../errors.js';
import { READ_METHODS, type RouteSpec } from '../routeTable.js';
import type { AppState } from '../state.js';

/** The client address of a request: the peer, or the first address before the trusted proxies in X-Forwarded-For. */
export function clientAddress(trustProxy: readonly string[]): (ctx: ParameterizedContext<AppState>) => string {
  const trusted = proxyaddr.compile([...trustProxy]);
  return (ctx) => (trustProxy.length === 0 ? (ctx.req.socket.remoteAddress ?? '') : proxyaddr(ctx.req, trusted));
}

/**
 * The scope a route needs for a method: its write scope for anything but GET and HEAD; null: none (each MCP tool checks
 * its own).
 */
export function scopeFor(route: RouteSpec, method: string): Scope | null {
  return (READ_METHODS as readonly string[]).includes(method) ? route.scope : (route.writeScope ?? route.scope);
}

/** The refusal of a call outside the key's scopes (`what`: this endpoint, the tool x). */
export const scopeNotAllowed = (scope: Scope, what = 'this endpoint'): ApiError =>
  new ApiError(
    403,
    'SCOPE_NOT_ALLOWED',
    `This API key lacks the "${scope}" scope needed by ${what}; use a key with that scope, or create one ` +
      `with it (POST /keys).`,
  );

/**
 * The key's origins and IP ranges, and the CORS answer for the key. A browser request (it carries
 * Origin) from an origin the key lists is answered for that origin, whatever CORS_ORIGINS says;
 * from one it does not list it is refused and gets no CORS headers, so the page cannot read the
 * answer either. A key that lists no origins is answered as CORS_ORIGINS says (an origin only
 * another key lists gets no CORS headers). A request from an address outside the key's ranges is
 * refused. Sets the client address for the layers after (the audit log).
 */
export function keyPlace(trustProxy: readonly string[], corsOrigins: readonly string[] = []): Middleware<AppState> {
  const addressOf = clientAddress(trustProxy);
  const deployment = deploymentAllows(corsOrigins);
  const withoutCors = (ctx: ParameterizedContext<AppState>) => {
    for (const name of CORS_ANSWER_HEADERS) ctx.remove(name);
  };
  return function keyPlace(ctx, next) {
    const { restrictions } = ctx.state.caller!;
    // An address is at most 45 characters; a longer one (a forwarded header's garbage) is bounded.
    const address = addressOf(ctx).slice(0, 64);
    ctx.state.clientAddress = address;
    const origin = ctx.get('Origin');
    if (origin !== '' && restrictions.origins !== null) {
      if (!restrictions.origins.includes(origin)) {
        withoutCors(ctx);
        throw new ApiError(
          403,
          'ORIGIN_NOT_ALLOWED',
          "This API key may not be used from this web page's origin; the key lists the origins it may be used from.",
        );
      }
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(','));
      ctx.vary('Origin');
    } else if (origin !== '' && !deployment(origin)) {
      withoutCors(ctx);
    }
    if (restrictions.ips !== null && !inRanges(address, restrictions.ips)) {
      throw new ApiError(
        403,
        'IP_NOT_ALLOWED',
        `This API key may not be used from the address ${address}; the key lists the IP ranges it may be used from.`,
      );
    }
    return next();
  };
}

/** The route's scope for this method, if the key lacks it: 403 SCOPE_NOT_ALLOWED naming it. */
export function scopeGuard(): Middleware<AppState> {
  return function scopeGuard(ctx, next) {
    const scope = scopeFor(ctx.state.route!, ctx.method);
    if (scope !== null && !hasScope(ctx.state.caller!.restrictions, scope)) throw scopeNotAllowed(scope);
    return next();
  };
}
