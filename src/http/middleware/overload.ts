// Overload shedding: when the process is saturated, a new request gets a fast 503 with
// Retry-After instead of waiting in an unbounded queue. Two signals:
//  - searches in flight (GET /grants, /grants/filters, /grants/suggest, the CommonGrants list
//    and search, admitted and not yet answered) past the search workers' number plus SEARCH_QUEUE_LIMIT: a
//    new search is refused (other endpoints, /grants/:id included, are still served);
//  - the event loop's delay (the mean over the last second) past OVERLOAD_EVENT_LOOP_DELAY_MS:
//    every new API request is refused until the loop catches up.
// The guard runs before authentication and the limits, so a refused request spends nothing of
// the per-second rate or of the monthly allowance and is not logged as usage.
import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';
import type { RouteName } from '../routeTable.js';
import type { AppState } from '../state.js';

export type ShedReason = 'search_queue' | 'event_loop_delay';

/** The routes whose requests run a search (on the search workers when there are some). */
const SEARCH_ROUTES: ReadonlySet<string> = new Set<RouteName>([
  'grants',
  'grantFilters',
  'grantSimilar',
  'grantSuggest',
  'commonGrantsOpportunities',
  'commonGrantsSearch',
]);

interface OverloadOptions {
  /** Searches that run at once (the search workers; at least 1). */
  searchConcurrency: number;
  /** Searches allowed to wait beyond those running. */
  queueLimit: number;
  /** Event-loop delay that counts as saturation, in ms; 0: never. */
  eventLoopDelayMs: number;
  /** Told of each refused request. */
  onShed?(reason: ShedReason): void;
}

/** Seconds a refused request is told to wait. */
const SHED_RETRY_AFTER_SECONDS = 1;
/** How often the event loop's delay is sampled. */
const SAMPLE_EVERY_MS = 20;

/** Samples taken over this long make up the delay the guard reads. */
const WINDOW_MS = 1000;

/**
 * The event loop's delay: how late a timer due every SAMPLE_EVERY_MS fires, averaged over the
 * samples of the last second. A loop kept busy turn after turn shows its delay in every sample;
 * one long pause (a collection, a big synchronous task) is one late sample among many prompt
 * ones, and does not by itself make the process look saturated.
 */
class EventLoopDelaySampler {
  private samples: { at: number; delayMs: number }[] = [];
  private expected = performance.now() + SAMPLE_EVERY_MS;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.now();
      this.samples.push({ at: now, delayMs: Math.max(0, now - this.expected) });
      while (this.samples.length > 0 && this.samples[0].at < now - WINDOW_MS) this.samples.shift();
      this.expected = now + SAMPLE_EVERY_MS;
    }, SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  /** The mean delay of the last second's samples, in ms. */
  get delayMs(): number {
    if (this.samples.length === 0) return 0;
    let sum = 0;
    for (const sample of this.samples) sum += sample.delayMs;
    return sum / this.samples.length;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export class OverloadGuard {
  private inFlight = 0;
  /** When the last API request came (performance.now()). */
  private lastRequestAt = -Infinity;
  private readonly sampler: EventLoopDelaySampler | null;

  constructor(private readonly options: OverloadOptions) {
    this.sampler = options.eventLoopDelayMs > 0 ? new EventLoopDelaySampler() : null;
  }

  /** Searches admitted and not yet answered. */
  get searchesInFlight(): number {
    return this.inFlight;
  }

  /** Whether an API request came within the last `withinMs` (partners are being served). */
  requestsWithin(withinMs: number): boolean {
    return performance.now() - this.lastRequestAt < withinMs;
  }

  /** The event loop's last measured delay in ms (0 when not measured). */
  get eventLoopDelayMs(): number {
    return this.sampler?.delayMs ?? 0;
  }

  private shed(reason: ShedReason): never {
    this.options.onShed?.(reason);
    throw new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      'The service is overloaded; retry after the delay in Retry-After.',
      undefined,
      {
        'Retry-After': String(SHED_RETRY_AFTER_SECONDS),
      },
    );
  }

  middleware(): Middleware<AppState> {
    const { searchConcurrency, queueLimit, eventLoopDelayMs } = this.options;
    const searchBound = Math.max(1, searchConcurrency) + queueLimit;
    return async (ctx, next) => {
      this.lastRequestAt = performance.now();
      if (this.sampler !== null && this.sampler.delayMs > eventLoopDelayMs) this.shed('event_loop_delay');
      const route = ctx.state.route;
      if (route === undefined || !SEARCH_ROUTES.has(route.name)) return next();
      if (this.inFlight >= searchBound) this.shed('search_queue');
      this.inFlight++;
      try {
        await next();
      } finally {
        this.inFlight--;
      }
    };
  }

  stop(): void {
    this.sampler?.stop();
  }
}
