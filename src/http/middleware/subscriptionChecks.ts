// The subscription's checks of a request: its status (ACTIVE, SUSPENDED, CANCELLED) right after
// the key's origin and IP, and the feature a route needs after the route guard.
import type { Middleware, ParameterizedContext } from 'koa';
import { monthKey } from '../../subscriptions/month.js';
import type { Feature, Subscription } from '../../subscriptions/tiers.js';
import { rates, setLimitHeaders, type LimitDeps } from './rateAndAllowance.js';
import { ApiError } from '../errors.js';
import type { AppState } from '../state.js';

/**
 * ACTIVE: everything. SUSPENDED: the subscription endpoints only. CANCELLED: nothing.
 * A refusal spends no budget (the rate is only looked at) but still carries the rate-limit headers.
 */
export function subscriptionStatus({ rateLimiter, allowance, clock }: LimitDeps): Middleware<AppState> {
  const budget = rates(rateLimiter);
  const refuse = async (
    ctx: ParameterizedContext<AppState>,
    subscription: Subscription,
    refusal: string,
  ): Promise<never> => {
    const now = clock();
    const rate = await budget.peek(ctx.state.caller!);
    setLimitHeaders(ctx, subscription, rate, await allowance.current(subscription.id, monthKey(now)), now);
    throw new ApiError(403, 'SUBSCRIPTION_INACTIVE', refusal);
  };
  return function subscriptionStatus(ctx, next) {
    const { subscription } = ctx.state.caller!;
    const refusal =
      subscription.status === 'CANCELLED'
        ? 'This subscription is cancelled; contact us to reactivate it.'
        : subscription.status === 'SUSPENDED' && ctx.state.route?.billable
          ? 'This subscription is suspended; grant endpoints are unavailable until it is reactivated. ' +
            '/subscription endpoints still answer.'
          : null;
    return refusal === null ? next() : refuse(ctx, subscription, refusal);
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
