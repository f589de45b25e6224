// The embedded catalog's SQLite file: where it lives, how it is opened, its schema.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { repoPath } from '../../../repoRoot.js';
import { CHANGE_LOG_DDL, upgradeChangeLog } from './changeLog.js';
import { WORD_COLUMNS } from './textColumns.js';

export type Db = Database.Database;

const DDL = readFileSync(repoPath('mappings/sqlite-catalog.sql'), 'utf8');

/**
 * The catalog_meta key of the build id: a new random value written in the same transaction as
 * every reindex swap and every sync that changes a grant, so a reader tells catalogs apart.
 */
/** The FTS5 tokenizer of the catalog's text table, as the DDL declares it. */
export const TEXT_TOKENIZER = /tokenize\s*=\s*'([^']*)'/.exec(DDL)![1];

/** The DDL of the live word dictionary table alone (grants_words). */
const WORDS_DDL = /CREATE VIRTUAL TABLE grants_words__T__[^;]*;/.exec(DDL)![0].replaceAll('__T__', '');

const CATALOG_BUILD_KEY = 'catalog_build';

/** Writes a new build id (inside the caller's transaction). */
export function markNewBuild(db: Db, build: string): void {
  db.prepare(
    'INSERT INTO catalog_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(CATALOG_BUILD_KEY, build);
}

export const newBuildId = (): string => `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

export const catalogPath = (dataDir: string): string => path.join(dataDir, 'catalog.sqlite');

/** The catalog DDL for a table suffix ("" live, "_building" during a reindex) and a build id. */
export const catalogDdl = (suffix: string, build: string): string =>
  DDL.replaceAll('__T__', suffix).replaceAll('__G__', `_${build}`);

export const tableExists = (db: Db, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** The build id the connection's current snapshot sees (null for a catalog no writer of this version wrote). */
export function buildOf(db: Db): string | null {
  let statement = buildStatements.get(db);
  if (statement === undefined) {
    statement = db.prepare('SELECT value FROM catalog_meta WHERE key = ?').pluck();
    buildStatements.set(db, statement);
  }
  return (statement.get(CATALOG_BUILD_KEY) as string | undefined) ?? null;
}

const buildStatements = new WeakMap<Db, Database.Statement>();

/** A read-only connection to an existing catalog (a search worker's, the index loader's). */
export function openCatalogReadOnly(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  return db;
}

/** Opens (creating if needed) the catalog in WAL mode, with an empty live catalog if it has none. */
export function openCatalog(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.exec('CREATE TABLE IF NOT EXISTS catalog_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  db.exec(CHANGE_LOG_DDL);
  upgradeChangeLog(db);
  if (!tableExists(db, 'grants')) {
    db.transaction(() => {
      if (!tableExists(db, 'grants')) db.exec(catalogDdl('', 'initial'));
    }).immediate();
  }
  if (!tableExists(db, 'grants_words')) {
    // A catalog written before the word dictionary: its words read from the text table once (the
    // columns it has: an earlier release's lacks the French ones, and is refused until reindexed).
    db.transaction(() => {
      if (tableExists(db, 'grants_words')) return;
      db.exec(WORDS_DDL);
      const text = db.prepare("SELECT name FROM pragma_table_info('grants_text')").pluck().all() as string[];
      const copied = WORD_COLUMNS.filter((column) => text.includes(column)).join(', ');
      db.exec(`INSERT INTO grants_words (rowid, ${copied}) SELECT rowid, ${copied} FROM grants_text`);
    }).immediate();
  }
  return db;
}

/**
 * The bit mask a list of enum values is stored as (the provinces and beneficiaries columns): bit i for the enum's i-th
 * value.
 */
export function bitsOf<T extends string>(values: readonly T[], all: readonly T[]): number {
  let bits = 0;
  for (const value of values) bits |= 1 << all.indexOf(value);
  return bits;
}
