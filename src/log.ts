// The logger: pino behind the small Logger interface the code uses. JSON lines on stdout,
// written asynchronously; pino-pretty when a person watches a terminal. Secrets never reach a
// line: fields named like a secret (`authorization`, `apiKey`, `token`, `secret`) are redacted by
// name and anything shaped like an API key or a webhook signing secret by value, in any case and
// percent-encoded in any way (a request path is written as sent), both by the one scrubber below
// (pino's own path redaction cost ~40 µs a line, more than the rest of the line). Every line is
// written inert for a terminal (terminalText.ts): JSON escapes C0 controls and the rest are
// escaped as JSON \uXXXX; for pino-pretty, which prints them raw, strings are escaped visibly.
import { destination, pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger as Pino } from 'pino';
import type { LogFormatSetting, LogLevel } from './config.js';
import { forTerminal, inertJson, inertText } from './terminalText.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Whether lines of this level are written (so a caller can skip building their fields). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
  /** A logger whose every line also carries `bindings` (a request's id, for instance). */
  child(bindings: LogFields): Logger;
  /** Writes what is still buffered (before the process exits). */
  flush(): void;
}

type LogFormat = 'json' | 'pretty';

interface LoggerOptions {
  format?: LogFormat;
  /** Where JSON lines go (tests); stdout, asynchronously, by default. */
  destination?: DestinationStream;
  /**
   * Secrets of the configuration that need not look like an issued key (DEMO_API_KEY,
   * METRICS_TOKEN): scrubbed from every line wherever they appear, as key-shaped text is.
   */
  secrets?: readonly (string | null)[];
}

/**
 * An API key as issued (src/subscriptions/apiKeys.ts) or any long bearer-looking secret after
 * "gk_"; a webhook signing secret (src/alerts/model.ts: "whsec_" and base64). In any case: a
 * key sent as GK_LIVE_… is the key to anyone who lowers it again.
 */
const SECRET_SHAPED = /gk_[a-z]+_[A-Za-z0-9_-]{16,}|whsec_[A-Za-z0-9+/=]{16,}/gi;
export const REDACTED = '[redacted]';

/** One percent-escape, of any depth (%67, %2567, %252567 … all read "g"): its last two hex digits are the byte. */
const PERCENT_ESCAPE = /%(?:25)*([0-9A-Fa-f]{2})/y;
/** How many times a whole text is decoded again, looking for a secret spelled another way (%%36%37 …). */
const DECODING_ROUNDS = 3;

/** Every %XX decoded once, malformed escapes kept: what a server decoding the text would read. */
const decodeOnce = (text: string): string =>
  text.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/**
 * The text with every secret in it replaced by REDACTED, however it is written: literally, in
 * any case, or with any of its characters percent-encoded, once or more. Escapes are read
 * character by character so that only the secret's own span is replaced; a secret that shows only
 * when the whole text is decoded again (an escape whose hex digits are themselves escaped)
 * redacts the whole text.
 */
function redactText(text: string, pattern: RegExp): string {
  const plain = text.replace(pattern, REDACTED);
  if (!plain.includes('%')) return plain;
  let decoded = '';
  const starts: number[] = [];
  for (let i = 0; i < plain.length;) {
    starts.push(i);
    PERCENT_ESCAPE.lastIndex = i;
    const escape = plain.charCodeAt(i) === 37 ? PERCENT_ESCAPE.exec(plain) : null;
    if (escape === null) {
      decoded += plain[i];
      i += 1;
    } else {
      const byte = parseInt(escape[1], 16);
      decoded += byte < 0x80 ? String.fromCharCode(byte) : '\ufffd';
      i += escape[0].length;
    }
  }
  starts.push(plain.length);
  let out = '';
  let from = 0;
  for (const match of decoded.matchAll(pattern)) {
    out += plain.slice(from, starts[match.index]) + REDACTED;
    from = starts[match.index + match[0].length];
  }
  out += plain.slice(from);
  let again = out;
  for (let round = 0; round < DECODING_ROUNDS && again.includes('%'); round++) {
    again = decodeOnce(again);
    pattern.lastIndex = 0;
    if (pattern.test(again)) return REDACTED;
  }
  return out;
}

/** Header and field names whose values are secrets wherever they appear (at any depth the scrubber walks). */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'Authorization',
  'apiKey',
  'token',
  'secret',
  'previousSecret',
  'previous_secret',
]);

/** Objects nested deeper than this are not walked, so not written either: what is not scrubbed never reaches a line. */
const SCRUBBED_DEPTH = 4;
export const TOO_DEEP = '[nested too deep to log]';

/** What is scrubbed: secret-shaped text, and the configuration's own secrets as literals. */
function secretPattern(secrets: readonly (string | null)[]): RegExp {
  const literals = secrets
    .filter((s): s is string => s !== null && s !== '')
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return literals.length === 0 ? SECRET_SHAPED : new RegExp([SECRET_SHAPED.source, ...literals].join('|'), 'gi');
}

