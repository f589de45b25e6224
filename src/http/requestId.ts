// Gives every request an id: `req_` + 24 URL-safe random characters, sent as X-Request-Id.
import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from './state.js';

export const newRequestId = (): string => `req_${randomBytes(18).toString('base64url')}`;

export function requestId(): Middleware<AppState> {
  return async function requestId(ctx, next) {
    ctx.state.requestId = newRequestId();
    ctx.state.params = {};
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
