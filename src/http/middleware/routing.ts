// The route table (src/http/routeTable.ts) served through @koa/router: the three places of the
// pipeline where a request meets its route. A request is routed once, when it is classified
// (before the limits and the usage log, which must know its route); the route guard then refuses
// an unknown path or a method the route does not take, and dispatch calls the route's handler.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError, notFound } from '../errors.js';
import { API_PREFIX, isApiPath, ROUTES, type RouteName, type RouteSpec } from '../routeTable.js';
import type { AppState } from '../state.js';

export type Handlers = Partial<Record<RouteName, Middleware<AppState>>>;

/**
 * A path outside the API prefix is a 404 at once. Under it, the router names the route: each
 * route of the table is registered for every method (the method is judged later, by the route
 * guard), and the route it takes puts itself and its path parameters (percent-decoded, a malformed
 * escape kept as sent) on ctx.state. A path no route takes leaves ctx.state.route undefined.
 * Paths are compared as sent and case-sensitively, one trailing slash tolerated; a literal
 * segment goes before a parameter (/grants/filters before /grants/:id, the most specific route).
 */
export function classifyRoute(): Middleware<AppState> {
  const router = new Router<AppState>({ prefix: API_PREFIX, sensitive: true, exclusive: 'specificity' });
  for (const spec of ROUTES) {
    const route: RouteSpec = spec;
    router.all(route.name, route.template, function classified(ctx, next) {
      ctx.state.route = route;
      ctx.state.params = ctx.params;
      return next();
    });
  }
  const routes = router.routes() as Middleware<AppState>;
  return function classify(ctx, next) {
    if (!isApiPath(ctx.path)) throw notFound(`No endpoint exists at this path; the API lives under ${API_PREFIX}.`);
    return routes(ctx, next);
  };
}

/** No route for the path: 404. A method the route does not take: 405 with the route's methods in Allow. */
export function routeGuard(): Middleware<AppState> {
  return function routeGuard(ctx, next) {
    const route = ctx.state.route;
    if (route === undefined) throw notFound('No endpoint exists at this path.');
    if (!route.methods.includes(ctx.method)) {
      throw new ApiError(
        405,
        'METHOD_NOT_ALLOWED',
        `Method ${ctx.method} is not allowed here; use ${route.methods.join(' or ')}.`,
        undefined,
        {
          Allow: route.methods.join(', '),
        },
      );
    }
    return next();
  };
}

/**
 * Calls the handler of the route the request was classified to (ctx.state.route); every route of the table must have
 * one.
 */
export function dispatch(handlers: Handlers): Middleware<AppState> {
  const handlerOf = new Map<string, Middleware<AppState>>();
  for (const route of ROUTES) {
    const handler = handlers[route.name];
    if (handler === undefined) throw new Error(`route "${route.name}" (${route.template}) has no handler`);
    handlerOf.set(route.name, handler);
  }
  return function dispatch(ctx, next) {
    return handlerOf.get(ctx.state.route!.name)!(ctx, next);
  };
}
