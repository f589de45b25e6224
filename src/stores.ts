// The stores a process opens, on one database: the subscriptions store (PostgreSQL when
// DATABASE_URL is set, otherwise the SQLite file in DATA_DIR) and, on the same database, the
// alerts store with the box that seals webhook signing secrets. The API (deps.ts) and
// grants-admin open them here.
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { AlertStore } from './alerts/store.js';
import { SecretBox } from './alerts/secrets.js';
import { SqliteAlertStore } from './alerts/sqlite/alertStore.js';
import { PgAlertStore } from './alerts/postgres/alertStore.js';
import { unavailableWhenDown } from './subscriptions/postgres/database.js';
import { openStore, type OpenStoreOptions } from './subscriptions/openStore.js';
import type { StoreKind, SubscriptionsStore } from './subscriptions/port.js';

export interface Stores {
  store: SubscriptionsStore;
  /**
   * The alerts store and the box it seals signing secrets with; null when not asked for, or with DATABASE_URL and no
   * SECRETS_KEY.
   */
  alerts: { store: AlertStore; box: SecretBox } | null;
}

interface OpenStoresOptions extends OpenStoreOptions {
  /** Open the alerts store too (default true). */
  alerts?: boolean;
}

/**
 * The box that seals webhook signing secrets. A fleet shares its signing secrets: every instance
 * needs the same SECRETS_KEY; the embedded default keeps a key of its own in DATA_DIR (created,
 * and logged, the first time). Null with DATABASE_URL and no SECRETS_KEY.
 */
function secretBox(config: Config, kind: StoreKind, log: Logger): SecretBox | null {
  if (config.alerts.secretsKey !== null)
    return SecretBox.fromKeys(config.alerts.secretsKey, ...config.alerts.secretsKeyPrevious);
  if (kind !== 'sqlite') return null;
  const kept = SecretBox.inDataDir(config.dataDir);
  if (kept.created)
    log.info('created the key that encrypts webhook signing secrets at rest (set SECRETS_KEY to supply your own)', {
      file: kept.file,
    });
  return kept.box;
}

/** Opens the stores of `config`'s database; the subscriptions store is closed again when the alerts part fails. */
export async function openStores(config: Config, log: Logger, options: OpenStoresOptions = {}): Promise<Stores> {
  const store = await openStore(config, log, options);
  if (options.alerts === false) return { store, alerts: null };
  try {
    const box = secretBox(config, store.kind, log);
    if (box === null) return { store, alerts: null };
    // A PostgreSQL that cannot answer fails an alerts call as it fails a subscriptions call: unavailable (503), never a
    // 500.
    const alerts =
      store.kind === 'sqlite'
        ? new SqliteAlertStore(store.db, box)
        : unavailableWhenDown(new PgAlertStore(store.pool, box));
    return { store, alerts: { store: alerts, box } };
  } catch (error) {
    await store.close();
    throw error;
  }
}
