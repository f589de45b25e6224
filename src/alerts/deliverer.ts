// The webhook deliverer: takes due messages from the outbox (at most `concurrency` in flight,
// the earliest pending message per alert and grant only, so one grant's events arrive in
// order), signs and posts each, and records the attempt: DELIVERED on a 2xx, otherwise the next
// attempt after the schedule's delay, or FAILED after the last.
import type { Logger } from '../log.js';
import { FAILURES_BEFORE_DISABLE, type AttemptResult } from './model.js';
import { UNPACED, type AlertsPacer } from './pacing.js';
import { signatureHeaders } from './signing.js';
import type { AlertStore, AttemptRecord, DueMessage } from './store.js';
import type { WebhookRequest } from './webhookPost.js';

/**
 * What an attempt costs the thread beyond its measured synchronous parts, in ms (the socket, the
 * answer, the promises, the collector): an estimate. The alerts bench measures 0.6–0.7 ms of API
 * CPU per delivery on its 2-vCPU machine (matching aside); the pacer charges this much on top of
 * what it measures so that deliveries keep to their share while partners are served.
 */
const ATTEMPT_OVERHEAD_MS = 0.3;

export interface DelivererDeps {
  store: AlertStore;
  post: (request: WebhookRequest) => Promise<AttemptResult>;
  /** Delays after the first attempt, in milliseconds. */
  retryScheduleMs: readonly number[];
  concurrency: number;
  /** How long a claimed message stays reserved to this deliverer: longer than an attempt can take. */
  claimMs: number;
  clock: () => Date;
  log: Logger;
  /** How much of the thread delivering may take while partners are served (default: all of it). */
  pacer?: AlertsPacer;
  /** Called after every attempt (metrics). */
  onAttempt?: (message: DueMessage, result: AttemptResult, finished: 'DELIVERED' | 'FAILED' | null) => void;
}

export class WebhookDeliverer {
  private readonly inFlight = new Set<string>();
  private readonly settled = new Set<Promise<void>>();
  private claiming: Promise<number> | null = null;
  private unrecorded: { record: AttemptRecord; resolve: () => void; reject: (error: Error) => void }[] = [];
  private stopped = false;

  constructor(private readonly deps: DelivererDeps) {}

  get busy(): number {
    return this.inFlight.size;
  }

  /** Starts the attempts that are due and fit; returns how many it started. One claim at a time. */
  async deliverDue(): Promise<number> {
    if (this.claiming !== null) return this.claiming;
    this.claiming = this.claim().finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  private get pacer(): AlertsPacer {
    return this.deps.pacer ?? UNPACED;
  }

  private async claim(): Promise<number> {
    await this.pacer.turn();
    const room = this.deps.concurrency - this.inFlight.size;
    if (room <= 0 || this.stopped) return 0;
    const due = (await this.pacer.sync(() => this.deps.store.claimDue(this.deps.clock(), room, this.deps.claimMs))).filter((m) => !this.inFlight.has(m.id));
    for (const message of due) {
      this.inFlight.add(message.id);
      const attempt = this.attempt(message).finally(() => {
        this.inFlight.delete(message.id);
        this.settled.delete(attempt);
        // A slot is free: claim again once a quarter of the slots are (not one claim per attempt).
        if (!this.stopped && this.deps.concurrency - this.inFlight.size >= Math.max(1, this.deps.concurrency >> 2)) {
          this.deliverDue().catch((error: Error) => this.deps.log.warn('claiming due webhooks failed; the worker retries', { reason: error.message }));
        }
      });
      this.settled.add(attempt);
    }
    return due.length;
  }

  private async attempt(message: DueMessage): Promise<void> {
    const { post, retryScheduleMs, clock, log } = this.deps;
    const sentAt = clock();
    const result = await this.pacer.sync(() => post({ url: message.url, body: message.payload, headers: signatureHeaders(message.id, sentAt, message.payload, message.secrets) }));
    // The attempt's work outside the parts measured (the socket, the answer, the promises, the collector).
    this.pacer.spent(ATTEMPT_OVERHEAD_MS);
    const attempts = message.attempts + 1;
    const delay = retryScheduleMs[attempts - 1];
    const next = result.ok
      ? { status: 'DELIVERED' as const, nextAttemptAt: null }
      : delay === undefined
        ? { status: 'FAILED' as const, nextAttemptAt: null }
        : { status: 'PENDING' as const, nextAttemptAt: new Date(clock().getTime() + delay).toISOString() };
    try {
      await this.record({ messageId: message.id, result, next });
    } catch (error) {
      // Not recorded: the message stays due and is sent again with the same webhook-id.
      log.warn('a webhook attempt could not be recorded; it will be sent again', { messageId: message.id, reason: (error as Error).message });
    }
    this.deps.onAttempt?.(message, result, next.status === 'PENDING' ? null : next.status);
  }

  /**
   * Records an attempt with the others that finished in the same turn of the event loop: one
   * transaction for all of them. Resolves once it is written.
   */
  private record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unrecorded.push({ record, resolve, reject });
      if (this.unrecorded.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.unrecorded.splice(0);
    try {
      await this.pacer.sync(() => this.deps.store.recordAttempts(batch.map((b) => b.record), FAILURES_BEFORE_DISABLE));
      for (const b of batch) b.resolve();
    } catch (error) {
      for (const b of batch) b.reject(error as Error);
    }
  }

  /** Claims nothing more and waits for the attempts in flight. */
  async drain(): Promise<void> {
    this.stopped = true;
    await this.claiming?.catch(() => 0);
    await Promise.allSettled([...this.settled]);
  }
}
