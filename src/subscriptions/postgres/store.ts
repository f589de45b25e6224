// The PostgreSQL adapter of the store port (src/subscriptions/port.ts), for a fleet of API
// instances sharing one database (DATABASE_URL). Opening it runs the migrations, creates this
// month's and next month's usage partitions and starts listening for changes.
import { describeError, type Logger } from '../../log.js';
import type { CreatedDemo, DemoRecords, SubscriptionsStore, UsageSizes } from '../port.js';
import { createDemo, DEMO_LOCK, demoKeyNeverShown, markDemoKeyShown } from '../subscriptionSteps.js';
import { firstKeptDay, SWEEP_INTERVAL_MS } from '../usageRetention.js';
import { PgAllowanceCounter } from './allowanceCounter.js';
import { createPool, migrate, schemaVersion, unavailableWhenDown, type Pool } from './database.js';
import { PgSteps } from './steps.js';
import { PgSubscriptionStore } from './subscriptionStore.js';
import { dropPartitionsBefore, ensurePartitions, PgUsageStore } from './usageStore.js';

interface PgStoreOptions {
  clock?: () => Date;
  log: Logger;
  retentionDays: number;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How long a cached caller is trusted without a notification (default 5 s). */
  cacheTtlMs?: number;
  /** Listen for changes (default true; grants-admin does not need to). */
  listen?: boolean;
}

/** The demo subscription's records: the operations of ../subscriptionSteps.ts (the story is in ../demo.ts). */
class PgDemo implements DemoRecords {
  constructor(
    private readonly steps: PgSteps,
    private readonly clock: () => Date,
  ) {}

  createIfNone(apiKey: string | null): Promise<CreatedDemo | null> {
    return this.steps.transaction(createDemo(this.clock(), apiKey), { exclusive: DEMO_LOCK });
  }

  async markKeyShown(subscriptionId: string): Promise<void> {
    await this.steps.run(markDemoKeyShown(this.clock(), subscriptionId));
  }

  keyNeverShown(): Promise<string | null> {
    return this.steps.run(demoKeyNeverShown());
  }
}

export class PgStore implements SubscriptionsStore {
  readonly kind = 'postgres' as const;
  readonly subscriptions: PgSubscriptionStore;
  readonly usage: PgUsageStore;
  readonly allowance: PgAllowanceCounter;
  readonly demo: PgDemo;
  private sized: UsageSizes = { usageLogRows: 0, usageDailyRows: 0 };
  private timers: NodeJS.Timeout[] = [];
  private readonly clock: () => Date;

  constructor(
    readonly pool: Pool,
    url: string,
    private readonly options: PgStoreOptions,
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.subscriptions = unavailableWhenDown(
      new PgSubscriptionStore(pool, {
        listenUrl: options.listen === false ? undefined : url,
        clock: this.clock,
        log: options.log,
        cacheTtlMs: options.cacheTtlMs,
      }),
    );
    this.usage = new PgUsageStore(pool, options.log);
    this.allowance = new PgAllowanceCounter(pool);
    this.demo = new PgDemo(new PgSteps(pool), this.clock);
  }

  schemaVersion(): Promise<number> {
    return schemaVersion(this.pool);
  }

  /** The retention: drops the usage partitions past it now and every interval; sizes are read at the same pace. */
  startBackgroundWork(intervalMs = SWEEP_INTERVAL_MS): void {
    const run = async () => {
      try {
        const dropped = await dropPartitionsBefore(this.pool, firstKeptDay(this.clock(), this.options.retentionDays));
        if (dropped.length > 0)
          this.options.log.info('usage log partitions past the retention dropped', { months: dropped });
        await this.readSizes();
      } catch (error) {
        this.options.log.warn('usage retention failed; retried at the next interval', describeError(error));
      }
    };
    this.timers.push(setTimeout(() => void run(), 0).unref(), setInterval(() => void run(), intervalMs).unref());
  }

  /** The sizes from the planner's statistics for the log (no scan of a large table) and a count of the per-day rows. */
  async readSizes(): Promise<UsageSizes> {
    const { rows } = await this.pool.query(
      `SELECT (SELECT coalesce(sum(greatest(c.reltuples, 0)), 0) FROM pg_inherits i JOIN pg_class c ON c.oid =
        i.inhrelid
                WHERE i.inhparent = 'usage_log'::regclass) AS log_rows,
              (SELECT count(*) FROM usage_daily) AS daily_rows`,
    );
    this.sized = { usageLogRows: Number(rows[0].log_rows), usageDailyRows: Number(rows[0].daily_rows) };
    return this.sized;
  }

  sizes(): UsageSizes {
    return this.sized;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await this.allowance.close();
    await this.usage.close();
    await this.subscriptions.close();
    await this.pool.end();
  }
}

/** Opens the store at `url`: migrations, this month's and next month's partitions, the change listener. */
export async function openPgStore(url: string, options: PgStoreOptions): Promise<PgStore> {
  const pool = createPool(url, options.poolSize);
  try {
    await migrate(pool);
    const now = (options.clock ?? (() => new Date()))();
    const month = now.toISOString().slice(0, 7);
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
    await ensurePartitions(pool, [month, next]);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const store = new PgStore(pool, url, options);
  await store.subscriptions.listen();
  return store;
}
