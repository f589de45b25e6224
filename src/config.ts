// Environment → validated, frozen Config: the settings table (src/settings.ts) read and validated
// by its schema, then the checks across settings; every problem is listed at once.
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { type LogFormatSetting, type LogLevel, type SearchEngineName, type SettingValues } from './settings.js';
import { parseDurations, readSettings, type Env } from './settingsReader.js';

export { LOG_LEVELS, SEARCH_ENGINES } from './settings.js';
export type { LogLevel, LogFormatSetting, SearchEngineName } from './settings.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  searchEngine: SearchEngineName;
  logLevel: LogLevel;
  /** auto: pretty lines when stdout is a terminal, JSON lines otherwise. */
  logFormat: LogFormatSetting;
  /** Index the bundled fixtures when the catalog is empty at start-up. */
  seedCatalog: boolean;
  seedFile: string;
  /** The operator's synonyms (SYNONYMS_FILE, Solr synonym format: src/grants/synonyms.ts), read at start-up. */
  synonymsFile: string;
  elasticsearch: { url: string; index: string; requestTimeoutMs: number; replicas: number };
  redis: {
    url: string | null;
    keyPrefix: string;
    commandTimeoutMs: number;
    /** API instances sharing the budget: the in-memory insurance limiter allows 1/instances of the rate. */
    instances: number;
  };
  demoApiKey: string | null;
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** GET /metrics served to anyone without a token (METRICS_PUBLIC); without either, /metrics is not served. */
  metricsPublic: boolean;
  shutdownTimeoutMs: number;
  /** Origins whose pages may call the API from a browser (CORS); "*" for any; empty for none. */
  corsOrigins: string[];
  /**
   * Proxies whose X-Forwarded-For is believed (TRUST_PROXY): addresses, CIDR ranges or proxy-addr's names; none by
   * default.
   */
  trustProxy: string[];
  /** The HTTP server's own bounds on slow or idle clients (src/server.ts). */
  http: HttpBounds;
  /** Usage rows older than this many days are deleted in the background (usage_daily keeps the counts). */
  usageRetentionDays: number;
  /** Tombstones of the changes feed are kept this many days (then a `since` before them is a 410). */
  changesRetentionDays: number;
  /**
   * Days a grant's versions (GET /grants/:id/history) are kept; older ones are dropped by the next grants-indexer run.
   */
  historyRetentionDays: number;
  /**
   * Searches off the event loop and the process's overload bounds (src/search/sqlite/runtime/workerPool.ts,
   * src/http/middleware/overload.ts).
   */
  searchLoad: SearchLoadConfig;
  /** Response compression levels (COMPRESSION_GZIP_LEVEL, COMPRESSION_BROTLI_QUALITY); null when COMPRESSION=false. */
  compression: { gzipLevel: number; brotliQuality: number } | null;
  /** PostgreSQL for subscriptions, keys and usage (a fleet's shared store); null: SQLite in DATA_DIR. */
  databaseUrl: string | null;
  /** What the API does while a shared (PostgreSQL) store fails (src/subscriptions/storeOutage.ts). */
  storeOutage: StoreOutageSettings;
  /** Alerts: the matcher and the webhook deliverer (src/alerts/). */
  alerts: AlertsConfig;
}

export interface AlertsConfig {
  /** This process matches changes and delivers webhooks (ALERTS_WORKER). */
  worker: boolean;
  /** A delivery attempt's time budget (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Delays after the first attempt, in milliseconds (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleMs: number[];
  /** Deliveries in flight at once in this process (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Accept http:// targets (development and tests only). */
  allowHttp: boolean;
  /** Accept loopback and private targets (development and tests only). */
  allowPrivate: boolean;
  /** How often the matcher looks for new changes and due reminders, in milliseconds. */
  pollMs: number;
  /**
   * The share of the API thread, in percent, matching and delivering may take while partner requests are served
   * (ALERTS_BUSY_PERCENT).
   */
  busyPercent: number;
  /** AES-256-GCM key (base64 of 32 bytes) for the signing secrets at rest; null: generated in DATA_DIR. */
  secretsKey: string | null;
  /** Keys rotated from (SECRETS_KEY_PREVIOUS, comma-separated): secrets sealed with them still open until re-sealed. */
  secretsKeyPrevious: string[];
}

