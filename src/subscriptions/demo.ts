// The demo subscription of a first start, so the README's curl lines work on a fresh checkout:
// PROFESSIONAL, with every feature the README shows switched on (grants.export included, which
// the tier leaves off).
// It is created when the database holds no subscription at all; its key exists in clear only in
// that start, which shows it once and then records that it did. A start that stopped in between
// leaves the key unshown, and later starts say how to get a key (grants-admin key create).
// What both stores share lives here; each adapter keeps the records (sqlite/demo.ts, postgres/store.ts).
import { FEATURES, tierFeatureDefault, type Feature } from './tiers.js';

/** The features the demo's tier leaves off, switched on so a newcomer can try every endpoint. */
export const DEMO_FEATURES: readonly Feature[] = FEATURES.filter(
  (feature) => !tierFeatureDefault('PROFESSIONAL', feature),
);

/**
 * The id of a demo subscription nobody can have a key of: its key not shown, never used and not
 * revoked, no other key made since, the subscription still ACTIVE. Plain SQL both stores run.
 */
export const DEMO_KEY_NEVER_SHOWN_SQL = `SELECT d.subscription_id FROM demo_subscription d
     JOIN subscriptions s ON s.id = d.subscription_id AND s.status = 'ACTIVE'
     JOIN api_keys k ON k.id = d.key_id AND k.revoked_at IS NULL AND k.last_used_at IS NULL
   WHERE d.key_shown_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM api_keys o WHERE o.subscription_id = d.subscription_id AND o.id <> d.key_id)
   ORDER BY d.subscription_id LIMIT 1`;
