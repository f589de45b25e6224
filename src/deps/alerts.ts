// The alerts part of the API's dependencies: the runtime that matches changes against alerts and
// delivers their webhooks, searching as GET /grants does, yielding to partner requests.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { AlertsRuntime } from '../alerts/runtime.js';
import type { Resolver } from '../alerts/targets.js';
import type { Stores } from '../stores.js';
import type { SubscriptionsStore } from '../subscriptions/port.js';
import { BatchTextMatcher } from '../search/sqlite/query/batchTextMatcher.js';
import { withSynonymsApplied } from '../search/synonymSearch.js';
import { compileAlertQuery } from '../http/parameters/alertBody.js';
import type { ApiMetrics } from '../http/metrics/apiMetrics.js';
import { registerAlertMetrics } from '../http/metrics/alertMetrics.js';
import type { SearchPart } from './search.js';

interface AlertsOptions {
  clock: () => Date;
  log: Logger;
  /** How webhook hosts are resolved (the system's resolver by default). */
  resolve?: Resolver;
}

/** The alerts runtime (not started), or null when the stores opened no alerts store. */
export function createAlerts(
  config: Config,
  stores: { store: SubscriptionsStore; alerts: Stores['alerts'] },
  search: SearchPart,
  metrics: ApiMetrics,
  { clock, log, resolve }: AlertsOptions,
): AlertsRuntime | null {
  if (stores.alerts === null) {
    log.warn(
      'alerts are off: with DATABASE_URL, set SECRETS_KEY (the same on every instance) to encrypt webhook ' +
        'signing secrets',
      {},
    );
    return null;
  }
  const shared = stores.store.kind === 'postgres';
  const alertMetrics = registerAlertMetrics(metrics.registry);
  const runtime = new AlertsRuntime({
    store: stores.alerts.store,
    engine: search.engine,
    // An alert's search as GET /grants runs it: with the same synonyms.
    compile: (query) => withSynonymsApplied(compileAlertQuery(query), search.synonyms),
    text: new BatchTextMatcher(),
    config: config.alerts,
    instances: shared ? config.redis.instances : 1,
    clock,
    log,
    // A request within the last 50 ms: partners are being served, alerts take their share only.
    partnersBusy: () => search.overload.requestsWithin(50),
    onAttempt: alertMetrics.attempt,
    resolve,
  });
  alertMetrics.watch(runtime);
  return runtime;
}
