// createDeps(config): the engine, stores and limiters the app needs, and how to close them; each
// subsystem builds its part in src/deps/ (search, stores, alerts, limits), composed here.
import { mkdirSync } from 'node:fs';
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { catalogStatusReader } from './search/catalogStatus.js';
import { ApiMetrics } from './http/metrics/apiMetrics.js';
import type { DemoRecords, SubscriptionsStore } from './subscriptions/port.js';
import type { AlertsRuntime } from './alerts/runtime.js';
import type { Resolver } from './alerts/targets.js';
import { createSearch } from './deps/search.js';
import { openStoresPart, type StoresPart } from './deps/stores.js';
import { createAlerts } from './deps/alerts.js';
import { createLimits } from './deps/limits.js';

export interface Deps extends AppDeps {
  /** The first start's demo subscription (created and announced by main.ts). */
  demo: DemoRecords;
  /** Subscriptions, keys, the monthly record and usage: SQLite in DATA_DIR, or PostgreSQL (DATABASE_URL). */
  store: SubscriptionsStore;
  /** Alerts: their store, matcher and deliverer; null when alerts are off. */
  alertsRuntime: AlertsRuntime | null;
  close(): Promise<void>;
}

interface DepsOptions {
  clock?: () => Date;
  /** How webhook hosts are resolved (the system's resolver by default). */
  resolve?: Resolver;
}

export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<Deps> {
  const clock = options.clock ?? (() => new Date());
  mkdirSync(config.dataDir, { recursive: true });
  const metrics = new ApiMetrics();
  const search = await createSearch(config, metrics);
  const { engine, overload } = search;
  let stores: StoresPart;
  try {
    stores = await openStoresPart(config, log, clock);
  } catch (error) {
    await search.close();
    throw error;
  }
  const { store, guarded, subscriptions, usage } = stores;
  const alertsRuntime = createAlerts(config, stores, search, metrics, { clock, log, resolve: options.resolve });
  alertsRuntime?.start();
  const limits = createLimits(config, stores.allowance, clock, log);
  const alertFacts = () =>
    alertsRuntime === null ? {} : { alerts: { matcherLagSeconds: Math.round(alertsRuntime.matcher.lagSeconds) } };
  const readiness = (): Record<string, unknown> & { limits: 'memory' | 'redis' | 'local-fallback' } =>
    guarded === null
      ? { ...limits.state(), ...alertFacts() }
      : { ...limits.state(), store: guarded.health(), ...alertFacts() };
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
    allowance: limits.allowance,
    rateLimiter: limits.rateLimiter,
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
     * work first (the overload sampler, the alert worker), then the stores (each commits its last
     * group commit and pending usage rows before it closes), the limiter and Redis, and the
     * search engine last.
     */
    async close() {
      overload.stop();
      await alertsRuntime?.stop();
      await stores.close();
      await limits.close();
      await engine.close();
    },
  };
}
