// One log line per request; a child logger carrying the requestId for every line written about
// the request (ctx.state.log). Never the Authorization header or the query.
import type { Middleware } from 'koa';
import type { Logger } from '../../log.js';
import type { AppState } from '../state.js';

export function accessLog(log: Logger): Middleware<AppState> {
  return async function accessLog(ctx, next) {
    const requestLog = log.child({ requestId: ctx.state.requestId });
    ctx.state.log = requestLog;
    if (!log.enabled('info')) return next();
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      requestLog.info('request', {
        method: ctx.method,
        path: ctx.path.length > 200 ? `${ctx.path.slice(0, 200)}…` : ctx.path,
        route: ctx.state.route?.template,
        subscription: ctx.state.caller?.subscription.id,
        key: ctx.state.caller?.keyId,
        status: ctx.status,
        code: ctx.state.errorCode,
        ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
      });
    }
  };
}
