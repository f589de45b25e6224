// createApp(deps): the middleware order and the routes; no I/O at import time.
import Koa from 'koa';
import { accessLog } from './http/accessLog.js';
import { authenticate, featureGuard } from './http/auth.js';
import { ApiError, errorHandler, notFound } from './http/errors.js';
import { grantHandlers } from './http/grantRoutes.js';
import { healthRoutes } from './http/health.js';
import { enforceLimits, subscriptionStatus } from './http/limits.js';
import { requestId } from './http/requestId.js';
import { API_PREFIX, createApiRouter } from './http/routes.js';
import type { AppState } from './http/state.js';
import { subscriptionHandlers } from './http/subscriptionRoutes.js';
import { recordUsage } from './http/usageRecorder.js';
import type { BenchLayer } from './config.js';
import type { Logger } from './log.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { SearchEngine } from './search/engine.js';
import type { Caller, SubscriptionStore } from './subscriptions/subscriptionStore.js';
import type { AllowanceCounter } from './subscriptions/allowance.js';
import type { UsageStore } from './subscriptions/usageStore.js';

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

export interface AppOptions {
  /**
   * Bench-only (BENCH_DISABLE_LAYERS, see test/bench): middleware layers to skip, to measure what
   * each costs. With `auth` skipped every request acts as the first active subscription's first
   * active key, loaded once here. Never set in a real deployment.
   */
  benchDisableLayers?: readonly BenchLayer[];
}

/** The fixed caller of a bench run without authentication: the first active subscription and key. */
function benchCaller(subscriptions: SubscriptionStore): Caller {
  for (const subscription of subscriptions.list()) {
    if (subscription.status !== 'ACTIVE') continue;
    const key = subscriptions.listKeys(subscription.id).find((k) => k.revokedAt === null);
    if (key !== undefined) return { subscription, keyId: key.id, keyPrefix: key.prefix };
  }
  throw new Error('BENCH_DISABLE_LAYERS=auth needs an active subscription with an active key in the database');
}

export const MAX_URL_LENGTH = 8192;
const ALLOWED_METHODS = 'GET, HEAD';

/**
 * Order of checks under /external/v1 (API-DECISIONS §2): authenticate → status → rate →
 * allowance (billable only) → route (404/405) → feature → parameters → handler.
 */
export function createApp(deps: AppDeps, options: AppOptions = {}): Koa<AppState> {
  const skip = new Set(options.benchDisableLayers ?? []);
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  const api = createApiRouter({ ...grantHandlers(deps.engine, deps.clock), ...subscriptionHandlers(deps) });

  app.use(requestId());
  app.use(accessLog(deps.log));
  if (!skip.has('usage')) app.use(recordUsage(deps.usage, deps.clock));
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
    const matched = api.classify(ctx.path);
    if (matched !== undefined) {
      ctx.state.route = matched.route;
      ctx.state.params = matched.params;
    }
    await next();
  });
  if (skip.has('auth')) {
    const caller = benchCaller(deps.subscriptions);
    app.use(async function benchFixedCaller(ctx, next) {
      ctx.state.caller = caller;
      await next();
    });
  } else {
    app.use(authenticate(deps.subscriptions));
  }
  app.use(subscriptionStatus(deps));
  if (!skip.has('limits')) app.use(enforceLimits(deps));
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
