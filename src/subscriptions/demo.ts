// The demo subscription of a first start, so the README's curl lines work on a fresh checkout:
// PROFESSIONAL, with every feature the README shows switched on (grants.export included, which
// the tier leaves off).
// It is created when the database holds no subscription at all; its key exists in clear only in
// that start, which shows it once and then records that it did. A start that stopped in between
// leaves the key unshown, and later starts say how to get a key (grants-admin key create).
import type { Db } from './sqlite/database.js';
import type { SubscriptionStore } from './sqlite/subscriptionStore.js';

import type { CreatedDemo, DemoRecords } from './store.js';
import { FEATURES, tierFeatureDefault, type Feature } from './tiers.js';

export type { CreatedDemo } from './store.js';

/**
 * The id of a demo subscription nobody can have a key of: its key not shown, never used and not
 * revoked, no other key made since, the subscription still ACTIVE. Plain SQL both stores run.
 */
/** The features the demo's tier leaves off, switched on so a newcomer can try every endpoint. */
export const DEMO_FEATURES: readonly Feature[] = FEATURES.filter((feature) => !tierFeatureDefault('PROFESSIONAL', feature));

export const DEMO_KEY_NEVER_SHOWN_SQL = `SELECT d.subscription_id FROM demo_subscription d
     JOIN subscriptions s ON s.id = d.subscription_id AND s.status = 'ACTIVE'
     JOIN api_keys k ON k.id = d.key_id AND k.revoked_at IS NULL AND k.last_used_at IS NULL
   WHERE d.key_shown_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM api_keys o WHERE o.subscription_id = d.subscription_id AND o.id <> d.key_id)
   ORDER BY d.subscription_id LIMIT 1`;

export class DemoSubscription implements DemoRecords {
  constructor(
    private readonly db: Db,
    private readonly subscriptions: SubscriptionStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Creates a PROFESSIONAL "Demo" subscription with every feature on (DEMO_FEATURES) when no
   * subscription exists (checked and created in one transaction, so two instances starting
   * together make one), its key recorded as not shown yet; null when a subscription exists.
   */
  createIfNone(apiKey: string | null): CreatedDemo | null {
    return this.db.transaction((): CreatedDemo | null => {
      if (this.subscriptions.count() > 0) return null;
      const created = this.subscriptions.create({ name: 'Demo', tier: 'PROFESSIONAL', apiKey: apiKey ?? undefined });
      for (const feature of DEMO_FEATURES) this.subscriptions.setFeature(created.subscription.id, feature, true);
      this.db.prepare('INSERT INTO demo_subscription (subscription_id, key_id) VALUES (?, ?)').run(created.subscription.id, created.keyId);
      return { subscriptionId: created.subscription.id, apiKey: created.apiKey };
    }).immediate();
  }

  /** Records that the demo key was shown (so later starts say nothing about it). */
  markKeyShown(subscriptionId: string): void {
    this.db.prepare('UPDATE demo_subscription SET key_shown_at = ? WHERE subscription_id = ?').run(this.clock().toISOString(), subscriptionId);
  }

  /**
   * The id of a demo subscription nobody can have a key of: its key not shown, never used and not
   * revoked, no other key made since, the subscription still ACTIVE; null when there is none.
   */
  keyNeverShown(): string | null {
    const id = this.db
      .prepare(DEMO_KEY_NEVER_SHOWN_SQL)
      .pluck()
      .get() as string | undefined;
    return id ?? null;
  }
}
