// The scope checks of a key's restrictions (src/subscriptions/keyRestrictions.ts): what a request
// asks for (the key's scopes, 403), beside the feature check. Where it comes from (the key's
// origins and IP ranges) is keyOriginAndIpChecks.ts.
import type { Middleware } from 'koa';
import { hasScope, type Scope } from '../../subscriptions/keyRestrictions.js';
import { ApiError } from '../errors.js';
import { READ_METHODS, type RouteSpec } from '../routeTable.js';
import type { AppState } from '../state.js';

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

/** The route's scope for this method, if the key lacks it: 403 SCOPE_NOT_ALLOWED naming it. */
export function scopeGuard(): Middleware<AppState> {
  return function scopeGuard(ctx, next) {
    const scope = scopeFor(ctx.state.route!, ctx.method);
    if (scope !== null && !hasScope(ctx.state.caller!.restrictions, scope)) throw scopeNotAllowed(scope);
    return next();
  };
}
