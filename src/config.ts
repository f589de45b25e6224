// Environment → validated, frozen Config. Every default lives here; every problem is listed at once.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { repoPath } from './repoRoot.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];
export const SEARCH_ENGINES = ['sqlite', 'elasticsearch'] as const;
export type SearchEngineName = (typeof SEARCH_ENGINES)[number];

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
  /** Proxies whose X-Forwarded-For is believed (TRUST_PROXY): addresses, CIDR ranges or proxy-addr's names; none by default. */
  trustProxy: string[];
  /** The HTTP server's own bounds on slow or idle clients (src/server.ts). */
  http: HttpBounds;
  /** Usage rows older than this many days are deleted in the background (usage_daily keeps the counts). */
  usageRetentionDays: number;
  /** Tombstones of the changes feed are kept this many days (then a `since` before them is a 410). */
  changesRetentionDays: number;
  /** Days a grant's versions (GET /grants/:id/history) are kept; older ones are dropped by the next grants-indexer run. */
  historyRetentionDays: number;
  /** Searches off the event loop and the process's overload bounds (src/search/sqlite/runtime/workerPool.ts, src/http/middleware/overload.ts). */
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
  /** The share of the API thread, in percent, matching and delivering may take while partner requests are served (ALERTS_BUSY_PERCENT). */
  busyPercent: number;
  /** AES-256-GCM key (base64 of 32 bytes) for the signing secrets at rest; null: generated in DATA_DIR. */
  secretsKey: string | null;
  /** Keys rotated from (SECRETS_KEY_PREVIOUS, comma-separated): secrets sealed with them still open until re-sealed. */
  secretsKeyPrevious: string[];
}

/** Svix's schedule: the delays after the first attempt. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5s,5m,2h" → milliseconds; null when any part is not a number followed by ms, s, m or h. */
export function parseDurations(text: string): number[] | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > 20) return null;
  const values: number[] = [];
  for (const part of parts) {
    const m = /^(\d{1,9})(ms|s|m|h)$/.exec(part);
    if (m === null) return null;
    values.push(Number(m[1]) * DURATION_UNITS[m[2]]);
  }
  return values;
}

