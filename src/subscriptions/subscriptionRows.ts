// The subscriptions and api_keys tables' rows as both stores hold them (SQLite keeps the feature
// flags as 0/1 integers, PostgreSQL as booleans) and the Subscription and ApiKeyInfo they are.
import { restrictionsFromColumn } from './keyRestrictions.js';
import type { ApiKeyInfo, Caller } from './port.js';
import { tierFeatureDefault, type Feature, type Status, type Subscription, type Tier } from './tiers.js';

export interface SubscriptionRow<Flag> {
  id: string;
  name: string;
  tier: Tier;
  status: Status;
  monthly_limit: number | null;
  rate_limit: number | null;
  feature_grants_read: Flag;
  feature_grants_search: Flag;
  feature_subscription_read: Flag;
  /** Null: the tier's default. */
  feature_grants_export: Flag | null;
  /** Null (or a store from before alerts): on. */
  feature_alerts_manage?: Flag | null;
  created_at: string;
}

/** The column that holds each feature's flag. */
export const FEATURE_COLUMN: Record<Feature, string> = {
  'grants.read': 'feature_grants_read',
  'grants.search': 'feature_grants_search',
  'subscription.read': 'feature_subscription_read',
  'grants.export': 'feature_grants_export',
  'alerts.manage': 'feature_alerts_manage',
};

export function subscriptionFromRow<Flag>(row: SubscriptionRow<Flag>, isOn: (flag: Flag) => boolean): Subscription {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    status: row.status,
    monthlyLimitOverride: row.monthly_limit,
    rateLimitOverride: row.rate_limit,
    features: {
      'grants.read': isOn(row.feature_grants_read),
      'grants.search': isOn(row.feature_grants_search),
      'subscription.read': isOn(row.feature_subscription_read),
      'grants.export':
        row.feature_grants_export === null
          ? tierFeatureDefault(row.tier, 'grants.export')
          : isOn(row.feature_grants_export),
      'alerts.manage':
        row.feature_alerts_manage === null || row.feature_alerts_manage === undefined
          ? tierFeatureDefault(row.tier, 'alerts.manage')
          : isOn(row.feature_alerts_manage),
    },
    createdAt: row.created_at,
  };
}

export const keyFromRow = (row: Record<string, string | null>): ApiKeyInfo => ({
  id: row.id as string,
  subscriptionId: row.subscription_id as string,
  prefix: row.prefix as string,
  name: row.name ?? null,
  restrictions: restrictionsFromColumn(row.restrictions),
  createdAt: row.created_at as string,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

/** The key columns a caller's look-up reads beside its subscription's. */
export interface CallerKeyColumns {
  key_id: string;
  key_prefix: string;
  key_restrictions: string | null;
}

/**
 * The caller a key's row and its subscription make, frozen whole: authentication remembers it and hands it to every
 * layer.
 */
export function callerFromRow(subscription: Subscription, row: CallerKeyColumns): Caller {
  Object.freeze(subscription.features);
  return Object.freeze({
    subscription: Object.freeze(subscription),
    keyId: row.key_id,
    keyPrefix: row.key_prefix,
    restrictions: restrictionsFromColumn(row.key_restrictions),
  });
}
