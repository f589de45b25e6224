// One log line per request; a logger carrying the requestId for every line written about the
// request (ctx.state.log), made only if a line is written through it. Never the Authorization
// header or the query; the path as sent (the logger redacts a key in it, however encoded).
import type { Middleware } from 'koa';
import { deferredChild, type Logger } from '../../log.js';
import { outcomeOf } from '../requestOutcome.js';
import type { AppState } from '../state.js';

/** How much of a path a line holds. */
const LOGGED_PATH_LENGTH = 200;

/**
 * The path as sent, cut after its last whole segment within LOGGED_PATH_LENGTH characters: a
 * segment is written whole or not at all, so that a key in it is either seen (and redacted by the
 * logger) or absent, never cut to a prefix the redaction cannot recognise.
 */
const clippedPath = (path: string): string =>
  path.length <= LOGGED_PATH_LENGTH ? path : `${path.slice(0, path.lastIndexOf('/', LOGGED_PATH_LENGTH) + 1)}…`;

/** A duration in ms cut to whole microseconds (a number, not a BigInt: no heap allocation per request). */
const wholeMicroseconds = (ms: number): number => Math.floor(ms * 1000) / 1000;

export function accessLog(log: Logger): Middleware<AppState> {
  return async function accessLog(ctx, next) {
    const requestId = ctx.state.requestId;
    ctx.state.log = deferredChild(log, { requestId });
    if (!log.enabled('info')) return next();
    const started = performance.now();
    try {
      await next();
    } finally {
      // The request's id first, as a child logger would write it.
      log.info('request', {
        requestId,
        method: ctx.method,
        path: clippedPath(ctx.path),
        route: ctx.state.route?.template,
        subscription: ctx.state.caller?.subscription.id,
        key: ctx.state.caller?.keyId,
        status: ctx.status,
        code: outcomeOf(ctx.state).errorCode,
        ms: wholeMicroseconds(performance.now() - started),
      });
    }
  };
}
