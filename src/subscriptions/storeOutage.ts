// What the API does while the shared subscriptions store (PostgreSQL) cannot answer: down, hung, or
// restarting. The policy (docs/operations.md, "When a shared service fails"):
// - A caller the store confirmed before the outage keeps being served for the grace period
//   (STORE_GRACE_SECONDS, counted from the first failure), from the answer remembered in memory.
// - Any other key, and every key once the grace has run out, gets 503 SERVICE_UNAVAILABLE with
//   Retry-After: an unknown key is never let in, a revoked one never revived.
// - Billable calls need a counter that still works: with Redis it counts the allowance and the
//   calls it admitted wait here (a count per subscription and month, bounded by the number of
//   subscriptions) until the store records them; without Redis nothing can count, so billable calls
//   are refused with 503 rather than served uncounted.
// - Usage rows wait in a bounded buffer and are written after recovery; past the bound the newest
//   rows are dropped and counted (never the allowance count, kept apart above). Outside an outage
//   an answer waits for its usage row's commit; during one it does not (the row waits in memory).
// - Recovery needs no restart: a probe every second while the outage lasts notices the store again.
// Everything here is in-process state with injected time; it knows no HTTP and no particular store.
import { ServiceUnavailableError } from '../failures.js';
import type { Logger } from '../log.js';
import { describeError } from '../log.js';
import { hashApiKey } from './apiKeys.js';
import type { Caller } from './port.js';

type Awaitable<T> = T | Promise<T>;

type StoreState = 'ok' | 'grace' | 'unavailable';

interface StoreOutageOptions {
  /** How long known callers are served after the store's first failure. */
  graceMs: number;
  /** A store call slower than this counts as a failure (a hung server answers nothing). */
  timeoutMs: number;
  now?: () => number;
}

export interface StoreStatus {
  state: StoreState;
  /** ISO time of the first failure of the current outage; null when the store answers. */
  since: string | null;
  /** Seconds of grace left (0 once it has run out); null when the store answers. */
  graceLeftSeconds: number | null;
}

/** Thrown while the store is out: the edge answers 503 SERVICE_UNAVAILABLE with Retry-After. */
export const storeUnavailable = (retryAfterSeconds = 5): ServiceUnavailableError =>
  new ServiceUnavailableError('The subscriptions store is unavailable', retryAfterSeconds);

/** Whether the store answers, and since when it has not. Shared by every decorator below. */
export class StoreOutage {
  private failingSince: number | null = null;
  private readonly recoveryListeners: (() => void | Promise<void>)[] = [];
  private readonly outageListeners: (() => void)[] = [];
  private readonly now: () => number;

  constructor(readonly options: StoreOutageOptions) {
    this.now = options.now ?? Date.now;
  }

  get failing(): boolean {
    return this.failingSince !== null;
  }

  /** True while the store answers, or fails since less than the grace period. */
  get withinGrace(): boolean {
    return this.failingSince === null || this.now() - this.failingSince < this.options.graceMs;
  }

  status(): StoreStatus {
    if (this.failingSince === null) return { state: 'ok', since: null, graceLeftSeconds: null };
    const left = Math.max(0, this.options.graceMs - (this.now() - this.failingSince));
    return {
      state: left > 0 ? 'grace' : 'unavailable',
      since: new Date(this.failingSince).toISOString(),
      graceLeftSeconds: Math.ceil(left / 1000),
    };
  }

  /** Seconds a refused client should wait: short, the store may be back any moment. */
  get retryAfterSeconds(): number {
    return 5;
  }

  /** Returns true when this failure starts an outage. */
  failed(): boolean {
    if (this.failingSince !== null) return false;
    this.failingSince = this.now();
    for (const listener of this.outageListeners) listener();
    return true;
  }

  /** Returns true when this success ends an outage (the recovery listeners then run). */
  succeeded(): boolean {
    if (this.failingSince === null) return false;
    this.failingSince = null;
    for (const listener of this.recoveryListeners)
      void Promise.resolve()
        .then(listener)
        .catch(() => {});
    return true;
  }

  onRecovery(listener: () => void | Promise<void>): void {
    this.recoveryListeners.push(listener);
  }

  onOutage(listener: () => void): void {
    this.outageListeners.push(listener);
  }

