// The alerts' figures on /metrics: deliveries by outcome, delivery latency, the matcher's lag
// behind the change log and the outbox's depth. No alert, URL or subscription id in any label.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AttemptResult } from '../../alerts/model.js';
import type { MatcherTotals } from '../../alerts/matcher.js';
import type { AlertsRuntime } from '../../alerts/runtime.js';
import type { DueMessage } from '../../alerts/store.js';

export function registerAlertMetrics(registry: Registry) {
  const attempts = new Counter({
    name: 'grants_webhook_attempts_total',
    help:
      'Webhook delivery attempts by outcome (delivered, retry: failed with a retry to come, failed: the last ' +
      'attempt failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'grants_webhook_delivery_seconds',
    help: 'From the message written to the outbox to its delivery (2xx), in seconds.',
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600],
    registers: [registry],
  });
  let runtime: AlertsRuntime | null = null;
  new Gauge({
    name: 'grants_alert_matcher_lag_seconds',
    help: 'How far the alert matcher is behind the catalog change log, in seconds.',
    registers: [registry],
    collect() {
      this.set(runtime?.matcher.lagSeconds ?? 0);
    },
  });
  new Gauge({
    name: 'grants_webhook_outbox_depth',
    help: 'Webhook messages waiting for delivery (PENDING).',
    registers: [registry],
    async collect() {
      this.set(runtime === null ? 0 : await runtime.store.outboxDepth().catch(() => 0));
    },
  });
  const totals: [string, string, (t: MatcherTotals) => number][] = [
    [
      'grants_alert_matcher_changes_total',
      'Catalog changes the alert matcher of this process has decided.',
      (t) => t.changes,
    ],
    [
      'grants_alert_matcher_checks_total',
      'Change × alert pairs the alert matcher of this process has decided.',
      (t) => t.checks,
    ],
    [
      'grants_alert_matcher_events_total',
      'Events the alert matcher of this process has written to the outbox.',
      (t) => t.events,
    ],
    [
      'grants_alert_matcher_seconds_total',
      'Time the alert matcher of this process has spent deciding batches of changes, in seconds.',
      (t) => t.seconds,
    ],
  ];
  for (const [name, help, read] of totals) {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        if (runtime !== null) this.inc(read(runtime.matcher.totals));
      },
    });
  }
  return {
    attempt(message: DueMessage, result: AttemptResult, finished: 'DELIVERED' | 'FAILED' | null) {
      attempts.inc({ outcome: result.ok ? 'delivered' : finished === 'FAILED' ? 'failed' : 'retry' });
      if (result.ok) latency.observe(Math.max(0, (Date.now() - Date.parse(message.createdAt)) / 1000));
    },
    watch(r: AlertsRuntime) {
      runtime = r;
    },
  };
}
