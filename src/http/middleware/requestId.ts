// Gives every request an id: `req_` + 24 URL-safe random characters, sent as X-Request-Id.
import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

const ID_BYTES = 18;
/** Random bytes drawn 256 ids at a time: one call into the CSPRNG per 256 requests, not per request. */
let pool = Buffer.alloc(0);
let used = 0;

export function newRequestId(): string {
  if (used >= pool.length) {
    pool = randomBytes(ID_BYTES * 256);
    used = 0;
  }
  const id = pool.toString('base64url', used, used + ID_BYTES);
  used += ID_BYTES;
  return `req_${id}`;
}

export function requestId(): Middleware<AppState> {
  return function requestId(ctx, next) {
    ctx.state.requestId = newRequestId();
    ctx.state.params = {};
    ctx.set('X-Request-Id', ctx.state.requestId);
    return next();
  };
}
