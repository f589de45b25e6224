// createApp(deps): the middleware order and the routes; no I/O at import time.
import Koa from 'koa';
import { accessLog } from './http/accessLog.js';
import { ApiError, errorHandler, notFound } from './http/errors.js';
import { grantHandlers } from './http/grantRoutes.js';
import { requestId } from './http/requestId.js';
import { API_PREFIX, createApiRouter } from './http/routes.js';
import type { AppState } from './http/state.js';
import { healthRoutes } from './http/health.js';
import type { Logger } from './log.js';
import type { SearchEngine } from './search/engine.js';

export interface AppDeps {
  engine: SearchEngine;
  log: Logger;
}

export const MAX_URL_LENGTH = 8192;
const ALLOWED_METHODS = 'GET, HEAD';

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  const api = createApiRouter({ ...grantHandlers(deps.engine) });
  const health = healthRoutes(deps.engine);

  app.use(requestId());
  app.use(accessLog(deps.log));
  app.use(errorHandler(deps.log));
  app.use(async function bounds(ctx, next) {
    if (ctx.url.length > MAX_URL_LENGTH) {
      throw new ApiError(414, 'URI_TOO_LONG', `The URL is longer than ${MAX_URL_LENGTH} bytes; shorten the query.`);
    }
    await next();
  });
  app.use(health);
  app.use(async function classify(ctx, next) {
    ctx.state.route = api.classify(ctx.path);
    await next();
  });
  app.use(async function routeGuard(ctx, next) {
    if (ctx.state.route === undefined) {
      throw notFound(ctx.path.startsWith(`${API_PREFIX}/`) || ctx.path === API_PREFIX ? 'No endpoint exists at this path.' : `No endpoint exists at this path; the API lives under ${API_PREFIX}.`);
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', `Method ${ctx.method} is not allowed here; use GET or HEAD.`, undefined, {
        Allow: ALLOWED_METHODS,
      });
    }
    await next();
  });
  app.use(api.dispatch);
  return app;
}