interface SearchLoadConfig {
  /** Worker threads running the embedded engine's searches; 0: searches run on the event loop. */
  workers: number;
  /**
   * A search's time budget (queue wait included); past it a 503 (SQLite: the worker is replaced; Elasticsearch: the
   * request timeout).
   */
  timeoutMs: number;
  /** Searches waiting for a worker beyond those running; one more gets a fast 503. */
  queueLimit: number;
  /** Event-loop delay past which new API requests get a fast 503; 0: never. */
  eventLoopDelayMs: number;
  /**
   * The nice value of the search worker and index loader threads (the event loop keeps 0), so cheap requests are
   * scheduled first.
   */
  workerNice: number;
}

export interface StoreOutageSettings {
  /** Callers confirmed before an outage are served this long after it starts. */
  graceSeconds: number;
  /** A store call slower than this counts as a failure. */
  timeoutMs: number;
  /** Usage rows held in memory while the store is out. */
  usageBufferRows: number;
}

export interface HttpBounds {
  /** Time allowed to receive the request line and headers; a slower client is cut off (slow-loris). */
  headersTimeoutMs: number;
  /** Time allowed to receive a whole request. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /**
   * After an answer the server gives before closing (408, 400, 431 from the parser), the client has
   * this long to close its side; then the connection is cut (a client that never reads nor closes
   * cannot hold it).
   */
  lingerMs: number;
}

export const DEFAULT_HTTP_BOUNDS: HttpBounds = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  lingerMs: 5_000,
});

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** The checks that read more than one setting, or a list as a whole: each returns its problems. */
const CROSS_CHECKS: ((values: SettingValues, env: Env) => string[])[] = [
  function corsOrigins({ CORS_ORIGINS }) {
    return CORS_ORIGINS.filter((origin) => !isOriginOrAny(origin)).map(
      (origin) =>
        `CORS_ORIGINS must list "*" or origins such as https://app.example.com (scheme, host, optional ` +
        `port; no path) (got "${origin.slice(0, 100)}")`,
    );
  },
  function trustedProxies({ TRUST_PROXY }, env) {
    try {
      proxyaddr.compile(TRUST_PROXY);
      return [];
    } catch {
      return [
        `TRUST_PROXY must list the proxies to trust: IP addresses, CIDR ranges or loopback, linklocal, ` +
          `uniquelocal (got "${(env.TRUST_PROXY ?? '').slice(0, 100)}")`,
      ];
    }
  },
  function metricsOpenOrTokenNotBoth({ METRICS_PUBLIC, METRICS_TOKEN }) {
    return METRICS_PUBLIC && METRICS_TOKEN !== null
      ? ['METRICS_PUBLIC=true serves /metrics without a token: unset it or METRICS_TOKEN']
      : [];
  },
  function requestTimeoutCoversHeaders({ HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS }) {
    return HTTP_REQUEST_TIMEOUT_MS < HTTP_HEADERS_TIMEOUT_MS
      ? ['HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS']
      : [];
  },
  function previousKeysNeedAKey({ SECRETS_KEY_PREVIOUS, SECRETS_KEY }) {
    return SECRETS_KEY_PREVIOUS.length > 0 && SECRETS_KEY === null
      ? ['SECRETS_KEY_PREVIOUS needs SECRETS_KEY (the key rotated to)']
      : [];
  },
];

/** "*", or an http(s) origin written as its origin (scheme, host, optional port; no path). */
function isOriginOrAny(origin: string): boolean {
  if (origin === '*') return true;
  try {
    const parsed = new URL(origin);
    return ['http:', 'https:'].includes(parsed.protocol) && parsed.origin === origin;
  } catch {
    return false;
  }
}

