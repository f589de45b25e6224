// The route table bound to its handlers: each route of src/http/routeTable.ts gets the middleware
// that answers it. A request is matched once, when it is classified (before the limits and the
// usage log, which must know its route); dispatch then calls that route's handler.
import type { Middleware } from 'koa';
import { ROUTES, type RouteName } from '../routeTable.js';
import type { AppState } from '../state.js';

export type Handlers = Partial<Record<RouteName, Middleware<AppState>>>;

/** Calls the handler of the route the request was classified to (ctx.state.route); every route must have one. */
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
