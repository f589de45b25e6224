// Subscriptions and their API keys in SQLite: the operations of ../subscriptionSteps.ts, run
// synchronously. Callers are cached only while the database is unchanged, so a change made by
// grants-admin takes effect from the next event-loop turn on.
import type Database from 'better-sqlite3';
import type { AuditActor, AuditEntry, AuditQuery } from '../audit.js';
import { hashApiKey } from '../apiKeys.js';
import { CallerCache } from '../callerCache.js';
import { LISTED_ORIGINS_TTL_MS } from '../keyRestrictions.js';
import type {
  ApiKeyInfo,
  Caller,
  KeepingAccessRevocation,
  KeyOptions,
  NewSubscription,
  RotatedKey,
  SubscriptionRecords,
} from '../port.js';
import * as op from '../subscriptionSteps.js';
import type { Feature, Status, Subscription } from '../tiers.js';
import type { Db } from './database.js';
import { SqliteSteps } from './steps.js';

export class SubscriptionStore implements SubscriptionRecords {
  readonly steps: SqliteSteps;
  private readonly dataVersion: Database.Statement;
  private readonly touch: Database.Statement;
  /**
   * Callers of known keys, valid while nothing changed subscriptions or keys: SQLite's
   * data_version moves when another connection (grants-admin, another instance) commits, and this
   * store's own changes clear the cache, so a change still takes effect from the next event-loop turn.
   */
  private readonly callers = new CallerCache();
  private callersVersion = -1;
  private turnVersion: number | null = null;
  /** The origins working keys list, read again when the database changed or a second passed. */
  private origins: { version: number; until: number; set: ReadonlySet<string> } | null = null;

  constructor(
    db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.steps = new SqliteSteps(db);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.touch = db.prepare(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    );
  }

  /**
   * The database's data_version, read once per event-loop turn (the requests of one turn share it,
   * as they would share one read transaction): a change committed elsewhere applies from the next turn.
   */
  private versionThisTurn(): number {
    if (this.turnVersion === null) {
      this.turnVersion = this.dataVersion.get() as number;
      setImmediate(() => {
        this.turnVersion = null;
      });
    }
    return this.turnVersion;
  }

  /** Forgets every remembered caller (after a change made through this store). */
  private changed<T>(result: T): T {
    this.callers.clear();
    this.origins = null;
    return result;
  }

  /**
   * The caller a presented key belongs to, or null for an unknown or revoked key. A key rotated
   * with a grace period has its revocation time in the future: it is valid until then.
   */
  authenticate(key: string): Caller | null {
    const hash = hashApiKey(key);
    const version = this.versionThisTurn();
    if (version !== this.callersVersion) {
      this.callers.clear();
      this.callersVersion = version;
    }
    const now = this.clock();
    const known = this.callers.get(hash, now.getTime());
    if (known !== undefined) return known;
    const row = this.steps.run(op.callerRow(hash, now.toISOString()));
    if (row === undefined) return null;
    const { caller, revokedAtMs } = op.callerOfRow(row);
    this.callers.set(hash, caller, revokedAtMs);
    return caller;
  }

  keyOrigins(): ReadonlySet<string> {
    const version = this.versionThisTurn();
    const now = this.clock();
    if (this.origins === null || this.origins.version !== version || now.getTime() >= this.origins.until) {
      this.origins = { version, until: now.getTime() + LISTED_ORIGINS_TTL_MS, set: this.steps.run(op.keyOrigins(now)) };
    }
    return this.origins.set;
  }

  audit(query: AuditQuery): AuditEntry[] {
    return this.steps.run(op.auditEntries(this.steps.dialect, query));
  }

  get(id: string): Subscription | null {
    return this.steps.run(op.subscription(id));
  }

  list(): Subscription[] {
    return this.steps.run(op.subscriptions());
  }

  count(): number {
    return this.steps.run(op.subscriptionCount());
  }

  create(input: NewSubscription, by?: AuditActor): { subscription: Subscription; keyId: string; apiKey: string } {
    return this.changed(this.steps.transaction(op.createSubscription(this.clock(), input, by)));
  }

  createKey(
    subscriptionId: string,
    apiKey?: string,
    options?: KeyOptions,
    by?: AuditActor,
  ): { keyId: string; apiKey: string } {
    return this.changed(this.steps.transaction(op.createKey(this.clock(), subscriptionId, apiKey, options, by)));
  }

  listKeys(subscriptionId: string): ApiKeyInfo[] {
    return this.steps.run(op.keys(subscriptionId));
  }

  getKey(keyId: string): ApiKeyInfo | null {
    return this.steps.run(op.key(keyId));
  }

  revokeKey(keyId: string, by?: AuditActor): boolean {
    return this.changed(this.steps.transaction(op.revokeKey(this.clock(), keyId, by)));
  }

  revokeKeepingAccess(keyId: string, by?: AuditActor): KeepingAccessRevocation {
    return this.changed(
      this.steps.transaction(op.revokeKeepingAccess(this.steps.dialect, this.clock(), keyId, by), { write: true }),
    );
  }

  lastingKeys(subscriptionId: string): number {
    return this.steps.run(op.lastingKeys(subscriptionId));
  }

  rotateKey(keyId: string, graceSeconds: number, by?: AuditActor): RotatedKey | null {
    return this.changed(
      this.steps.transaction(op.rotateKey(this.steps.dialect, this.clock(), keyId, graceSeconds, by), { write: true }),
    );
  }

  setStatus(id: string, status: Status, by?: AuditActor): boolean {
    return this.changed(this.steps.transaction(op.setStatus(this.clock(), id, status, by)));
  }

  setLimits(id: string, limits: { monthlyLimit?: number | null; rateLimit?: number | null }, by?: AuditActor): boolean {
    return this.changed(this.steps.transaction(op.setLimits(this.clock(), id, limits, by)));
  }

  setFeature(id: string, feature: Feature, enabled: boolean, by?: AuditActor): boolean {
    return this.changed(this.steps.transaction(op.setFeature(this.clock(), id, feature, enabled, by)));
  }

  /** Records when keys were last used (in the usage writer's transaction). */
  touchKeys(lastUsed: Map<string, string>): void {
    for (const [keyId, at] of lastUsed) this.touch.run(at, keyId, at);
  }
}
