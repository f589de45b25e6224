// The settings: every environment variable the API reads, with its kind, default, bounds or allowed
// values and what it is for. loadConfig (src/config.ts) validates the environment against the JSON
// Schema built from this table; the configuration table of docs/operations.md lists these rows.
import { availableParallelism } from 'node:os';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];
export const SEARCH_ENGINES = ['sqlite', 'elasticsearch'] as const;
export type SearchEngineName = (typeof SEARCH_ENGINES)[number];

/** Svix's schedule: the delays after the first attempt. */
const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/** The checks a text or list setting may name (src/settingsReader.ts gives each its function). */
export type TextFormat = 'durations' | 'aes-256-key';

interface Described {
  /** One line: what the setting is for. */
  description: string;
  /** The default column of the guide's table when the default is no plain value ("unset", "random", …). */
  documented?: string;
}

/** A whole number within bounds; `onlyWith`: read only while that boolean setting is on. */
interface IntegerSetting extends Described {
  kind: 'integer';
  default: number;
  min: number;
  max: number;
  onlyWith?: string;
}
/** true/false, also 1/0, yes/no, on/off, in any case. */
interface BooleanSetting extends Described {
  kind: 'boolean';
  default: boolean;
}
/** One of a few words, in any case. */
interface OneOfSetting<V extends string = string> extends Described {
  kind: 'oneOf';
  values: readonly V[];
  default: V;
}
/** A file or directory: a value given is resolved from the working directory, the default from `from`. */
interface PathSetting extends Described {
  kind: 'path';
  default: string;
  from: 'working directory' | 'repository';
}
/** Free text, or text of a pattern or format; null: unset unless given. */
interface TextSetting<D extends string | null = string | null> extends Described {
  kind: 'text';
  default: D;
  pattern?: string;
  format?: TextFormat;
  /** The problem, after the variable's name, when the value does not fit. */
  problem?: string;
  /** Whether the problem repeats the value (yes unless false; never for a secret). */
  echo?: boolean;
}
/** A URL of one of the protocols. */
interface UrlSetting<D extends string | null = string | null> extends Described {
  kind: 'url';
  default: D;
  protocols: readonly string[];
  problem?: string;
  echo?: boolean;
}
/** Comma-separated values, blanks dropped; empty by default. */
interface ListSetting extends Described {
  kind: 'list';
  format?: TextFormat;
  problem?: string;
}

export type Setting =
  IntegerSetting | BooleanSetting | OneOfSetting | PathSetting | TextSetting | UrlSetting | ListSetting;

const integer = (
  defaultValue: number,
  min: number,
  max: number,
  description: string,
  more: Partial<Omit<IntegerSetting, 'kind' | 'default' | 'min' | 'max'>> = {},
): IntegerSetting => ({
  kind: 'integer',
  default: defaultValue,
  min,
  max,
  description,
  ...more,
});
const boolean = (defaultValue: boolean, description: string): BooleanSetting => ({
  kind: 'boolean',
  default: defaultValue,
  description,
});
const oneOf = <V extends string>(values: readonly V[], defaultValue: V, description: string): OneOfSetting<V> => ({
  kind: 'oneOf',
  values,
  default: defaultValue,
  description,
});
const pathTo = (defaultValue: string, from: PathSetting['from'], description: string): PathSetting => ({
  kind: 'path',
  default: defaultValue,
  from,
  description,
});
const text = <D extends string | null>(
  defaultValue: D,
  description: string,
  more: Partial<Omit<TextSetting, 'kind' | 'default'>> = {},
): TextSetting<D> => ({
  kind: 'text',
  default: defaultValue,
  description,
  ...more,
});
const url = <D extends string | null>(
  defaultValue: D,
  protocols: readonly string[],
  description: string,
  more: Partial<Omit<UrlSetting, 'kind' | 'default' | 'protocols'>> = {},
): UrlSetting<D> => ({
  kind: 'url',
  default: defaultValue,
  protocols,
  description,
  ...more,
});
const list = (description: string, more: Partial<Omit<ListSetting, 'kind'>> = {}): ListSetting => ({
  kind: 'list',
  description,
  ...more,
});

const TIMEOUT = [100, 600_000] as const;

