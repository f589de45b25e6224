// The API's route table: each endpoint's template, the feature that guards it, whether it is
// billable, and its handler. One @koa/router serves both the early classification of a request
// (needed before routing by the quota, the feature check and the usage log) and the dispatch.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from './state.js';

export const API_PREFIX = '/external/v1';

export type Feature = 'grants.search' | 'grants.read' | 'subscription.read';

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
  /** Dispatches a classified request to its handler. */
  dispatch: Middleware<AppState>;
  /** The route a path names (whatever the method), or undefined. */
  classify(path: string): RouteSpec | undefined;
}

/** Registration order matters: the literal /grants/filters comes before /grants/:id. */
const ORDER: RouteName[] = ['grants', 'grantFilters', 'grant', 'usage', 'limits'];

export function createApiRouter(handlers: Handlers): ApiRouter {
  const router = new Router<AppState>({ prefix: API_PREFIX, sensitive: true });
  const byPath = new Map<string, RouteSpec>();
  for (const name of ORDER) {
    const handler = handlers[name];
    if (handler === undefined) continue;
    router.get(name, ROUTES[name].template, handler);
    byPath.set(API_PREFIX + ROUTES[name].template, ROUTES[name]);
  }
  const routes = router.routes();
  return {
    dispatch: (ctx, next) => routes(ctx as never, next),
    classify(path) {
      const layer = router.match(path, 'GET').pathAndMethod[0];
      return layer === undefined ? undefined : byPath.get(String(layer.path));
    },
  };
}
