// Authentication: the Bearer API key, its expiry, and the caller it names on ctx.state.
import type { Middleware, Next, ParameterizedContext } from 'koa';
import { MAX_KEY_LENGTH } from '../../subscriptions/apiKeys.js';
import { isExpired } from '../../subscriptions/keyRestrictions.js';
import { isPromise, type Caller, type CallerDirectory } from '../../subscriptions/port.js';
import { ApiError } from '../errors.js';
import type { AppState } from '../state.js';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);

export function authenticate(subscriptions: CallerDirectory, clock: () => Date): Middleware<AppState> {
  const admit = (ctx: ParameterizedContext<AppState>, next: Next, caller: Caller | null) => {
    if (caller === null) throw unauthorized('The API key is not valid or has been revoked.');
    if (isExpired(caller.restrictions, clock())) {
      throw unauthorized(
        `The API key expired at ${caller.restrictions.expiresAt}; use another key, or create one (POST /keys).`,
      );
    }
    ctx.state.caller = caller;
    return next();
  };
  return function authenticate(ctx, next) {
    const header = ctx.get('Authorization');
    if (header === '')
      throw unauthorized('Authentication required: send your API key as "Authorization: Bearer <key>".');
    const bearer = BEARER.exec(header);
    if (bearer === null) throw unauthorized('The Authorization header must be "Bearer <key>".');
    const key = bearer[1];
    // The SQLite store answers synchronously: no await (and no microtask) on its path.
    const found = key.length <= MAX_KEY_LENGTH ? subscriptions.authenticate(key) : null;
    return isPromise(found) ? found.then((caller) => admit(ctx, next, caller)) : admit(ctx, next, found);
  };
}
