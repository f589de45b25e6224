// Metrics of the search workers and of overload shedding, registered beside the API's others.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ShedReason } from '../middleware/overload.js';

/** What the gauges read at each scrape. */
interface SearchLoadSources {
  /** Searches waiting for a worker (0 without workers). */
  queued(): number;
  /** Workers running a search (0 without workers). */
  busy(): number;
  /** Searches admitted and not yet answered. */
  inFlight(): number;
  /** The event loop's last measured delay, in ms. */
  eventLoopDelayMs(): number;
}

export interface SearchLoadEvents {
  shed(reason: ShedReason): void;
  timeout(): void;
  workerLost(): void;
}

export function registerSearchLoadMetrics(registry: Registry, sources: SearchLoadSources): SearchLoadEvents {
  const registers = [registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('search_queue_length', 'Searches waiting for a search worker.', sources.queued);
  gauge('search_workers_busy', 'Search workers running a search.', sources.busy);
  gauge(
    'search_requests_in_flight',
    'Search requests (GET /grants, /grants/filters) admitted and not yet answered.',
    sources.inFlight,
  );
  gauge(
    'event_loop_delay_seconds',
    'The event loop delay last measured by the overload guard.',
    () => sources.eventLoopDelayMs() / 1000,
  );
  const shed = new Counter({
    name: 'http_requests_shed_total',
    help: 'Requests refused with a 503 because the process was saturated, by reason (search_queue, event_loop_delay).',
    labelNames: ['reason'],
    registers,
  });
  const timeouts = new Counter({
    name: 'search_timeouts_total',
    help: 'Searches that ran past SEARCH_TIMEOUT_MS on the search workers (answered 503).',
    registers,
  });
  const lost = new Counter({
    name: 'search_workers_lost_total',
    help: 'Search workers that stopped by themselves and were replaced.',
    registers,
  });
  return {
    shed: (reason) => shed.inc({ reason }),
    timeout: () => timeouts.inc(),
    workerLost: () => lost.inc(),
  };
}
