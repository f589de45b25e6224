// First start on an empty database: a demo PROFESSIONAL subscription, so the README's curl lines work.
import type { SubscriptionStore } from './subscriptionStore.js';

export interface DemoSubscription {
  subscriptionId: string;
  apiKey: string;
}

/** Creates the demo subscription when no subscription exists at all; returns it, or null. */
export function ensureDemoSubscription(subscriptions: SubscriptionStore, demoApiKey: string | null): DemoSubscription | null {
  if (subscriptions.count() > 0) return null;
  const created = subscriptions.create({ name: 'Demo', tier: 'PROFESSIONAL', apiKey: demoApiKey ?? undefined });
  return { subscriptionId: created.subscription.id, apiKey: created.apiKey };
}