export interface SearchLoadConfig {
  /** Worker threads running the embedded engine's searches; 0: searches run on the event loop. */
  workers: number;
  /** A search's time budget (queue wait included); past it a 503 (SQLite: the worker is replaced; Elasticsearch: the request timeout). */
  timeoutMs: number;
  /** Searches waiting for a worker beyond those running; one more gets a fast 503. */
  queueLimit: number;
  /** Event-loop delay past which new API requests get a fast 503; 0: never. */
  eventLoopDelayMs: number;
  /** The nice value of the search worker and index loader threads (the event loop keeps 0), so cheap requests are scheduled first. */
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

export const DEFAULT_HTTP_BOUNDS: HttpBounds = Object.freeze({ headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, lingerMs: 5_000 });

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** DATABASE_URL, checked without repeating it in the error (it may hold a password). */
function databaseUrl(raw: string | undefined, problems: string[]): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  try {
    if (['postgres:', 'postgresql:'].includes(new URL(value).protocol)) return value;
  } catch {
    // reported below
  }
  problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)');
  return null;
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name, String(fallback));
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const raw = str(name, fallback).toLowerCase();
    if (!(values as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name, fallback ? 'true' : 'false').toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, fallback: string | null, protocols: string[]): string | null => {
    const raw = env[name]?.trim() || fallback;
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${raw}")`);
      return fallback;
    }
  };

  const demoApiKey = env.DEMO_API_KEY?.trim() || null;
  if (demoApiKey !== null && !/^[A-Za-z0-9_-]{32,128}$/.test(demoApiKey)) {
    problems.push('DEMO_API_KEY must be 32 to 128 characters of letters, digits, "_" or "-"');
  }
  const metricsToken = env.METRICS_TOKEN?.trim() || null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    problems.push('METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  }
  const index = str('ELASTICSEARCH_INDEX', 'grants');
  if (!/^[a-z0-9][a-z0-9_-]{0,100}$/.test(index)) {
    problems.push(`ELASTICSEARCH_INDEX must be a lower-case Elasticsearch alias name (got "${index}")`);
  }

  const corsOrigins = (env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of corsOrigins) {
    let valid = origin === '*';
    try {
      valid ||= ['http:', 'https:'].includes(new URL(origin).protocol) && new URL(origin).origin === origin;
    } catch {
      valid = false;
    }
    if (!valid) problems.push(`CORS_ORIGINS must list "*" or origins such as https://app.example.com (scheme, host, optional port; no path) (got "${origin.slice(0, 100)}")`);
  }

  const trustProxy = (env.TRUST_PROXY ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  try {
    proxyaddr.compile(trustProxy);
  } catch {
    problems.push(
      `TRUST_PROXY must list the proxies to trust: IP addresses, CIDR ranges or loopback, linklocal, uniquelocal (got "${(env.TRUST_PROXY ?? '').slice(0, 100)}")`,
    );
  }

  const config: Omit<Config, 'alerts'> & { alerts?: AlertsConfig } = {
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST', '0.0.0.0'),
    dataDir: path.resolve(str('DATA_DIR', './data')),
    searchEngine: oneOf('SEARCH_ENGINE', SEARCH_ENGINES, 'sqlite'),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    seedCatalog: bool('SEED_CATALOG', true),
    seedFile: path.resolve(str('SEED_FILE', repoPath('fixtures/grants.ndjson'))),
    synonymsFile: path.resolve(str('SYNONYMS_FILE', repoPath('mappings/synonyms.txt'))),
    elasticsearch: {
      url: url('ELASTICSEARCH_URL', 'http://127.0.0.1:9200', ['http:', 'https:']) as string,
      index,
      requestTimeoutMs: int('ELASTICSEARCH_TIMEOUT_MS', 3000, 100, 60000),
      replicas: int('ELASTICSEARCH_REPLICAS', 0, 0, 10),
    },
    redis: {
      url: url('REDIS_URL', null, ['redis:', 'rediss:']),
      keyPrefix: str('REDIS_KEY_PREFIX', 'grants:'),
      commandTimeoutMs: int('REDIS_COMMAND_TIMEOUT_MS', 100, 10, 10000),
      instances: int('API_INSTANCES', 1, 1, 1000),
    },
    demoApiKey,
    metricsToken,
    metricsPublic: bool('METRICS_PUBLIC', false),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 10000, 0, 600000),
    corsOrigins,
    trustProxy,
    http: {
      headersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_MS', DEFAULT_HTTP_BOUNDS.headersTimeoutMs, 100, 600000),
      requestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', DEFAULT_HTTP_BOUNDS.requestTimeoutMs, 100, 600000),
      keepAliveTimeoutMs: int('HTTP_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_BOUNDS.keepAliveTimeoutMs, 100, 600000),
      lingerMs: int('HTTP_LINGER_MS', DEFAULT_HTTP_BOUNDS.lingerMs, 100, 600000),
    },
    usageRetentionDays: int('USAGE_RETENTION_DAYS', 400, 366, 100000),
    searchLoad: {
      workers: int('SEARCH_WORKERS', availableParallelism(), 0, 64),
      timeoutMs: int('SEARCH_TIMEOUT_MS', 2000, 1, 600000),
      queueLimit: int('SEARCH_QUEUE_LIMIT', 64, 0, 100000),
      eventLoopDelayMs: int('OVERLOAD_EVENT_LOOP_DELAY_MS', 500, 0, 600000),
      workerNice: int('SEARCH_WORKER_NICE', 10, 0, 19),
    },
    changesRetentionDays: int('CHANGES_RETENTION_DAYS', 365, 1, 36500),
    historyRetentionDays: int('HISTORY_RETENTION_DAYS', 365, 1, 36500),
    compression: bool('COMPRESSION', true)
      ? { gzipLevel: int('COMPRESSION_GZIP_LEVEL', 4, 1, 9), brotliQuality: int('COMPRESSION_BROTLI_QUALITY', 4, 0, 11) }
      : null,
    databaseUrl: databaseUrl(env.DATABASE_URL, problems),
    storeOutage: {
      graceSeconds: int('STORE_GRACE_SECONDS', 60, 0, 3600),
      timeoutMs: int('STORE_TIMEOUT_MS', 2000, 50, 60000),
      usageBufferRows: int('STORE_USAGE_BUFFER_ROWS', 100_000, 1000, 10_000_000),
    },
  };
  const schedule = parseDurations(str('WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_SCHEDULE));
  if (schedule === null) problems.push('WEBHOOK_RETRY_SCHEDULE must be up to 20 comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h)');
  const secretsKey = env.SECRETS_KEY?.trim() || null;
  if (secretsKey !== null && Buffer.from(secretsKey, 'base64').length !== 32) problems.push('SECRETS_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)');
  const secretsKeyPrevious = (env.SECRETS_KEY_PREVIOUS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (secretsKeyPrevious.some((k) => Buffer.from(k, 'base64').length !== 32)) problems.push('SECRETS_KEY_PREVIOUS must list base64 keys of 32 bytes, comma-separated');
  if (secretsKeyPrevious.length > 0 && secretsKey === null) problems.push('SECRETS_KEY_PREVIOUS needs SECRETS_KEY (the key rotated to)');
  (config as { alerts: AlertsConfig }).alerts = {
    worker: bool('ALERTS_WORKER', true),
    timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    retryScheduleMs: schedule ?? (parseDurations(DEFAULT_RETRY_SCHEDULE) as number[]),
    concurrency: int('WEBHOOK_CONCURRENCY', 16, 1, 1000),
    allowHttp: bool('WEBHOOK_ALLOW_HTTP', false),
    allowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', false),
    pollMs: int('ALERTS_POLL_MS', 250, 10, 60_000),
    busyPercent: int('ALERTS_BUSY_PERCENT', 2, 1, 100),
    secretsKey,
    secretsKeyPrevious,
  };
  if (config.metricsPublic && metricsToken !== null) problems.push('METRICS_PUBLIC=true serves /metrics without a token: unset it or METRICS_TOKEN');
  if (config.http.requestTimeoutMs < config.http.headersTimeoutMs) {
    problems.push('HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config as Config);
}

/** Each setting that relaxes a safety rule, in a sentence for the operator's log at every start. */
export function relaxedSafetySettings(config: Pick<Config, 'alerts'>): string[] {
  const warnings: string[] = [];
  if (config.alerts.allowHttp) warnings.push('WEBHOOK_ALLOW_HTTP=true: webhooks may go to plain http:// URLs, unencrypted; for development and tests only');
  if (config.alerts.allowPrivate) {
    warnings.push('WEBHOOK_ALLOW_PRIVATE=true: webhooks may reach loopback, private and link-local addresses, this network included; for development and tests only');
  }
  return warnings;
}
