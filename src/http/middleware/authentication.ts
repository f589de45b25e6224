// Authentication (Bearer API key) and the subscription-status rules.
import type { Middleware, Next, ParameterizedContext } from 'koa';
import { MAX_KEY_LENGTH } from '../../subscriptions/apiKeys.js';
import { isExpired } from '../../subscriptions/keyRestrictions.js';
import { isPromise, type Caller, type CallerDirectory } from '../../subscriptions/store.js';
import type { Feature } from '../../subscriptions/tiers.js';
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
    const match = BEARER.exec(header);
    if (match === null) throw unauthorized('The Authorization header must be "Bearer <key>".');
    const key = match[1];
    // The SQLite store answers synchronously: no await (and no microtask) on its path.
    const found = key.length <= MAX_KEY_LENGTH ? subscriptions.authenticate(key) : null;
    return isPromise(found) ? found.then((caller) => admit(ctx, next, caller)) : admit(ctx, next, found);
  };
}

/** The refusal of a call that needs a feature the subscription lacks (`what`: this endpoint, this tool). */
export const featureNotAvailable = (feature: Feature, what = 'this endpoint'): ApiError =>
  new ApiError(
    403,
    'FEATURE_NOT_AVAILABLE',
    `Your subscription does not include the "${feature}" feature needed by ${what}. ` +
      (`Ask the API's operator to switch it on; they run: grants-admin subscription set-feature ` +
        `<subscription id> ${feature} on`),
  );

export function featureGuard(): Middleware<AppState> {
  return function featureGuard(ctx, next) {
    const feature = ctx.state.route!.feature;
    if (!ctx.state.caller!.subscription.features[feature]) throw featureNotAvailable(feature);
    return next();
  };
}
