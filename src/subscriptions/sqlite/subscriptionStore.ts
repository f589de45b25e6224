// Subscriptions and their API keys in SQLite. Callers are cached only while the database is
// unchanged, so a change made by grants-admin takes effect from the next event-loop turn on.
import type Database from 'better-sqlite3';
import { displayPrefix, generateApiKey, hashApiKey, newId } from '../apiKeys.js';
import { auditFromRow, SYSTEM_ACTOR, type AuditAction, type AuditActor, type AuditEntry, type AuditQuery } from '../audit.js';
import type { Db } from './database.js';
import { listedOrigins, LISTED_ORIGINS_TTL_MS, NO_RESTRICTIONS, restrictionsToColumn } from '../keyRestrictions.js';
import type { ApiKeyInfo, Caller, KeepingAccessRevocation, KeyOptions, NewSubscription, RotatedKey, SubscriptionRecords } from '../store.js';
import { FEATURES, type Feature, type Status, type Subscription } from '../tiers.js';
import { callerFromRow, FEATURE_COLUMN, keyFromRow, subscriptionFromRow, type SubscriptionRow as Row } from '../subscriptionRows.js';


type SubscriptionRow = Row<number>;
const toSubscription = (row: SubscriptionRow): Subscription => subscriptionFromRow(row, (flag) => flag === 1);
const toKey = keyFromRow;

/** Callers remembered by key hash; cleared whole when it grows past this. */
const CALLER_CACHE_SIZE = 10_000;