/**
 * How a line's text is cleaned: secrets redacted, and for pino-pretty (which prints what JSON
 * would escape raw: C1 and bidi controls in fields, anything in the message) made inert too.
 */
interface Cleaning {
  text: (value: string) => string;
  msg: (msg: string) => string;
}

function cleaning(pattern: RegExp, format: LogFormat): Cleaning {
  if (format === 'json') return { text: (value) => redactText(value, pattern), msg: (msg) => redactText(msg, pattern) };
  return {
    text: (value) => inertText(redactText(value, pattern)),
    msg: (msg) => forTerminal(redactText(msg, pattern)),
  };
}

function scrubber(clean: Cleaning) {
  const scrub = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return clean.text(value);
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return value;
    if (depth > SCRUBBED_DEPTH) return TOO_DEEP;
    if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
    const out: LogFields = {};
    // Object.keys, not Object.entries: no [key, value] pair allocated per field of every line.
    for (const k of Object.keys(value)) {
      const v = (value as LogFields)[k];
      out[k] = SECRET_FIELDS.has(k) && v !== undefined ? REDACTED : scrub(v, depth + 1);
    }
    return out;
  };
  /** The error serialiser with secrets scrubbed from the message and stack. */
  const serializeError = (error: unknown): unknown =>
    scrub(error instanceof Error ? (stdSerializers.err(error) as unknown as LogFields) : error);
  return { scrub, serializeError };
}

/** LOG_FORMAT's choice, or with `auto` pretty on a terminal and JSON lines otherwise. */
export function logFormatFor(setting: LogFormatSetting, stdoutIsTty: boolean): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTty ? 'pretty' : 'json';
}

function wrap(p: Pino, clean: Cleaning): Logger {
  const { scrub } = scrubber(clean);
  const emit = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: LogFields) => {
    if (!p.isLevelEnabled(level)) return;
    const cleanMsg = clean.msg(msg);
    if (fields === undefined) p[level](cleanMsg);
    else p[level](scrub(fields) as LogFields, cleanMsg);
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    enabled: (level) => p.isLevelEnabled(level),
    child: (bindings) => wrap(p.child(scrub(bindings) as LogFields), clean),
    flush: () => p.flush(),
  };
}

/**
 * Lines on stdout are written once this many bytes wait (about 30 access lines), or every
 * LINES_FLUSHED_EVERY_MS, and at exit: one write for many lines. A write per line cost ~9 µs of
 * the main thread per request at LOG_LEVEL=info (6.8 % of the API's CPU on /grants/:id).
 */
const LINES_BUFFERED_BYTES = 8192;
const LINES_FLUSHED_EVERY_MS = 100;

export function createLogger(level: LogLevel, options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'json';
  // Lines for a test's destination are JSON lines.
  const clean = cleaning(secretPattern(options.secrets ?? []), options.destination === undefined ? format : 'json');
  const { serializeError } = scrubber(clean);
  const settings = {
    level,
    base: undefined,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { err: serializeError, error: serializeError },
    hooks: { streamWrite: inertJson },
  };
  if (options.destination !== undefined) return wrap(pino(settings, options.destination), clean);
  if (format === 'pretty') {
    return wrap(
      pino({
        ...settings,
        transport: {
          target: 'pino-pretty',
          options: { destination: 1, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
        },
      }),
      clean,
    );
  }
  return wrap(
    pino(
      settings,
      destination({ dest: 1, sync: false, minLength: LINES_BUFFERED_BYTES, periodicFlush: LINES_FLUSHED_EVERY_MS }),
    ),
    clean,
  );
}

/**
 * A child logger made only when a line is first written through it (or a child of its own is
 * asked for): a request that logs nothing costs no pino child (~7-14 µs each).
 */
class DeferredChild implements Logger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: LogFields,
  ) {}

  private get logger(): Logger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  debug(msg: string, fields?: LogFields): void {
    if (this.parent.enabled('debug')) this.logger.debug(msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    if (this.parent.enabled('info')) this.logger.info(msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    if (this.parent.enabled('warn')) this.logger.warn(msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    if (this.parent.enabled('error')) this.logger.error(msg, fields);
  }

  enabled(level: Exclude<LogLevel, 'silent'>): boolean {
    return this.parent.enabled(level);
  }

  child(bindings: LogFields): Logger {
    return this.logger.child(bindings);
  }

  flush(): void {
    this.parent.flush();
  }
}

/** `parent.child(bindings)`, made when first used. */
export const deferredChild = (parent: Logger, bindings: LogFields): Logger => new DeferredChild(parent, bindings);

/** Describes an unknown thrown value for a log line (never for a response): pino serialises `err`. */
export function describeError(error: unknown): LogFields {
  if (error instanceof Error) return { err: error };
  return { err: String(error) };
}
