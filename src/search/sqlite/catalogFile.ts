// The embedded catalog's SQLite file: where it lives, how it is opened, its schema.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const DDL = readFileSync(new URL('../../../../mappings/sqlite-catalog.sql', import.meta.url), 'utf8');

export const catalogPath = (dataDir: string): string => path.join(dataDir, 'catalog.sqlite');

/** The catalog DDL for a table suffix ("" live, "_building" during a reindex) and a build id. */
export const catalogDdl = (suffix: string, build: string): string =>
  DDL.replaceAll('__T__', suffix).replaceAll('__G__', `_${build}`);

export const tableExists = (db: Db, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** Opens (creating if needed) the catalog in WAL mode, with an empty live catalog if it has none. */
export function openCatalog(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.exec('CREATE TABLE IF NOT EXISTS catalog_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  if (!tableExists(db, 'grants')) {
    db.transaction(() => {
      if (!tableExists(db, 'grants')) db.exec(catalogDdl('', 'initial'));
    }).immediate();
  }
  return db;
}
