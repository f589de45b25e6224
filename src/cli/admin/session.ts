// What every grants-admin command shares: its exit codes, who it is in the audit log, the shape
// of its help, and the stores of the run (opened only when a command needs them).
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { loadConfig, type Config } from '../../config.js';
import { createLogger } from '../../log.js';
import type { SecretBox } from '../../alerts/secrets.js';
import type { AlertStore } from '../../alerts/store.js';
import type { AuditActor } from '../../subscriptions/audit.js';
import { subscriptionsPath } from '../../subscriptions/sqlite/database.js';
import { sqliteStoreExists } from '../../subscriptions/sqlite/store.js';
import type { SubscriptionRecords, SubscriptionsStore } from '../../subscriptions/port.js';
import type { Subscription } from '../../subscriptions/tiers.js';
import { openStores, type Stores } from '../../stores.js';
import { CliExit, noDatabase, withOverrides, type ParsedArgs } from '../runner.js';

export const EXIT = { ok: 0, notFound: 1, usage: 2, failed: 3 } as const;

/** Who grants-admin is in the audit log: an operator, on this host. */
export const ADMIN: AuditActor = Object.freeze({ actor: 'admin', address: hostname() });

/** A command's help: its synopsis, then what it does. */
export const usage = (synopsis: string, text: string) => `Usage: grants-admin ${synopsis} [--data-dir DIR]\n\n${text}`;

/** The options every command takes, and with --json. */
export const COMMON = { 'data-dir': 'string' } as const;
export const JSON_OPTIONS = { ...COMMON, json: 'boolean' } as const;

/**
 * The stores of this run (PostgreSQL with DATABASE_URL, else SQLite in DATA_DIR), opened only when a command needs
 * them.
 */
export class Session {
  private opened: Stores | undefined;
  constructor(readonly env: NodeJS.ProcessEnv) {}

  /** The configuration of this run: the environment, with --data-dir. */
  config(values: ParsedArgs['values']): Config {
    return loadConfig(withOverrides(this.env, values));
  }

  /**
   * Opens the store; `create` makes the SQLite database (and DATA_DIR) when missing, otherwise a missing one is an
   * error.
   */
  async open(
    values: ParsedArgs['values'],
    create: boolean,
  ): Promise<{ store: SubscriptionRecords; opened: SubscriptionsStore }> {
    const { store } = await this.openStores(values, create, false);
    return { store: store.subscriptions, opened: store };
  }

  /** Opens the alerts store of the selected database, and says what is missing when it cannot. */
  async openAlerts(values: ParsedArgs['values']): Promise<{ store: AlertStore; box: SecretBox; config: Config }> {
    const { alerts } = await this.openStores(values, false, true);
    if (alerts === null)
      throw new CliExit("with DATABASE_URL, set SECRETS_KEY (the API instances' key) to work on alerts", EXIT.usage);
    return { ...alerts, config: this.config(values) };
  }

  private async openStores(values: ParsedArgs['values'], create: boolean, alerts: boolean): Promise<Stores> {
    const config = this.config(values);
    if (config.databaseUrl === null) {
      if (!create && !sqliteStoreExists(config.dataDir))
        throw new CliExit(noDatabase(subscriptionsPath(config.dataDir)), EXIT.notFound);
      if (create) mkdirSync(config.dataDir, { recursive: true });
    }
    this.opened = await openStores(config, createLogger('silent'), { listen: false, alerts });
    return this.opened;
  }

  async close(): Promise<void> {
    await this.opened?.store.close();
  }
}

export async function mustExist(store: SubscriptionRecords, id: string): Promise<Subscription> {
  const found = await store.get(id);
  if (found === null) throw new CliExit(`no subscription has the id "${id}"`, EXIT.notFound);
  return found;
}