  /**
   * Runs a store call under the timeout, noting its failure, and its success unless `countSuccess`
   * is false (an answer that may come from a cache proves nothing about the store). A call that is
   * not a promise (a synchronous store) is taken as it is.
   */
  async guard<T>(call: () => Awaitable<T>, countSuccess = true): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = call();
      const value = isThenable(result)
        ? await Promise.race([
            result,
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(new Error(`store call timed out after ${this.options.timeoutMs} ms`)),
                this.options.timeoutMs,
              );
            }),
          ])
        : result;
      if (countSuccess) this.succeeded();
      return value;
    } catch (error) {
      this.failed();
      throw error;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

const isThenable = <T>(value: Awaitable<T>): value is Promise<T> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

interface CallerLookup {
  authenticate(key: string): Awaitable<Caller | null>;
}

/**
 * Authentication that survives an outage: every caller the store confirms is remembered (by key
 * hash, at most `maxRemembered`, least recently confirmed dropped first); while the store fails and
 * the grace lasts, a remembered caller is served as last confirmed. Anything else is refused with
 * the store-unavailable error.
 */
export class GraceCallerDirectory {
  private readonly remembered = new Map<string, Caller>();

  constructor(
    private readonly inner: CallerLookup,
    private readonly outage: StoreOutage,
    private readonly maxRemembered = 100_000,
  ) {}

  async authenticate(key: string): Promise<Caller | null> {
    const hash = hashApiKey(key);
    let caller: Caller | null;
    try {
      // The store may answer from its own cache: that ends no outage (the probe and the other
      // store calls do), and past the grace nobody is served, cached or not.
      caller = await this.outage.guard(() => this.inner.authenticate(key), false);
      if (!this.outage.withinGrace) throw storeUnavailable(this.outage.retryAfterSeconds);
    } catch {
      const known = this.outage.withinGrace ? this.remembered.get(hash) : undefined;
      if (known === undefined) throw storeUnavailable(this.outage.retryAfterSeconds);
      return known;
    }
    this.remembered.delete(hash);
    if (caller !== null) {
      this.remembered.set(hash, caller);
      if (this.remembered.size > this.maxRemembered)
        this.remembered.delete(this.remembered.keys().next().value as string);
    }
    return caller;
  }

  get rememberedCount(): number {
    return this.remembered.size;
  }
}

/**
 * Billable calls another counter (Redis) admitted while the store could not record them: one
 * count per subscription and month, written to the store once it answers again. Bounded by the
 * number of subscriptions × months, not by traffic.
 */
export class DeferredServedCalls {
  private readonly waiting = new Map<string, { subscriptionId: string; month: string; calls: number }>();
  private draining: Promise<void> | null = null;

  constructor(
    private readonly recordServed: (subscriptionId: string, month: string) => Promise<number>,
    private readonly log: Logger,
  ) {}

  add(subscriptionId: string, month: string): void {
    const id = `${subscriptionId}\u0000${month}`;
    const entry = this.waiting.get(id);
    if (entry) entry.calls += 1;
    else this.waiting.set(id, { subscriptionId, month, calls: 1 });
  }

  /** Calls waiting to be recorded. */
  get pending(): number {
    let n = 0;
    for (const entry of this.waiting.values()) n += entry.calls;
    return n;
  }

  /** Writes what waits; what fails stays for the next drain. Concurrent drains share one run. */
  drain(): Promise<void> {
    this.draining ??= this.drainOnce().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  private async drainOnce(): Promise<void> {
    for (const entry of this.waiting.values()) {
      while (entry.calls > 0) {
        try {
          await this.recordServed(entry.subscriptionId, entry.month);
        } catch (error) {
          this.log.warn('deferred allowance counts not yet recorded; retrying after the store recovers', {
            pending: this.pending,
            ...describeError(error),
          });
          return;
        }
        entry.calls -= 1;
      }
    }
    for (const [id, entry] of this.waiting) if (entry.calls === 0) this.waiting.delete(id);
  }
}

interface UsageRecorder<Row> {
  record(row: Row): Awaitable<void>;
  readonly pending: number;
}

/**
 * A bound on the usage rows held in memory while the store cannot take them. Past `maxRows` the
 * newest rows are dropped (counted in `dropped`, logged once per outage).
 */
export class BoundedUsageBuffer<Row> {
  private droppedRows = 0;
  private warned = false;

  constructor(
    private readonly inner: UsageRecorder<Row>,
    readonly maxRows: number,
    private readonly log: Logger,
  ) {}

  /** The inner log's answer (its commit), or nothing when the row is dropped. */
  record(row: Row): Awaitable<void> {
    if (this.inner.pending >= this.maxRows) {
      this.droppedRows += 1;
      if (!this.warned) {
        this.warned = true;
        this.log.error(
          'usage buffer full while the store is unavailable: new usage rows are dropped (the allowance count is ' +
            'not affected)',
          { maxRows: this.maxRows },
        );
      }
      return;
    }
    if (this.warned && this.inner.pending < this.maxRows / 2) this.warned = false;
    return this.inner.record(row);
  }

  get pending(): number {
    return this.inner.pending;
  }

  /** Rows dropped since start-up because the buffer was full. */
  get dropped(): number {
    return this.droppedRows;
  }
}

/**
 * While the store fails, probes it every `everyMs` until it answers again (which ends the outage
 * and runs the recovery listeners): recovery needs no request and no restart.
 */
export class RecoveryProbe {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly outage: StoreOutage,
    private readonly probe: () => Awaitable<unknown>,
    private readonly log: Logger,
    private readonly everyMs = 1000,
  ) {
    outage.onOutage(() => this.arm());
  }

  /** Called after a failure: schedules probing unless already scheduled. */
  arm(): void {
    if (this.stopped || this.timer !== null || !this.outage.failing) return;
    this.timer = setTimeout(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (this.stopped || !this.outage.failing) return;
    try {
      await this.outage.guard(this.probe);
      this.log.info('the subscriptions store answers again', {});
    } catch {
      this.arm();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
