// The API's route table: each endpoint's template, the feature that guards it, whether it is
// billable, and its handler. One @koa/router serves both the early classification of a request
// (needed before routing by the quota, the feature check and the usage log) and the dispatch.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Feature } from '../subscriptions/tiers.js';
import type { AppState } from './state.js';

export const API_PREFIX = '/external/v1';

export interface RouteSpec {
  /** Route template relative to the version prefix, as reported in usage statistics. */
  template: string;
  feature: Feature;
  /** Counts toward the monthly allowance. */
  billable: boolean;
}

export const ROUTES = {
  grants: { template: '/grants', feature: 'grants.search', billable: true },
  grantFilters: { template: '/grants/filters', feature: 'grants.search', billable: true },
  grant: { template: '/grants/:id', feature: 'grants.read', billable: true },
  usage: { template: '/subscription/usage', feature: 'subscription.read', billable: false },
  limits: { template: '/subscription/limits', feature: 'subscription.read', billable: false },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;
export type Handlers = Partial<Record<RouteName, Middleware<AppState>>>;

export interface ApiRouter {
  /** Calls the handler of the request's route (classified before, into ctx.state). */
  dispatch: Middleware<AppState>;
  /** The route a path names (whatever the method) and its decoded path parameters, or undefined. */
  classify(path: string): { route: RouteSpec; params: Record<string, string> } | undefined;
}

/** Registration order matters: the literal /grants/filters comes before /grants/:id. */
const ORDER: RouteName[] = ['grants', 'grantFilters', 'grant', 'usage', 'limits'];

/**
 * The router matches each request once, when it is classified; its layer then gives the path
 * parameters (decoded as @koa/router decodes them), and dispatch calls that route's handler
 * directly instead of matching the path a second time.
 */
export function createApiRouter(handlers: Handlers): ApiRouter {
  const router = new Router<AppState>({ prefix: API_PREFIX, sensitive: true });
  const routeOf = new Map<string, RouteSpec>();
  const handlerOf = new Map<RouteSpec, Middleware<AppState>>();
  for (const name of ORDER) {
    const handler = handlers[name];
    if (handler === undefined) continue;
    router.get(name, ROUTES[name].template, handler);
    routeOf.set(API_PREFIX + ROUTES[name].template, ROUTES[name]);
    handlerOf.set(ROUTES[name], handler);
  }
  return {
    dispatch: (ctx, next) => handlerOf.get(ctx.state.route!)!(ctx, next),
    classify(path) {
      const layer = router.match(path, 'GET').pathAndMethod[0];
      const route = layer === undefined ? undefined : routeOf.get(String(layer.path));
      return route === undefined ? undefined : { route, params: layer!.params(path, layer!.captures(path)) };
    },
  };
}
