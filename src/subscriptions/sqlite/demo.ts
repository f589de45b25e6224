// The demo subscription's records in SQLite (what both stores share about it is in ../demo.ts):
// created in one transaction when no subscription exists, its key then marked as shown.
import type { Db } from './database.js';
import type { SubscriptionStore } from './subscriptionStore.js';
import type { CreatedDemo, DemoRecords } from '../store.js';
import { DEMO_FEATURES, DEMO_KEY_NEVER_SHOWN_SQL } from '../demo.js';

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
