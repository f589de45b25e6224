// Operator endpoints outside the partner API: liveness and readiness, unauthenticated.
import type { Middleware, ParameterizedContext } from 'koa';
import type { SearchEngine } from '../../search/engine.js';
import type { AppState } from '../state.js';

export function healthRoutes(
  engine: SearchEngine,
  readiness: () => Record<string, unknown> = () => ({}),
  ready: () => boolean = () => true,
): Middleware<AppState> {
  const answerReadiness = async (ctx: ParameterizedContext<AppState>) => {
    try {
      const grants = await engine.count();
      if (ready()) {
        ctx.body = { status: 'ready', engine: engine.name, grants, ...readiness() };
      } else {
        ctx.status = 503;
        ctx.set('Retry-After', '5');
        ctx.body = { status: 'unavailable', engine: engine.name, grants, ...readiness() };
      }
    } catch {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { status: 'unavailable', engine: engine.name };
    }
  };
  return function health(ctx, next) {
    if (ctx.path === '/healthz' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/readyz' && (ctx.method === 'GET' || ctx.method === 'HEAD')) return answerReadiness(ctx);
    return next();
  };
}
