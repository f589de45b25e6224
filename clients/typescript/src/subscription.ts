// GET /subscription/usage and /subscription/limits.
import type { ApiClient } from './api.js';
import { unwrap } from './errors.js';
import type { LimitsAnswer, UsageAnswer, UsageQuery } from './types.js';

export interface SubscriptionApi {
  /** Calls made this month and per day (`days` of history). */
  usage(query?: UsageQuery): Promise<UsageAnswer>;
  /** The subscription's tier, limits and features. */
  limits(): Promise<LimitsAnswer>;
}

export function subscriptionApi(api: ApiClient): SubscriptionApi {
  return {
    usage: (query = {}) => unwrap(api.GET('/subscription/usage', { params: { query } })),
    limits: () => unwrap(api.GET('/subscription/limits')),
  };
}
