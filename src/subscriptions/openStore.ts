// Which store a process uses: PostgreSQL when DATABASE_URL is set (a fleet sharing one database),
// otherwise the SQLite file in DATA_DIR (the embedded default).
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openPgStore, type PgStore } from './postgres/store.js';
import { openSqliteStore, type SqliteStore } from './sqlite/store.js';

export interface OpenStoreOptions {
  clock?: () => Date;
  /** Listen for changes (PostgreSQL; default true). */
  listen?: boolean;
}

/** The store, as its adapter: `kind` tells them apart (src/stores.ts opens the alerts store on its database). */
export async function openStore(
  config: Config,
  log: Logger,
  options: OpenStoreOptions = {},
): Promise<SqliteStore | PgStore> {
  const common = { clock: options.clock, log, retentionDays: config.usageRetentionDays };
  if (config.databaseUrl !== null) return openPgStore(config.databaseUrl, { ...common, listen: options.listen });
  return openSqliteStore(config.dataDir, common);
}