export const SETTINGS = {
  PORT: integer(3000, 0, 65535, 'HTTP port'),
  HOST: text('0.0.0.0', 'listen address'),
  DATA_DIR: pathTo(
    './data',
    'working directory',
    'the SQLite files (catalog, subscriptions) and the generated secrets key',
  ),
  DATABASE_URL: url(
    null,
    ['postgres:', 'postgresql:'],
    'PostgreSQL for subscriptions, keys, usage and alerts, shared by a fleet; unset: SQLite in DATA_DIR',
    {
      // The value may hold a password: never repeated.
      problem: 'must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)',
      echo: false,
    },
  ),
  SEARCH_ENGINE: oneOf(SEARCH_ENGINES, 'sqlite', 'the search engine: embedded SQLite or Elasticsearch'),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info', 'the least severe log line written'),
  LOG_FORMAT: oneOf(LOG_FORMATS, 'auto', 'JSON lines, pretty lines, or pretty on a terminal and JSON otherwise'),
  SEED_CATALOG: boolean(true, 'index SEED_FILE at start-up when the catalog is empty'),
  SEED_FILE: pathTo('fixtures/grants.ndjson', 'repository', 'the grants seeded'),
  SYNONYMS_FILE: pathTo(
    'mappings/synonyms.txt',
    'repository',
    "the operator's synonyms (Solr format), read at start-up",
  ),
  DEMO_API_KEY: text(null, "the demo subscription's key (first start only); unset: random", {
    documented: 'random',
    pattern: '^[A-Za-z0-9_-]{32,128}$',
    problem: 'must be 32 to 128 characters of letters, digits, "_" or "-"',
    echo: false,
  }),
  SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000, 'on SIGTERM/SIGINT, how long in-flight requests may take'),
  HTTP_HEADERS_TIMEOUT_MS: integer(20_000, ...TIMEOUT, 'time a client has to send the request line and headers'),
  HTTP_REQUEST_TIMEOUT_MS: integer(30_000, ...TIMEOUT, 'time a client has to send a whole request'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer(5_000, ...TIMEOUT, 'an idle keep-alive connection is closed after this long'),
  HTTP_LINGER_MS: integer(
    5_000,
    ...TIMEOUT,
    'after an answer that closes the connection, the time the client has to close its side',
  ),
  METRICS_TOKEN: text(null, 'GET /metrics is served and requires this bearer token', {
    pattern: '^[\\x21-\\x7e]{16,256}$',
    problem: 'must be 16 to 256 printable characters without spaces',
    echo: false,
  }),
  METRICS_PUBLIC: boolean(false, 'GET /metrics is served to anyone, without a token'),
  CHANGES_RETENTION_DAYS: integer(365, 1, 36_500, 'days the tombstones of the changes feed are kept'),
  HISTORY_RETENTION_DAYS: integer(365, 1, 36_500, "days a grant's versions are kept"),
  USAGE_RETENTION_DAYS: integer(400, 366, 100_000, 'days usage log rows are kept (the per-day counts stay)'),
  SEARCH_WORKERS: integer(
    availableParallelism(),
    0,
    64,
    "worker threads running the embedded engine's searches; 0: on the event loop",
    {
      documented: 'number of cores',
    },
  ),
  SEARCH_TIMEOUT_MS: integer(2000, 1, 600_000, "a search's time budget, queue wait included"),
  SEARCH_QUEUE_LIMIT: integer(64, 0, 100_000, 'searches allowed to wait for a worker'),
  OVERLOAD_EVENT_LOOP_DELAY_MS: integer(
    500,
    0,
    600_000,
    'event-loop delay past which new requests get a fast 503; 0: never',
  ),
  SEARCH_WORKER_NICE: integer(10, 0, 19, 'the nice value of the search worker and index loader threads'),
  ELASTICSEARCH_URL: url('http://127.0.0.1:9200', ['http:', 'https:'], 'the Elasticsearch node'),
  ELASTICSEARCH_INDEX: text('grants', 'the alias the API reads through', {
    pattern: '^[a-z0-9][a-z0-9_-]{0,100}$',
    problem: 'must be a lower-case Elasticsearch alias name',
    echo: true,
  }),
  ELASTICSEARCH_TIMEOUT_MS: integer(3000, 100, 60_000, "per-request timeout of the API's Elasticsearch calls"),
  ELASTICSEARCH_REPLICAS: integer(0, 0, 10, 'replicas restored on a new index after loading'),
  REDIS_URL: url(null, ['redis:', 'rediss:'], 'Redis sharing the per-second budget and the monthly allowance'),
  REDIS_KEY_PREFIX: text('grants:', 'prefix of every Redis key'),
  REDIS_COMMAND_TIMEOUT_MS: integer(100, 10, 10_000, 'no request waits longer than this because of Redis'),
  API_INSTANCES: integer(1, 1, 1000, 'instances sharing one budget'),
  STORE_GRACE_SECONDS: integer(
    60,
    0,
    3600,
    'during a PostgreSQL outage, how long callers confirmed before it are served',
  ),
  STORE_TIMEOUT_MS: integer(2000, 50, 60_000, 'a PostgreSQL store call slower than this counts as a failure'),
  STORE_USAGE_BUFFER_ROWS: integer(
    100_000,
    1000,
    10_000_000,
    'usage rows held in memory while the PostgreSQL store is out',
  ),
  CORS_ORIGINS: list('origins whose web pages may call the API from a browser; "*" for any'),
  TRUST_PROXY: list('proxies whose X-Forwarded-For gives the client address'),
  COMPRESSION: boolean(true, 'compress answers of 1 KB or more'),
  COMPRESSION_GZIP_LEVEL: integer(4, 1, 9, 'gzip level', { onlyWith: 'COMPRESSION' }),
  COMPRESSION_BROTLI_QUALITY: integer(4, 0, 11, 'brotli quality', { onlyWith: 'COMPRESSION' }),
  ALERTS_WORKER: boolean(true, 'this process matches alerts and delivers their webhooks'),
  ALERTS_POLL_MS: integer(250, 10, 60_000, 'how often the alert matcher reads the change log'),
  ALERTS_BUSY_PERCENT: integer(2, 1, 100, 'the share of the API thread alerts may take while partners are served'),
  WEBHOOK_TIMEOUT_MS: integer(10_000, 100, 120_000, "a webhook attempt's time budget"),
  WEBHOOK_RETRY_SCHEDULE: text(DEFAULT_RETRY_SCHEDULE, 'the delays between webhook attempts', {
    format: 'durations',
    problem: 'must be up to 20 comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h)',
    echo: false,
  }),
  WEBHOOK_CONCURRENCY: integer(16, 1, 1000, 'webhook deliveries in flight at once per process'),
  WEBHOOK_ALLOW_HTTP: boolean(false, 'accept http:// webhook URLs (development and tests only)'),
  WEBHOOK_ALLOW_PRIVATE: boolean(false, 'accept loopback and private webhook targets (development and tests only)'),
  SECRETS_KEY: text(null, 'the AES-256-GCM key of the webhook signing secrets at rest; unset: generated in DATA_DIR', {
    documented: 'generated',
    format: 'aes-256-key',
    problem: 'must be the base64 of 32 random bytes (openssl rand -base64 32)',
    echo: false,
  }),
  SECRETS_KEY_PREVIOUS: list('keys rotated from, still accepted to open secrets', {
    format: 'aes-256-key',
    problem: 'must list base64 keys of 32 bytes, comma-separated',
  }),
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** The value a setting of this kind holds once read. */
type ValueOf<S> = S extends IntegerSetting
  ? number
  : S extends BooleanSetting
    ? boolean
    : S extends OneOfSetting<infer V>
      ? V
      : S extends ListSetting
        ? string[]
        : S extends PathSetting
          ? string
          : S extends { default: infer D }
            ? null extends D
              ? string | null
              : string
            : never;

/** Every setting's value, typed by its kind. */
export type SettingValues = { [N in SettingName]: ValueOf<(typeof SETTINGS)[N]> };

/** The default column of docs/operations.md's table for this setting. */
export function documentedDefault(setting: Setting): string {
  if (setting.documented !== undefined) return setting.documented;
  if (setting.kind === 'list') return 'empty';
  return setting.default === null ? 'unset' : `\`${setting.default}\``;
}
