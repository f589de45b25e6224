// Prometheus metrics (prom-client) at GET /metrics, outside the versioned prefix and without a
// partner key: served with a bearer METRICS_TOKEN, or to anyone with METRICS_PUBLIC=true, and not
// at all with neither. Labels are bounded: route
// templates, methods, statuses, codes, engine operations, causes; never a subscription or a key.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ServiceUnavailableError } from '../../failures.js';
import type { EngineObserver, EngineOperation } from '../../search/measuredEngine.js';
import { errorBody } from '../envelope.js';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { newRequestId } from '../middleware/requestId.js';
import { API_PREFIX } from '../routeTable.js';
import { outcomeOf } from '../requestOutcome.js';
import type { AppState } from '../state.js';

const METRICS_PATH = '/metrics';
const LIMITER_MODES = ['memory', 'redis', 'local-fallback'] as const;
type LimiterMode = (typeof LIMITER_MODES)[number];

/** What the metrics read at each scrape. */
interface MetricsSources {
  limiterMode(): LimiterMode;
  usagePending(): number;
  usageLogRows(): number;
  /** May be up to a minute old (it counts a table). */
  usageDailyRows(): number;
  /** The catalog's size and last reindex and sync times (ISO text or null). */
  catalogStatus(): Promise<{ grants: number; lastReindexAt: string | null; lastSyncAt: string | null }>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const NO_ROUTE = 'unmatched';
const OPERATOR_PATHS = new Set(['/healthz', '/readyz', METRICS_PATH]);

/** The bounded route label of a request: its template under the API, an operator path, or "unmatched" (no route). */
function routeOf(path: string, state: AppState): string {
  if (state.route !== undefined) return `${API_PREFIX}${state.route.template}`;
  return OPERATOR_PATHS.has(path) ? path : NO_ROUTE;
}

/** Who may scrape: the bearer token (METRICS_TOKEN), or anyone when `open` (METRICS_PUBLIC). */
interface MetricsAccess {
  token: string | null;
  open: boolean;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export class ApiMetrics implements EngineObserver {
  readonly registry = new Registry();
  private sources: MetricsSources | null = null;
  /** Failures thrown by the engine (so a 503 can name the engine as its cause). */
  private readonly engineFailures = new WeakSet<object>();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route'>;
  private readonly refused: Counter<'code'>;
  private readonly unavailable: Counter<'cause'>;
  private readonly engineLatency: Histogram<'engine' | 'operation'>;
  private readonly engineErrors: Counter<'engine' | 'operation'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'Requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer a request, by route template.',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.refused = new Counter({
      name: 'http_rate_limited_total',
      help: 'Requests refused with a 429, by error code (RATE_LIMITED, QUOTA_EXCEEDED).',
      labelNames: ['code'],
      registers,
    });
    this.unavailable = new Counter({
      name: 'http_service_unavailable_total',
      help: 'Requests answered 503, by cause (search_engine, store, other).',
      labelNames: ['cause'],
      registers,
    });
    this.engineLatency = new Histogram({
      name: 'search_engine_query_duration_seconds',
      help: 'Time of a search engine operation, by engine and operation.',
      labelNames: ['engine', 'operation'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.engineErrors = new Counter({
      name: 'search_engine_failures_total',
      help: 'Search engine operations that failed, by engine and operation.',
      labelNames: ['engine', 'operation'],
      registers,
    });
    const sources = () => this.sources;
    new Gauge({
      name: 'rate_limiter_mode',
      help: 'The limiter in use: 1 for the current mode (memory, redis, local-fallback), 0 for the others.',
      labelNames: ['mode'],
      registers,
      collect() {
        const current = sources()?.limiterMode();
        for (const mode of LIMITER_MODES) this.set({ mode }, mode === current ? 1 : 0);
      },
    });
    new Gauge({
      name: 'usage_rows_pending',
      help: 'Usage log rows buffered in memory, waiting to be written.',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.usagePending());
      },
    });
    new Gauge({
      name: 'usage_log_rows',
      help: 'Rows in the usage log (deleted after USAGE_RETENTION_DAYS).',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.usageLogRows());
      },
    });
    new Gauge({
      name: 'usage_daily_rows',
      help: 'Rows of per-day usage counts (kept for good).',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.usageDailyRows());
      },
    });
    const catalog = {
      grants: new Gauge({ name: 'catalog_grants', help: 'Grants in the catalog being served.', registers }),
      reindex: new Gauge({
        name: 'catalog_last_reindex_timestamp_seconds',
        help: 'Unix time of the last reindex (0: never).',
        registers,
      }),
      sync: new Gauge({
        name: 'catalog_last_sync_timestamp_seconds',
        help: 'Unix time of the last sync (0: never).',
        registers,
      }),
    };
    const seconds = (iso: string | null) => (iso === null ? 0 : Date.parse(iso) / 1000);
    // One read of the catalog's status per scrape, shared by the three gauges.
    this.catalogGauges = async () => {
      const s = this.sources;
      if (s === null) return;
      try {
        const status = await s.catalogStatus();
        catalog.grants.set(status.grants);
        catalog.reindex.set(seconds(status.lastReindexAt));
        catalog.sync.set(seconds(status.lastSyncAt));
      } catch {
        // The engine cannot answer: the gauges keep their last values; /readyz says why.
      }
    };
  }

  private readonly catalogGauges: () => Promise<void>;

  /** Tells the metrics where the scrape-time figures come from (once the stores exist). */
  watch(sources: MetricsSources): void {
    this.sources = sources;
  }

  observe(engine: string, operation: EngineOperation, seconds: number, failure?: unknown): void {
    this.engineLatency.observe({ engine, operation }, seconds);
    if (failure !== undefined) {
      this.engineErrors.inc({ engine, operation });
      if (typeof failure === 'object' && failure !== null) this.engineFailures.add(failure);
    }
  }

  /** The text a scrape gets. */
  async exposition(): Promise<string> {
    await this.catalogGauges();
    return this.registry.metrics();
  }

  /**
   * Counts every request and answers GET /metrics: with `Authorization: Bearer <token>` when a
   * token is set, to anyone when `open`; with neither, /metrics is not served (the app answers
   * 404 as for any unknown path). Placed first, so it times and counts every answer, errors included.
   */
  middleware(access: MetricsAccess): Middleware<AppState> {
    const expected = access.token === null ? null : digest(`Bearer ${access.token}`);
    const served = expected !== null || access.open;
    return async (ctx, next) => {
      if (served && ctx.path === METRICS_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
        if (expected !== null && !timingSafeEqual(digest(ctx.get('Authorization')), expected)) {
          const code: ErrorCode = 'UNAUTHORIZED';
          ctx.status = ERROR_STATUS[code];
          ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
          // Before the requestId layer: a request id of its own, in the one envelope.
          const requestId = newRequestId();
          ctx.set('X-Request-Id', requestId);
          ctx.body = errorBody(requestId, { code, message: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.' });
          return;
        }
        ctx.set('Content-Type', this.registry.contentType);
        ctx.body = await this.exposition();
        return;
      }
      const started = performance.now();
      try {
        await next();
      } finally {
        this.count(ctx.path, ctx.method, ctx.status, ctx.state, (performance.now() - started) / 1000);
      }
    };
  }

  private count(path: string, method: string, status: number, state: AppState, seconds: number): void {
    const route = routeOf(path, state);
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route }, seconds);
    const { errorCode, failure } = outcomeOf(state);
    if (status === 429 && errorCode !== undefined) this.refused.inc({ code: errorCode });
    if (status === 503) this.unavailable.inc({ cause: this.causeOf(failure) });
  }

  private causeOf(failure: unknown): string {
    if (typeof failure === 'object' && failure !== null && this.engineFailures.has(failure)) return 'search_engine';
    return failure instanceof ServiceUnavailableError ? 'store' : 'other';
  }
}
