// createDeps(config): the engine, stores and limiters the app needs, and how to close them.
import { mkdirSync } from 'node:fs';
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './ratelimit/limiter.js';
import { RedisLink } from './ratelimit/redisConnection.js';
import { RedisAllowanceCounter } from './subscriptions/redis/allowanceCounter.js';
import { createSearchEngine } from './search/factory.js';
import { catalogStatusReader } from './search/catalogStatus.js';
import { measureEngine } from './search/measuredEngine.js';
import { loadSynonyms, synonymEngine, withSynonymsApplied } from './search/synonymSearch.js';
import { ApiMetrics } from './http/metrics/apiMetrics.js';
import { OverloadGuard } from './http/middleware/overload.js';
import { registerSearchLoadMetrics, type SearchLoadEvents } from './http/metrics/searchLoadMetrics.js';
import type { AllowanceCounter, DemoRecords, SubscriptionsStore } from './subscriptions/store.js';
import { guardStore } from './subscriptions/guardedStore.js';
import { openStores, type Stores } from './stores.js';
import { AlertsRuntime } from './alerts/runtime.js';
import { FtsTextMatcher } from './search/sqlite/query/textMatcher.js';
import { compileAlertQuery } from './http/parameters/alertBody.js';
import { registerAlertMetrics } from './http/metrics/alertMetrics.js';
import type { Resolver } from './alerts/targets.js';

export interface Deps extends AppDeps {
  /** The first start's demo subscription (created and announced by main.ts). */
  demo: DemoRecords;
  /** Subscriptions, keys, the monthly record and usage: SQLite in DATA_DIR, or PostgreSQL (DATABASE_URL). */
  store: SubscriptionsStore;
  /** Alerts: their store, matcher and deliverer (the embedded SQLite store only, for now). */
  alertsRuntime: AlertsRuntime | null;
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: () => Date;
  /** How webhook hosts are resolved (the system's resolver by default). */
  resolve?: Resolver;
}

export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<Deps> {
  const clock = options.clock ?? (() => new Date());
  mkdirSync(config.dataDir, { recursive: true });
  // Read before anything is opened: an invalid file stops the start, naming its line.
  const synonyms = loadSynonyms(config.synonymsFile);
  const metrics = new ApiMetrics();
  let searchEvents: SearchLoadEvents | null = null;
  const searchEngine = await createSearchEngine(config, { onTimeout: () => searchEvents?.timeout(), onWorkerLost: () => searchEvents?.workerLost() });
  const engine = synonymEngine(measureEngine(searchEngine, metrics), synonyms);
  const overload = new OverloadGuard({
    searchConcurrency: config.searchLoad.workers,
    queueLimit: config.searchLoad.queueLimit,
    eventLoopDelayMs: config.searchLoad.eventLoopDelayMs,
    onShed: (reason) => searchEvents?.shed(reason),
  });
  const poolLoad = () => searchEngine.pending?.() ?? { queued: 0, busy: 0 };
  searchEvents = registerSearchLoadMetrics(metrics.registry, {
    queued: () => poolLoad().queued,
    busy: () => poolLoad().busy,
    inFlight: () => overload.searchesInFlight,
    eventLoopDelayMs: () => overload.eventLoopDelayMs,
  });
  let opened: Stores;
  try {
    opened = await openStores(config, log, { clock });
  } catch (error) {
    overload.stop();
    await engine.close();
    throw error;
  }
  const { store } = opened;
  store.startRetention();
  let alertsRuntime: AlertsRuntime | null = null;
  if (opened.alerts === null) log.warn('alerts are off: with DATABASE_URL, set SECRETS_KEY (the same on every instance) to encrypt webhook signing secrets', {});
  else {
    const alertMetrics = registerAlertMetrics(metrics.registry);
    alertsRuntime = new AlertsRuntime({
      store: opened.alerts.store,
      engine,
      // An alert's search as GET /grants runs it: with the same synonyms.
      compile: (query) => withSynonymsApplied(compileAlertQuery(query), synonyms),
      text: new FtsTextMatcher(),
      config: config.alerts,
      instances: store.kind === 'postgres' ? config.redis.instances : 1,
      clock,
      log,
      // A request within the last 50 ms: partners are being served, alerts take their share only.
      partnersBusy: () => overload.requestsWithin(50),
      onAttempt: alertMetrics.attempt,
      resolve: options.resolve,
    });
    alertMetrics.watch(alertsRuntime);
  }
  alertsRuntime?.start();
  // A shared store can fail while the API runs: the outage policy (docs/operations.md, "When a shared service fails").
  const guarded = store.kind === 'postgres' ? guardStore(store, config.storeOutage, { countsInRedis: config.redis.url !== null, log }) : null;
  const { subscriptions, usage } = guarded ?? store;
  const recorded = guarded?.allowance ?? store.allowance;
  let allowance: AllowanceCounter = recorded;
  let rateLimiter: RateLimiter = new MemoryRateLimiter();
  let redis: RedisLink | null = null;
  if (config.redis.url !== null) {
    redis = new RedisLink({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, commandTimeoutMs: config.redis.commandTimeoutMs }, log);
    rateLimiter = new RedisRateLimiter(redis, config.redis.instances);
    allowance = new RedisAllowanceCounter(redis, recorded, clock, log);
  }
  const limits = (): { limits: 'memory' | 'redis' | 'local-fallback' } => (redis === null ? { limits: 'memory' } : redis.state);
  const alertFacts = () => (alertsRuntime === null ? {} : { alerts: { matcherLagSeconds: Math.round(alertsRuntime.matcher.lagSeconds) } });
  const readiness = (): Record<string, unknown> & { limits: 'memory' | 'redis' | 'local-fallback' } =>
    guarded === null ? { ...limits(), ...alertFacts() } : { ...limits(), store: guarded.health(), ...alertFacts() };
  metrics.watch({
    limiterMode: () => readiness().limits,
    usagePending: () => usage.pending,
    usageLogRows: () => store.sizes().usageLogRows,
    usageDailyRows: () => store.sizes().usageDailyRows,
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
    demo: store.demo,
    store,
    alertsRuntime,
    alerts: alertsRuntime === null ? undefined : { store: alertsRuntime.store, policy: alertsRuntime.policy },
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    compression: config.compression,
    readiness,
    ready: () => guarded === null || guarded.outage.withinGrace,
    metrics: { layer: metrics.middleware({ token: config.metricsToken, open: config.metricsPublic }) },
    overload: { layer: overload.middleware() },
    /**
     * Called once the server has stopped and every request has run to its end: the background
     * work first (the overload sampler, the alert worker), then the stores (each writes its last
     * write turn and pending usage rows before it closes), the limiter and Redis, and the search
     * engine last.
     */
    async close() {
      overload.stop();
      await alertsRuntime?.stop();
      await guarded?.stop();
      await store.close();
      await rateLimiter.close();
      await redis?.close();
      await engine.close();
    },
  };
}
