// The stores part of the API's dependencies: the subscriptions store (with its retention sweep),
// the alerts store beside it, and on a shared (PostgreSQL) store the outage policy around it
// (docs/operations.md, "When a shared service fails").
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openStores, type Stores } from '../stores.js';
import { guardStore, type GuardedStore } from '../subscriptions/guardedStore.js';
import type { AllowanceRecord, SubscriptionRecords, SubscriptionsStore, UsageLog } from '../subscriptions/port.js';

export interface StoresPart {
  /** The store as opened (its kind, sizes, demo records, close). */
  store: SubscriptionsStore;
  /** The alerts store and its secret box; null when alerts are off. */
  alerts: Stores['alerts'];
  /** The outage policy around a PostgreSQL store; null on SQLite. */
  guarded: GuardedStore | null;
  /** What the routes read and write: through the outage policy when there is one. */
  subscriptions: SubscriptionRecords;
  usage: UsageLog;
  /** The monthly allowance as the store records it. */
  allowance: AllowanceRecord;
  /** Stops the outage policy, then closes the store (its last group commit and usage rows written). */
  close(): Promise<void>;
}

export async function openStoresPart(config: Config, log: Logger, clock: () => Date): Promise<StoresPart> {
  const opened = await openStores(config, log, { clock });
  const { store } = opened;
  store.startBackgroundWork();
  const guarded =
    store.kind === 'postgres'
      ? guardStore(store, config.storeOutage, { countsInRedis: config.redis.url !== null, log })
      : null;
  const { subscriptions, usage } = guarded ?? store;
  return {
    store,
    alerts: opened.alerts,
    guarded,
    subscriptions,
    usage,
    allowance: guarded?.allowance ?? store.allowance,
    async close() {
      await guarded?.stop();
      await store.close();
    },
  };
}