export class SubscriptionStore implements SubscriptionRecords {
  private readonly byKeyHash: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly dataVersion: Database.Statement;
  private readonly touch: Database.Statement;
  /**
   * Callers of known keys by key hash, valid while nothing changed subscriptions or keys: SQLite's
   * data_version moves when another connection (grants-admin, another instance) commits, and this
   * store's own changes clear the cache, so a change still takes effect from the next event-loop turn.
   */
  private readonly callers = new Map<string, { caller: Caller; until: number }>();
  private callersVersion = -1;
  private turnVersion: number | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.byKeyHash = db.prepare(
      `SELECT s.*, k.id AS key_id, k.prefix AS key_prefix, k.revoked_at AS key_revoked_at, k.restrictions AS key_restrictions FROM api_keys k JOIN subscriptions s ON s.id = k.subscription_id
       WHERE k.key_hash = ? AND (k.revoked_at IS NULL OR k.revoked_at > ?)`,
    );
    this.byId = db.prepare('SELECT * FROM subscriptions WHERE id = ?');
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    this.auditInsert = db.prepare(
      'INSERT INTO audit_log (at, subscription_id, actor, address, action, target, details) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  private readonly auditInsert: Database.Statement;

  /** Writes one audit entry (in the caller's transaction). */
  private audited(by: AuditActor, subscriptionId: string | null, action: AuditAction, target: string, details: Record<string, unknown> | null): void {
    this.auditInsert.run(this.clock().toISOString(), subscriptionId, by.actor, by.address, action, target, details === null ? null : JSON.stringify(details));
  }

  audit(query: AuditQuery): AuditEntry[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM audit_log WHERE (? IS NULL OR subscription_id = ?) AND (? IS NULL OR at >= ?) ORDER BY id LIMIT ?`,
      )
      .all(query.subscriptionId ?? null, query.subscriptionId ?? null, query.since ?? null, query.since ?? null, query.limit) as Record<string, unknown>[];
    return rows.map(auditFromRow);
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
  private changed(): void {
    this.callers.clear();
    this.origins = null;
  }

  /** The origins working keys list, read again when the database changed or a second passed. */
  private origins: { version: number; until: number; set: ReadonlySet<string> } | null = null;

  keyOrigins(): ReadonlySet<string> {
    const version = this.versionThisTurn();
    const now = this.clock();
    if (this.origins === null || this.origins.version !== version || now.getTime() >= this.origins.until) {
      const rows = this.db.prepare('SELECT restrictions, revoked_at FROM api_keys WHERE restrictions IS NOT NULL').all() as {
        restrictions: string | null;
        revoked_at: string | null;
      }[];
      this.origins = { version, until: now.getTime() + LISTED_ORIGINS_TTL_MS, set: listedOrigins(rows, now) };
    }
    return this.origins.set;
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
    const known = this.callers.get(hash);
    if (known !== undefined) {
      if (known.until === Infinity || this.clock().getTime() < known.until) return known.caller;
      this.callers.delete(hash);
      return null;
    }
    const row = this.byKeyHash.get(hash, this.clock().toISOString()) as
      | (SubscriptionRow & { key_id: string; key_prefix: string; key_revoked_at: string | null; key_restrictions: string | null })
      | undefined;
    if (row === undefined) return null;
    const caller = callerFromRow(toSubscription(row), row);
    if (this.callers.size >= CALLER_CACHE_SIZE) this.callers.clear();
    this.callers.set(hash, { caller, until: row.key_revoked_at === null ? Infinity : Date.parse(row.key_revoked_at) });
    return caller;
  }

  get(id: string): Subscription | null {
    const row = this.byId.get(id) as SubscriptionRow | undefined;
    return row === undefined ? null : toSubscription(row);
  }

  list(): Subscription[] {
    return (this.db.prepare('SELECT * FROM subscriptions ORDER BY created_at, id').all() as SubscriptionRow[]).map(toSubscription);
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM subscriptions').pluck().get() as number;
  }

  create(input: NewSubscription, by: AuditActor = SYSTEM_ACTOR): {
    subscription: Subscription;
    keyId: string;
    apiKey: string;
  } {
    const id = newId('sub');
    return this.db.transaction(() => {
      this.audited(by, id, 'subscription.create', id, { name: input.name, tier: input.tier, monthlyLimit: input.monthlyLimit ?? null, rateLimit: input.rateLimit ?? null });
      this.db
        .prepare(
          `INSERT INTO subscriptions (id, name, tier, status, monthly_limit, rate_limit, created_at)
           VALUES (?, ?, ?, 'ACTIVE', ?, ?, ?)`,
        )
        .run(id, input.name, input.tier, input.monthlyLimit ?? null, input.rateLimit ?? null, this.clock().toISOString());
      const { keyId, apiKey } = this.createKey(id, input.apiKey, {}, by);
      return { subscription: this.get(id) as Subscription, keyId, apiKey };
    })();
  }

  /** Creates a key (random unless given); returns it in clear, the only time it exists in clear. */
  createKey(subscriptionId: string, apiKey: string = generateApiKey(), options: KeyOptions = {}, by: AuditActor = SYSTEM_ACTOR): { keyId: string; apiKey: string } {
    const keyId = newId('key');
    const restrictions = options.restrictions ?? NO_RESTRICTIONS;
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO api_keys (id, subscription_id, key_hash, prefix, created_at, name, restrictions) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(keyId, subscriptionId, hashApiKey(apiKey), displayPrefix(apiKey), this.clock().toISOString(), options.name ?? null, restrictionsToColumn(restrictions));
      this.audited(by, subscriptionId, 'key.create', keyId, { name: options.name ?? null, restrictions });
    })();
    this.changed();
    return { keyId, apiKey };
  }

  listKeys(subscriptionId: string): ApiKeyInfo[] {
    return (this.db.prepare('SELECT * FROM api_keys WHERE subscription_id = ? ORDER BY created_at, id').all(subscriptionId) as Record<
      string,
      string | null
    >[]).map(toKey);
  }

  getKey(keyId: string): ApiKeyInfo | null {
    const row = this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(keyId) as Record<string, string | null> | undefined;
    return row === undefined ? null : toKey(row);
  }

  /**
   * Revokes a key at once (a key still in a rotation's grace period included); returns false if
   * it does not exist or was already revoked.
   */
  revokeKey(keyId: string, by: AuditActor = SYSTEM_ACTOR): boolean {
    this.changed();
    const now = this.clock().toISOString();
    return this.db.transaction(() => {
      const key = this.getKey(keyId);
      const done = this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)').run(now, keyId, now).changes === 1;
      if (done) this.audited(by, key!.subscriptionId, 'key.revoke', keyId, null);
      return done;
    })();
  }

  revokeKeepingAccess(keyId: string, by: AuditActor = SYSTEM_ACTOR): KeepingAccessRevocation {
    this.changed();
    const now = this.clock().toISOString();
    // IMMEDIATE: the write lock is taken before the count, so a revocation by another connection
    // (another instance, grants-admin) cannot slip in between.
    return this.db.transaction((): KeepingAccessRevocation => {
      const key = this.db.prepare('SELECT subscription_id, restrictions FROM api_keys WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)').get(keyId, now) as
        | { subscription_id: string; restrictions: string | null }
        | undefined;
      if (key === undefined) return 'gone';
      if (key.restrictions === null) {
        const others = this.db
          .prepare('SELECT count(*) FROM api_keys WHERE subscription_id = ? AND id <> ? AND revoked_at IS NULL AND restrictions IS NULL')
          .pluck()
          .get(key.subscription_id, keyId) as number;
        if (others === 0) return 'last-unrestricted';
      }
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(now, keyId);
      this.audited(by, key.subscription_id, 'key.revoke', keyId, null);
      return 'revoked';
    }).immediate();
  }

  /** Keys of the subscription with no revocation set, not even a future one. */
  lastingKeys(subscriptionId: string): number {
    return this.db.prepare('SELECT count(*) FROM api_keys WHERE subscription_id = ? AND revoked_at IS NULL').pluck().get(subscriptionId) as number;
  }

  /**
   * Replaces a key in one transaction: a new key for the same subscription, and the old one
   * revoked `graceSeconds` from now (at once for 0). Returns the new key in clear and when the
   * old one stops working; null if the old key is unknown or already revoked.
   */
  rotateKey(keyId: string, graceSeconds: number, by: AuditActor = SYSTEM_ACTOR): RotatedKey | null {
    return this.db.transaction(() => {
      const now = this.clock();
      const old = this.getKey(keyId);
      if (old === null || (old.revokedAt !== null && old.revokedAt <= now.toISOString())) return null;
      const created = this.createKey(old.subscriptionId, undefined, { name: old.name, restrictions: old.restrictions }, by);
      // A key already in a grace period keeps its earlier end.
      const wanted = new Date(now.getTime() + graceSeconds * 1000).toISOString();
      const revokedAt = old.revokedAt !== null && old.revokedAt < wanted ? old.revokedAt : wanted;
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(revokedAt, keyId);
      this.audited(by, old.subscriptionId, 'key.rotate', keyId, { newKeyId: created.keyId, revokedAt });
      this.changed();
      return { ...created, subscriptionId: old.subscriptionId, oldKeyRevokedAt: revokedAt };
    }).immediate();
  }

  setStatus(id: string, status: Status, by: AuditActor = SYSTEM_ACTOR): boolean {
    this.changed();
    return this.db.transaction(() => {
      const done = this.db.prepare('UPDATE subscriptions SET status = ? WHERE id = ?').run(status, id).changes === 1;
      if (done) this.audited(by, id, 'subscription.set-status', id, { status });
      return done;
    })();
  }

  /** Sets or clears (null) the overrides given; undefined leaves a value as it is. */
  setLimits(id: string, limits: { monthlyLimit?: number | null; rateLimit?: number | null }, by: AuditActor = SYSTEM_ACTOR): boolean {
    const current = this.get(id);
    if (current === null) return false;
    this.changed();
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE subscriptions SET monthly_limit = ?, rate_limit = ? WHERE id = ?')
        .run(
          limits.monthlyLimit === undefined ? current.monthlyLimitOverride : limits.monthlyLimit,
          limits.rateLimit === undefined ? current.rateLimitOverride : limits.rateLimit,
          id,
        );
      this.audited(by, id, 'subscription.set-limits', id, limits);
    })();
    return true;
  }

  setFeature(id: string, feature: Feature, enabled: boolean, by: AuditActor = SYSTEM_ACTOR): boolean {
    if (!(FEATURES as readonly string[]).includes(feature)) throw new Error(`unknown feature ${feature}`);
    this.changed();
    return this.db.transaction(() => {
      const done = this.db.prepare(`UPDATE subscriptions SET ${FEATURE_COLUMN[feature]} = ? WHERE id = ?`).run(enabled ? 1 : 0, id).changes === 1;
      if (done) this.audited(by, id, 'subscription.set-feature', id, { feature, enabled });
      return done;
    })();
  }

  /** Records when keys were last used (called in batches by the usage writer). */
  touchKeys(lastUsed: Map<string, string>): void {
    for (const [keyId, at] of lastUsed) this.touch.run(at, keyId, at);
  }
}
