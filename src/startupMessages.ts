// What a start says on the operator's terminal (stderr), apart from the JSON log lines on stdout and
// never through the logger: the demo key, how to get one when it was never shown, and a start-up
// failure as one plain sentence (what went wrong, and what to do). Pure functions of their inputs.
import path from 'node:path';
import { ConfigError, type Config } from './config.js';
import type { CreatedDemo } from './subscriptions/port.js';
import { SynonymsUnusableError } from './search/synonymSearch.js';

const PREFIX = 'grants API cannot start';

/** Quotes a shell word when it needs it (so a printed command can be pasted as it is). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The first start's banner: the demo key, shown this once, and a request to try it with. */
export function demoKeyBanner(demo: CreatedDemo, url: string): string {
  return (
    `\nNo subscription existed, so a demo PROFESSIONAL subscription was created (${demo.subscriptionId}).\n` +
    `Its API key (shown only now):\n\n  ${demo.apiKey}\n\n` +
    (`Try:\n  curl -H 'Authorization: Bearer ${demo.apiKey}' ` +
      `'${url}/external/v1/grants?open=true&search=quebec&limit=5'\n\n`)
  );
}

/** The command that makes a new key for a subscription of this DATA_DIR, ready to paste. */
export function keyCreateCommand(subscriptionId: string, dataDir: string): string {
  return `DATA_DIR=${shellWord(dataDir)} npx grants-admin key create ${subscriptionId}`;
}

/** Said on every start while the demo subscription's key was never shown (a start died first). */
export function demoKeyHint(subscriptionId: string, dataDir: string, onPostgres = false): string {
  // On PostgreSQL the command needs the instances' DATABASE_URL, which is not repeated here (it may hold a password).
  const command = onPostgres
    ? `npx grants-admin key create ${subscriptionId} (with the API's DATABASE_URL set)`
    : keyCreateCommand(subscriptionId, dataDir);
  return (
    `No key of the demo subscription ${subscriptionId} is known to have been shown, and none has been used; ` +
    `to get one, run: ${command}\n`
  );
}

interface SystemError {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  message?: unknown;
}

/** A plain reason, and what to do, for an error about DATA_DIR or the database files in it. */
const DATA_DIR_PROBLEMS: Record<string, [reason: string, action: string]> = {
  EACCES: ['permission denied', 'set DATA_DIR to a folder this user can read and write'],
  EPERM: ['permission denied', 'set DATA_DIR to a folder this user can read and write'],
  ENOTDIR: ['part of the path is a file, not a folder', 'set DATA_DIR to a folder'],
  EEXIST: ['it is a file, not a folder', 'set DATA_DIR to a folder'],
  EROFS: ['the file system is read-only', 'set DATA_DIR to a folder on a writable file system'],
  ENOSPC: ['the disk is full', 'free some space or set DATA_DIR to another disk'],
  SQLITE_FULL: ['the disk is full', 'free some space or set DATA_DIR to another disk'],
  SQLITE_CANTOPEN: ['its database files cannot be opened', 'set DATA_DIR to a folder this user can read and write'],
  SQLITE_PERM: ['permission denied on its database files', 'set DATA_DIR to a folder this user can read and write'],
  SQLITE_READONLY: ['its database files are read-only', 'make them writable or set DATA_DIR to another folder'],
  SQLITE_NOTADB: ['a file there is not a SQLite database', 'move that file away or set DATA_DIR to another folder'],
  SQLITE_CORRUPT: ['a database file there is damaged', 'restore it from a backup or set DATA_DIR to another folder'],
  SQLITE_BUSY: ['its databases are locked by another process', 'stop that process or wait for it to finish'],
  SQLITE_IOERR: ['reading or writing its database files failed', 'check the disk, or set DATA_DIR to another folder'],
};

const READ_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder',
};

const isUnder = (file: string, dir: string): boolean => file === dir || file.startsWith(dir + path.sep);

/** The first line of an error's message, without a trailing full stop. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] || 'unknown error').replace(/[.\s]+$/, '');
}

const POSTGRES_CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);

/** host:port/database of a database URL, never its user or password. */
function postgresHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return 'unparsable URL';
  }
}

/**
 * One line for stderr, `grants API cannot start: <what>; <what to do>.`: never a stack, never JSON.
 * `config` is null when the configuration itself could not be read.
 */
export function startupFailureSentence(error: unknown, config: Config | null): string {
  if (error instanceof ConfigError) {
    return (
      `${PREFIX}: the configuration is invalid: ${error.problems.join('; ')}; fix these environment variables ` +
      `and start again.`
    );
  }
  if (error instanceof SynonymsUnusableError) {
    return (
      `${PREFIX}: SYNONYMS_FILE ${error.file} ${error.reason.replace(/[.\s]+$/, '')}; fix the file ` +
      `(docs/operations.md, "Synonyms") or set SYNONYMS_FILE to another one.`
    );
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as SystemError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (config !== null) {
    const where = `port ${config.port} on ${config.host}`;
    if (e.syscall === 'listen') {
      if (code === 'EADDRINUSE')
        return (
          `${PREFIX}: ${where} is already in use by another program; stop that program or set PORT to a free ` + `port.`
        );
      if (code === 'EACCES') return `${PREFIX}: this user may not listen on ${where}; set PORT to 1024 or above.`;
      if (code === 'EADDRNOTAVAIL')
        return (
          `${PREFIX}: HOST ${config.host} is not an address of this machine; set HOST to one of its ` +
          `addresses, or 0.0.0.0 for all.`
        );
    }
    if (e.syscall === 'getaddrinfo') {
      return (
        `${PREFIX}: HOST ${config.host} does not resolve to an address of this machine; set HOST to an IP ` +
        `address, or 0.0.0.0 for all.`
      );
    }
    const file = typeof e.path === 'string' ? path.resolve(e.path) : null;
    if (file !== null && config.seedCatalog && file === config.seedFile) {
      return (
        `${PREFIX}: SEED_FILE ${config.seedFile} cannot be read (${READ_PROBLEMS[code] ?? code}); set ` +
        `SEED_FILE to the grants file to index, or SEED_CATALOG=false to start with an empty catalog.`
      );
    }
    if (config.databaseUrl !== null && (POSTGRES_CONNECT_CODES.has(code) || /^(08|28|3D|53|57P)/.test(code))) {
      const where = postgresHost(config.databaseUrl);
      return (
        `${PREFIX}: the PostgreSQL database of DATABASE_URL (${where}) cannot be used (${firstLine(error)}); ` +
        `start it or fix DATABASE_URL.`
      );
    }
    const sqlite = /^SQLITE_[A-Z]+/.exec(code)?.[0];
    const problem =
      (file !== null && isUnder(file, config.dataDir)) || sqlite !== undefined
        ? DATA_DIR_PROBLEMS[sqlite ?? code]
        : undefined;
    if (problem !== undefined || (file !== null && isUnder(file, config.dataDir))) {
      const [reason, action] = problem ?? [firstLine(error), 'set DATA_DIR to a folder this user can read and write'];
      return `${PREFIX}: DATA_DIR ${config.dataDir} cannot be used (${reason}); ${action}.`;
    }
  }
  return `${PREFIX}: ${firstLine(error)}; run with LOG_LEVEL=debug to see the details.`;
}
