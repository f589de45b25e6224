// The webhook deliverer: takes due messages from the outbox (claimed ahead, at most
// `concurrency` requests in flight, the earliest pending message per alert and grant only, so
// one grant's events arrive in order), signs and posts each, and records the attempt: DELIVERED on a 2xx, otherwise the
// next attempt after the schedule's delay, or FAILED after the last.
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

/**
 * How many messages a deliverer holds claimed, in slots (`concurrency`): those in flight and
 * those waiting for a slot. A claim is made once a slot's worth of room is free, so each claim
 * takes at least `concurrency` messages in one round trip.
 */
const CLAIMED_AHEAD = 3;

/**
 * Attempts are recorded together, in one transaction: once this many wait, or this long after the
 * first of them while other requests are in flight (a commit per turn of the event loop would write a
 * few rows each time; the commits, not the rows, are most of the cost). A message answered and not recorded yet is
 * still claimed here: nothing else sends it meanwhile, nor the next message of its alert and grant.
 */
const RECORD_BATCH = 64;
const RECORD_WAIT_MS = 10;

interface DelivererDeps {
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
  /** Claimed messages waiting for a slot, oldest claim first. */
  private readonly waiting: { message: DueMessage; claimedAt: number }[] = [];
  /** Ids claimed and not recorded yet: waiting, being posted or being recorded. */
  private readonly claimedIds = new Set<string>();
  /** Requests in flight (at most `concurrency`). */
  private posting = 0;
  private readonly settled = new Set<Promise<void>>();
  private claiming: Promise<number> | null = null;
  private unrecorded: { record: AttemptRecord; resolve: () => void; reject: (error: Error) => void }[] = [];
  private recordTimer: NodeJS.Timeout | null = null;
  /** A flush is due at the next turn of the event loop. */
  private recordSoon = false;
  private stopped = false;
  /** No new attempt starts while held (the requests in flight finish). */
  private holding = false;

  constructor(private readonly deps: DelivererDeps) {}

  /**
   * Holds new attempts back (true: the claimed messages waiting for a slot are given back) or
   * lets them go again (false). The worker of the instance that matches holds them while it
   * catches up, when other instances deliver.
   */
  hold(on: boolean): void {
    // What waits for a slot goes back to the outbox, for the other deliverers.
    if (on && !this.holding) this.release(this.takeWaiting());
    this.holding = on;
  }

  /** Empties the messages waiting for a slot; returns their ids (no longer claimed here). */
  private takeWaiting(): string[] {
    const ids = this.waiting.splice(0).map(({ message }) => message.id);
    for (const id of ids) this.claimedIds.delete(id);
    return ids;
  }

  /** How many more messages this deliverer may claim (CLAIMED_AHEAD slots' worth in all). */
  private get room(): number {
    return CLAIMED_AHEAD * this.deps.concurrency - this.posting - this.waiting.length;
  }

  /** Messages claimed and not recorded yet. */
  get busy(): number {
    return this.claimedIds.size;
  }

  /** Claims due messages when there is room and starts what fits; returns how many it claimed. One claim at a time. */
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

  /**
   * Claims ahead of the requests in flight (CLAIMED_AHEAD), so that a freed slot starts the next
   * attempt at once instead of after a claim's round trip (with PostgreSQL the claim, not the
   * request, would otherwise be the bound).
   */
  private async claim(): Promise<number> {
    await this.pacer.turn();
    const room = this.room;
    if (this.stopped || this.holding || room < this.deps.concurrency) return 0;
    const due = (
      await this.pacer.sync(() => this.deps.store.claimDue(this.deps.clock(), room, this.deps.claimMs))
    ).filter((m) => !this.claimedIds.has(m.id));
    const claimedAt = Date.now();
    for (const message of due) {
      this.claimedIds.add(message.id);
      this.waiting.push({ message, claimedAt });
    }
    this.startWaiting();
    return due.length;
  }

  /**
   * Starts waiting messages while slots are free. A message that waited a quarter of its claim
   * (a paced deliverer under load) is given back rather than sent late in its claim, when another
   * deliverer may be about to take it.
   */
  private startWaiting(): void {
    const stale: string[] = [];
    while (this.posting < this.deps.concurrency && this.waiting.length > 0 && !this.stopped && !this.holding) {
      const { message, claimedAt } = this.waiting.shift()!;
      if (Date.now() - claimedAt > this.deps.claimMs / 4) {
        this.claimedIds.delete(message.id);
        stale.push(message.id);
        continue;
      }
      this.posting += 1;
      const attempt = this.attempt(message, () => {
        this.posting -= 1;
        this.startWaiting();
        // Claim more once a slots' worth has room (not one claim per attempt).
        if (!this.stopped && this.room >= this.deps.concurrency) {
          this.deliverDue().catch((error: Error) =>
            this.deps.log.warn('claiming due webhooks failed; the worker retries', { reason: error.message }),
          );
        }
      }).finally(() => {
        this.claimedIds.delete(message.id);
        this.settled.delete(attempt);
      });
      this.settled.add(attempt);
    }
    this.release(stale);
  }

  private release(messageIds: string[]): void {
    if (messageIds.length === 0) return;
    this.deps.store
      .releaseClaims(messageIds)
      .catch((error: Error) =>
        this.deps.log.warn('claimed webhooks could not be given back; their claims run out', { reason: error.message }),
      );
  }

  /** Posts the message (`posted` is called when its request is over: its slot is free) and records the attempt. */
  private async attempt(message: DueMessage, posted: () => void): Promise<void> {
    const { post, retryScheduleMs, clock, log } = this.deps;
    const sentAt = clock();
    let result: AttemptResult;
    try {
      result = await this.pacer.sync(() =>
        post({
          url: message.url,
          body: message.payload,
          headers: signatureHeaders(message.id, sentAt, message.payload, message.secrets),
        }),
      );
    } finally {
      posted();
    }
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
      log.warn('a webhook attempt could not be recorded; it will be sent again', {
        messageId: message.id,
        reason: (error as Error).message,
      });
    }
    this.deps.onAttempt?.(message, result, next.status === 'PENDING' ? null : next.status);
  }

  /**
   * Records an attempt with the others that finish within RECORD_WAIT_MS of it (at most
   * RECORD_BATCH): one transaction for all of them. When no other request is in flight (no
   * answer to wait for), or RECORD_BATCH wait, they are recorded at the next turn of the event
   * loop. Resolves once it is written.
   */
  private record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unrecorded.push({ record, resolve, reject });
      if (this.unrecorded.length >= RECORD_BATCH || this.posting === 0) {
        if (!this.recordSoon) {
          this.recordSoon = true;
          setImmediate(() => void this.flush());
        }
      } else if (this.recordTimer === null) this.recordTimer = setTimeout(() => void this.flush(), RECORD_WAIT_MS);
    });
  }

  private async flush(): Promise<void> {
    if (this.recordTimer !== null) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    this.recordSoon = false;
    const batch = this.unrecorded.splice(0);
    if (batch.length === 0) return;
    try {
      await this.pacer.sync(() =>
        this.deps.store.recordAttempts(
          batch.map((b) => b.record),
          FAILURES_BEFORE_DISABLE,
        ),
      );
      for (const b of batch) b.resolve();
    } catch (error) {
      for (const b of batch) b.reject(error as Error);
    }
  }

  /** Claims nothing more, gives back what waits for a slot and waits for the attempts in flight. */
  async drain(): Promise<void> {
    this.stopped = true;
    await this.claiming?.catch(() => 0);
    await Promise.allSettled([...this.settled, this.deps.store.releaseClaims(this.takeWaiting())]);
  }
}
