// The SQLite adapter of the store port (src/subscriptions/port.ts): the embedded default, one
// file in DATA_DIR shared by the processes of one machine. Every method answers synchronously.
import { existsSync, mkdirSync } from 'node:fs';
import type { Logger } from '../../log.js';
import { SqliteAllowanceCounter } from './allowanceCounter.js';
import { openSubscriptionsDb, subscriptionsPath, type Db } from './database.js';
import { DemoSubscription } from './demo.js';
import { lastUseByKey } from '../keyLastUse.js';
import type { SubscriptionsStore, UsageSizes } from '../port.js';
import { SubscriptionStore } from './subscriptionStore.js';
import { UsageRetention, usageDailyRows, usageLogRows } from './usageRetention.js';
import { UsageStore } from './usageStore.js';
import { SqliteGroupCommit } from './groupCommit.js';
import { WalCheckpoints } from './walCheckpoints.js';

interface StoreOptions {
  clock?: () => Date;
  log: Logger;
  /** Usage rows older than this many days are deleted by the retention sweep. */
  retentionDays: number;
}

/** `read`'s answer, read again only once it is `maxAgeMs` old (a scrape every few seconds scans once a minute). */
function cachedFor<T>(maxAgeMs: number, read: () => T): () => T {
  let last: { at: number; value: T } | null = null;
  return () => {
    if (last === null || Date.now() - last.at >= maxAgeMs) last = { at: Date.now(), value: read() };
    return last.value;
  };
}

export class SqliteStore implements SubscriptionsStore {
  readonly kind = 'sqlite' as const;
  readonly subscriptions: SubscriptionStore;
  readonly usage: UsageStore;
  readonly allowance: SqliteAllowanceCounter;
  readonly demo: DemoSubscription;
  private readonly retention: UsageRetention;
  private readonly dailyRows: () => number;
  private readonly log: Logger;
  private checkpoints: WalCheckpoints | null = null;

  constructor(
    readonly db: Db,
    options: StoreOptions,
  ) {
    const clock = options.clock ?? (() => new Date());
    this.log = options.log;
    this.subscriptions = new SubscriptionStore(db, clock);
    // One write transaction per event-loop turn for the calls counted and the usage rows logged.
    const writes = new SqliteGroupCommit(db);
    this.usage = new UsageStore(db, options.log, (rows) => this.subscriptions.touchKeys(lastUseByKey(rows)), writes);
    this.allowance = new SqliteAllowanceCounter(db, writes);
    this.demo = new DemoSubscription(this.subscriptions.steps, clock);
    this.retention = new UsageRetention(db, options.retentionDays, clock, options.log);
    this.dailyRows = cachedFor(60_000, () => usageDailyRows(db));
  }

  schemaVersion(): number {
    return this.db.prepare('SELECT coalesce(max(version), 0) FROM schema_migrations').pluck().get() as number;
  }

  /** The retention sweep, and the write-ahead log checkpointed on a thread (walCheckpoints.ts), not in commits. */
  startBackgroundWork(): void {
    this.retention.start();
    this.checkpoints ??= WalCheckpoints.start(this.db, this.log);
  }

  sizes(): UsageSizes {
    return { usageLogRows: usageLogRows(this.db), usageDailyRows: this.dailyRows() };
  }

  async close(): Promise<void> {
    this.retention.stop();
    this.allowance.close();
    this.usage.close();
    await this.checkpoints?.stop();
    this.db.close();
  }
}

/** Opens (creating and migrating when needed) the subscriptions database of a data directory. */
export function openSqliteStore(dataDir: string, options: StoreOptions): SqliteStore {
  mkdirSync(dataDir, { recursive: true });
  return new SqliteStore(openSubscriptionsDb(subscriptionsPath(dataDir)), options);
}

/** Whether a data directory already holds a subscriptions database. */
export const sqliteStoreExists = (dataDir: string): boolean => existsSync(subscriptionsPath(dataDir));
