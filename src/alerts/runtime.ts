// An API process's alerts: the store, the matcher and the deliverer wired together, the worker
// that runs them (ALERTS_WORKER), and the figures /metrics and /readyz report.
import type { AlertsConfig } from '../config.js';
import type { GrantConditions } from '../grants/matching.js';
import type { Logger } from '../log.js';
import type { SearchEngine } from '../search/engine.js';
import { WebhookDeliverer } from './deliverer.js';
import { AlertMatcher, type TextMatching } from './matcher.js';
import type { AlertQuery, AttemptResult } from './model.js';
import { AlertsPacer } from './pacing.js';
import type { AlertStore, DueMessage } from './store.js';
import { cachedResolver } from './cachedResolver.js';
import { systemResolver, type Resolver } from './targets.js';
import { postWebhook, WebhookConnections } from './webhookPost.js';
import { AlertsWorker } from './worker.js';

interface AlertsRuntimeDeps {
  store: AlertStore;
  engine: SearchEngine;
  compile: (query: AlertQuery) => GrantConditions;
  text: TextMatching & { close?(): void };
  config: AlertsConfig;
  clock: () => Date;
  log: Logger;
  /**
   * API instances in the fleet (API_INSTANCES): with more than one, the matching instance leaves delivering to the
   * others while it catches up.
   */
  instances?: number;
  /** Whether partner requests are being served now: alerts then take at most config.busyPercent of the thread. */
  partnersBusy?: () => boolean;
  onAttempt?: (message: DueMessage, result: AttemptResult, finished: 'DELIVERED' | 'FAILED' | null) => void;
  /** How webhook hosts are resolved (the system's resolver by default). */
  resolve?: Resolver;
}

export class AlertsRuntime {
  readonly matcher: AlertMatcher;
  readonly deliverer: WebhookDeliverer;
  private readonly worker: AlertsWorker;
  private readonly connections = new WebhookConnections();
  /** Each host's lookup kept a few seconds; every delivery still checks the addresses it connects to. */
  private readonly resolve: Resolver;

  constructor(private readonly deps: AlertsRuntimeDeps) {
    this.resolve = cachedResolver(deps.resolve ?? systemResolver);
    const { store, engine, compile, text, config, clock, log } = deps;
    const pacer = new AlertsPacer(deps.partnersBusy ?? (() => false), config.busyPercent / 100);
    this.matcher = new AlertMatcher({ engine, store, compile, text, clock, log, pacer });
    this.deliverer = new WebhookDeliverer({
      store,
      post: (request) =>
        postWebhook(request, {
          timeoutMs: config.timeoutMs,
          allowHttp: config.allowHttp,
          allowPrivate: config.allowPrivate,
          clock,
          connections: this.connections,
          resolve: this.resolve,
        }),
      retryScheduleMs: config.retryScheduleMs,
      concurrency: config.concurrency,
      claimMs: config.timeoutMs + 30_000,
      clock,
      log,
      pacer,
      onAttempt: deps.onAttempt,
    });
    this.worker = new AlertsWorker(this.matcher, this.deliverer, config.pollMs, log, (deps.instances ?? 1) > 1);
  }

  get store(): AlertStore {
    return this.deps.store;
  }

  get policy() {
    return { allowHttp: this.deps.config.allowHttp, allowPrivate: this.deps.config.allowPrivate };
  }

  start(): void {
    if (this.deps.config.worker) this.worker.start();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    this.connections.close();
    this.deps.text.close?.();
  }
}
