// createApp(deps): the middleware order and the routes; no I/O at import time.
import Koa from 'koa';
import { accessLog } from './http/accessLog.js';
import { authenticate, featureGuard, subscriptionStatus } from './http/auth.js';
import { ApiError, errorHandler, notFound } from './http/errors.js';
import { grantHandlers } from './http/grantRoutes.js';
import { healthRoutes } from './http/health.js';
import { enforceLimits } from './http/limits.js';
import { requestId } from './http/requestId.js';
import { API_PREFIX, createApiRouter } from './http/routes.js';
import type { AppState } from './http/state.js';
import { subscriptionHandlers } from './http/subscriptionRoutes.js';
import { recordUsage } from './http/usageRecorder.js';
import type { Logger } from './log.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { SearchEngine } from './search/engine.js';
import type { SubscriptionStore } from './subscriptions/subscriptionStore.js';
import type { AllowanceCounter, UsageStore } from './subscriptions/usageStore.js';

export interface AppDeps {
  engine: SearchEngine;
  subscriptions: SubscriptionStore;
  usage: UsageStore;
  allowance: AllowanceCounter;
  rateLimiter: RateLimiter;
  clock: () => Date;
  log: Logger;
  /** Extra readiness facts (e.g. a limiter's fallback state) for /readyz. */
  readiness?: () => Record<string, unknown>;
}

export const MAX_URL_LENGTH = 8192;
const ALLOWED_METHODS = 'GET, HEAD';

/**
 * Order of checks under /external/v1 (API-DECISIONS §2): authenticate → status → rate →
 * allowance (billable only) → route (404/405) → feature → parameters → handler.
 */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  const api = createApiRouter({ ...grantHandlers(deps.engine), ...subscriptionHandlers(deps) });

  app.use(requestId());
  app.use(accessLog(deps.log));
  app.use(recordUsage(deps.usage, deps.clock));
  app.use(errorHandler(deps.log));
  app.use(async function bounds(ctx, next) {
    if (ctx.url.length > MAX_URL_LENGTH) {
      throw new ApiError(414, 'URI_TOO_LONG', `The URL is longer than ${MAX_URL_LENGTH} bytes; shorten the query.`);
    }
    await next();
  });
  app.use(healthRoutes(deps.engine, deps.readiness));
  app.use(async function outsideApi(ctx, next) {
    if (ctx.path !== API_PREFIX && !ctx.path.startsWith(`${API_PREFIX}/`)) {
      throw notFound(`No endpoint exists at this path; the API lives under ${API_PREFIX}.`);
    }
    ctx.state.route = api.classify(ctx.path);
    await next();
  });
  app.use(authenticate(deps.subscriptions));
  app.use(subscriptionStatus());
  app.use(enforceLimits(deps));
  app.use(async function routeGuard(ctx, next) {
    if (ctx.state.route === undefined) throw notFound('No endpoint exists at this path.');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', `Method ${ctx.method} is not allowed here; use GET or HEAD.`, undefined, {
        Allow: ALLOWED_METHODS,
      });
    }
    await next();
  });
  app.use(featureGuard());
  app.use(api.dispatch);
  return app;
}
