// createApp(deps): the middleware order and the routes; no I/O at import time.
import Koa, { type Middleware } from 'koa';
import { accessLog } from './http/middleware/accessLog.js';
import { authenticate } from './http/middleware/authentication.js';
import { callerOriginAndIp } from './http/middleware/keyOriginAndIpChecks.js';
import { scopeGuard } from './http/middleware/keyScopeChecks.js';
import { keyHandlers } from './http/handlers/keys.js';
import { compression, DEFAULT_COMPRESSION, type CompressionSettings } from './http/middleware/compression.js';
import { conditionalRequests } from './http/middleware/conditionalRequests.js';
import { cors } from './http/middleware/cors.js';
import { ApiError, errorHandler } from './http/errors.js';
import { grantHandlers } from './http/handlers/grants.js';
import { commonGrantsHandlers } from './http/handlers/commonGrants.js';
import { serveDocs } from './http/pages/docs.js';
import { serveConsole } from './http/pages/consolePage.js';
import { serveSearchPage } from './http/pages/searchPage.js';
import { serveLanding } from './http/pages/landing.js';
import { healthRoutes } from './http/handlers/health.js';
import { serveOpenapi } from './http/openapi/document.js';
import { enforceLimits } from './http/middleware/rateAndAllowance.js';
import { featureGuard, subscriptionStatus } from './http/middleware/subscriptionChecks.js';
import { requestId } from './http/middleware/requestId.js';
import { classifyRoute, dispatch, routeGuard } from './http/middleware/routing.js';
import type { AppState } from './http/state.js';
import { alertHandlers, type AlertsApi } from './http/handlers/alerts.js';
import { subscriptionHandlers } from './http/handlers/subscription.js';
import { mcpHandler } from './http/handlers/mcp.js';
import { recordUsage } from './http/middleware/usageRecorder.js';
import type { Logger } from './log.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { SearchEngine } from './search/engine.js';
import type { AllowanceCounter, SubscriptionRecords, UsageLog } from './subscriptions/port.js';

export interface AppDeps {
  engine: SearchEngine;
  subscriptions: SubscriptionRecords;
  usage: UsageLog;
  allowance: AllowanceCounter;
  rateLimiter: RateLimiter;
  clock: () => Date;
  log: Logger;
  /** Origins allowed to call the API from a browser (CORS_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
  /** Proxies whose X-Forwarded-For gives the client address (TRUST_PROXY); none by default. */
  trustProxy?: readonly string[];
  /** Response compression levels; null: no compression; absent: DEFAULT_COMPRESSION. */
  compression?: CompressionSettings | null;
  /** Extra readiness facts (e.g. a limiter's fallback state) for /readyz. */
  readiness?: () => Record<string, unknown>;
  /** False while a dependency other than the engine cannot serve (a store outage past its grace): /readyz 503. */
  ready?: () => boolean;
  /** Prometheus metrics and GET /metrics (src/http/metrics/apiMetrics.ts); none when absent. */
  metrics?: { layer: Middleware<AppState> };
  /**
   * Overload shedding (src/http/middleware/overload.ts), between the route's classification and authentication; none
   * when absent.
   */
  overload?: { layer: Middleware<AppState> };
  /** Alerts (src/alerts/): their store and the webhook target policy; absent: the /alerts endpoints answer 503. */
  alerts?: AlertsApi;
}

/** One middleware of the app, named so that a caller composing its own app can find it. */
export interface Layer {
  name: string;
  middleware: Middleware<AppState>;
}

const MAX_URL_LENGTH = 8192;

/**
 * The API's middleware, in order. Under /external/v1 the checks run in the order
 * that decides which refusal a request gets when several apply: authenticate (expiry included) → the key's origins and
 * IP ranges → status → rate (the key's, then the subscription's) → allowance (billable only) → route (404/405) →
 * feature → the key's scope → parameters → handler.
 */
export function apiLayers(deps: AppDeps): Layer[] {
  return [
    ...(deps.metrics === undefined ? [] : [{ name: 'metrics', middleware: deps.metrics.layer }]),
    ...(deps.compression === null
      ? []
      : [{ name: 'compression', middleware: compression(deps.compression ?? DEFAULT_COMPRESSION) }]),
    { name: 'requestId', middleware: requestId() },
    { name: 'accessLog', middleware: accessLog(deps.log) },
    { name: 'usage', middleware: recordUsage(deps.usage, deps.clock) },
    { name: 'cors', middleware: cors(deps.corsOrigins ?? [], () => deps.subscriptions.keyOrigins()) },
    { name: 'errors', middleware: errorHandler(deps.log) },
    {
      name: 'bounds',
      middleware: function bounds(ctx, next) {
        if (ctx.url.length > MAX_URL_LENGTH) {
          throw new ApiError(414, 'URI_TOO_LONG', `The URL is longer than ${MAX_URL_LENGTH} bytes; shorten the query.`);
        }
        return next();
      },
    },
    { name: 'health', middleware: healthRoutes(deps.engine, deps.readiness, deps.ready) },
    { name: 'openapi', middleware: serveOpenapi() },
    { name: 'docs', middleware: serveDocs() },
    { name: 'console', middleware: serveConsole() },
    { name: 'searchPage', middleware: serveSearchPage() },
    { name: 'landing', middleware: serveLanding() },
    { name: 'classify', middleware: classifyRoute() },
    ...(deps.overload === undefined ? [] : [{ name: 'overload', middleware: deps.overload.layer }]),
    { name: 'auth', middleware: authenticate(deps.subscriptions, deps.clock) },
    { name: 'callerOriginAndIp', middleware: callerOriginAndIp(deps.trustProxy ?? [], deps.corsOrigins ?? []) },
    { name: 'status', middleware: subscriptionStatus(deps) },
    { name: 'limits', middleware: enforceLimits(deps) },
    { name: 'routeGuard', middleware: routeGuard() },
    { name: 'feature', middleware: featureGuard() },
    { name: 'scope', middleware: scopeGuard() },
    { name: 'conditional', middleware: conditionalRequests() },
    {
      name: 'dispatch',
      middleware: dispatch({
        ...grantHandlers(deps.engine, deps.clock),
        ...commonGrantsHandlers(deps.engine, deps.clock),
        ...subscriptionHandlers(deps),
        ...alertHandlers(deps.alerts, deps.clock),
        ...keyHandlers(deps.subscriptions, deps.clock),
        mcp: mcpHandler({
          engine: deps.engine,
          subscriptions: deps,
          alerts: deps.alerts,
          clock: deps.clock,
          log: deps.log,
        }),
      }),
    },
  ];
}

/** The Koa app running `layers`: by default the API's own, as apiLayers(deps) gives them. */
export function createApp(deps: AppDeps, layers: readonly Layer[] = apiLayers(deps)): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  for (const layer of layers) app.use(layer.middleware);
  return app;
}