const withoutTrailingSlashes = (url: string): string => url.replace(/\/+$/, '');

/** The environment (process.env by default) → the Config, or a ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const { values: v, problems } = readSettings(env);
  for (const check of CROSS_CHECKS) problems.push(...check(v, env));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port: v.PORT,
    host: v.HOST,
    dataDir: path.resolve(v.DATA_DIR),
    searchEngine: v.SEARCH_ENGINE,
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT,
    seedCatalog: v.SEED_CATALOG,
    seedFile: path.resolve(v.SEED_FILE),
    synonymsFile: path.resolve(v.SYNONYMS_FILE),
    elasticsearch: {
      url: withoutTrailingSlashes(v.ELASTICSEARCH_URL),
      index: v.ELASTICSEARCH_INDEX,
      requestTimeoutMs: v.ELASTICSEARCH_TIMEOUT_MS,
      replicas: v.ELASTICSEARCH_REPLICAS,
    },
    redis: {
      url: v.REDIS_URL === null ? null : withoutTrailingSlashes(v.REDIS_URL),
      keyPrefix: v.REDIS_KEY_PREFIX,
      commandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS,
      instances: v.API_INSTANCES,
    },
    demoApiKey: v.DEMO_API_KEY,
    metricsToken: v.METRICS_TOKEN,
    metricsPublic: v.METRICS_PUBLIC,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    corsOrigins: v.CORS_ORIGINS,
    trustProxy: v.TRUST_PROXY,
    http: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      lingerMs: v.HTTP_LINGER_MS,
    },
    usageRetentionDays: v.USAGE_RETENTION_DAYS,
    changesRetentionDays: v.CHANGES_RETENTION_DAYS,
    historyRetentionDays: v.HISTORY_RETENTION_DAYS,
    searchLoad: {
      workers: v.SEARCH_WORKERS,
      timeoutMs: v.SEARCH_TIMEOUT_MS,
      queueLimit: v.SEARCH_QUEUE_LIMIT,
      eventLoopDelayMs: v.OVERLOAD_EVENT_LOOP_DELAY_MS,
      workerNice: v.SEARCH_WORKER_NICE,
    },
    compression: v.COMPRESSION
      ? { gzipLevel: v.COMPRESSION_GZIP_LEVEL, brotliQuality: v.COMPRESSION_BROTLI_QUALITY }
      : null,
    databaseUrl: v.DATABASE_URL,
    storeOutage: {
      graceSeconds: v.STORE_GRACE_SECONDS,
      timeoutMs: v.STORE_TIMEOUT_MS,
      usageBufferRows: v.STORE_USAGE_BUFFER_ROWS,
    },
    alerts: {
      worker: v.ALERTS_WORKER,
      timeoutMs: v.WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: parseDurations(v.WEBHOOK_RETRY_SCHEDULE) as number[],
      concurrency: v.WEBHOOK_CONCURRENCY,
      allowHttp: v.WEBHOOK_ALLOW_HTTP,
      allowPrivate: v.WEBHOOK_ALLOW_PRIVATE,
      pollMs: v.ALERTS_POLL_MS,
      busyPercent: v.ALERTS_BUSY_PERCENT,
      secretsKey: v.SECRETS_KEY,
      secretsKeyPrevious: v.SECRETS_KEY_PREVIOUS,
    },
  });
}

/** Each setting that relaxes a safety rule, in a sentence for the operator's log at every start. */
export function relaxedSafetySettings(config: Pick<Config, 'alerts'>): string[] {
  const warnings: string[] = [];
  if (config.alerts.allowHttp)
    warnings.push(
      'WEBHOOK_ALLOW_HTTP=true: webhooks may go to plain http:// URLs, unencrypted; for development and tests only',
    );
  if (config.alerts.allowPrivate) {
    warnings.push(
      'WEBHOOK_ALLOW_PRIVATE=true: webhooks may reach loopback, private and link-local addresses, this network ' +
        'included; for development and tests only',
    );
  }
  return warnings;
}
