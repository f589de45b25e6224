// createDeps(config): the engine, stores and limiters the app needs, and how to close them.
import { mkdirSync } from 'node:fs';
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './ratelimit/limiter.js';
import { RedisLink } from './ratelimit/redisConnection.js';
import { RedisAllowanceCounter } from './subscriptions/redisAllowance.js';
import { createSearchEngine } from './search/factory.js';
import { catalogStatusReader } from './search/catalogStatus.js';
import { measureEngine } from './search/measuredEngine.js';
import { ApiMetrics } from './http/metrics.js';
import { OverloadGuard } from './http/overload.js';
import { registerSearchLoadMetrics, type SearchLoadEvents } from './http/searchLoadMetrics.js';
import { PooledSqliteSearchEngine } from './search/sqlite/pooledEngine.js';
import { openSubscriptionsDb, subscriptionsPath } from './subscriptions/database.js';
import { SubscriptionStore } from './subscriptions/subscriptionStore.js';
import { SqliteAllowanceCounter, type AllowanceCounter } from './subscriptions/allowance.js';
import { DemoSubscription } from './subscriptions/demo.js';
import { UsageRetention, usageDailyRows, usageLogRows } from './subscriptions/usageRetention.js';
import { UsageStore, type UsageRow } from './subscriptions/usageStore.js';

export interface Deps extends AppDeps {
  /** The first start's demo subscription (created and announced by main.ts). */
  demo: DemoSubscription;
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: () => Date;
}

/** `read`'s answer, read again only once it is `maxAgeMs` old (a scrape every few seconds scans once a minute). */
function cachedFor<T>(maxAgeMs: number, read: () => T): () => T {
  let last: { at: number; value: T } | null = null;
  return () => {
    if (last === null || Date.now() - last.at >= maxAgeMs) last = { at: Date.now(), value: read() };
    return last.value;
  };
}

/** Last use of each key in a batch of usage rows, as ISO text. */
function lastUseByKey(rows: UsageRow[]): Map<string, string> {
  const last = new Map<string, Date>();
  for (const row of rows) {
    const seen = last.get(row.keyId);
    if (seen === undefined || seen.getTime() < row.at.getTime()) last.set(row.keyId, row.at);
  }
  return new Map([...last].map(([keyId, at]) => [keyId, at.toISOString()]));
}

export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<Deps> {
  const clock = options.clock ?? (() => new Date());
  mkdirSync(config.dataDir, { recursive: true });
  const metrics = new ApiMetrics();
  let searchEvents: SearchLoadEvents | null = null;
  const searchEngine = await createSearchEngine(config, { onTimeout: () => searchEvents?.timeout(), onWorkerLost: () => searchEvents?.workerLost() });
  const engine = measureEngine(searchEngine, metrics);
  const overload = new OverloadGuard({
    searchConcurrency: config.searchLoad.workers,
    queueLimit: config.searchLoad.queueLimit,
    eventLoopDelayMs: config.searchLoad.eventLoopDelayMs,
    onShed: (reason) => searchEvents?.shed(reason),
  });
  const poolLoad = () => (searchEngine instanceof PooledSqliteSearchEngine ? searchEngine.load : { queued: 0, busy: 0 });
  searchEvents = registerSearchLoadMetrics(metrics.registry, {
    queued: () => poolLoad().queued,
    busy: () => poolLoad().busy,
    inFlight: () => overload.searchesInFlight,
    eventLoopDelayMs: () => overload.eventLoopDelayMs,
  });
  const db = openSubscriptionsDb(subscriptionsPath(config.dataDir));
  const subscriptions = new SubscriptionStore(db, clock);
  const usage = new UsageStore(db, log, (rows) => subscriptions.touchKeys(lastUseByKey(rows)));
  const retention = new UsageRetention(db, config.usageRetentionDays, clock, log);
  retention.start();
  const recorded = new SqliteAllowanceCounter(db);
  let allowance: AllowanceCounter = recorded;
  let rateLimiter: RateLimiter = new MemoryRateLimiter();
  let redis: RedisLink | null = null;
  if (config.redis.url !== null) {
    redis = new RedisLink({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, commandTimeoutMs: config.redis.commandTimeoutMs }, log);
    rateLimiter = new RedisRateLimiter(redis, config.redis.instances);
    allowance = new RedisAllowanceCounter(redis, recorded, clock, log);
  }
  const readiness = (): { limits: 'memory' | 'redis' | 'local-fallback' } => (redis === null ? { limits: 'memory' } : redis.state);
  metrics.watch({
    limiterMode: () => readiness().limits,
    usagePending: () => usage.pending,
    usageLogRows: () => usageLogRows(db),
    usageDailyRows: cachedFor(60_000, () => usageDailyRows(db)),
    catalogStatus: catalogStatusReader(config, engine),
  });
  return {
    engine,
    subscriptions,
    usage,
    allowance,
    rateLimiter,
    clock,
    log,
    demo: new DemoSubscription(db, subscriptions, clock),
    corsOrigins: config.corsOrigins,
    compression: config.compression,
    readiness,
    metrics: { layer: metrics.middleware(config.metricsToken) },
    overload: { layer: overload.middleware() },
    async close() {
      retention.stop();
      overload.stop();
      recorded.close();
      usage.close();
      await rateLimiter.close();
      await redis?.close();
      await engine.close();
      db.close();
    },
  };
}
