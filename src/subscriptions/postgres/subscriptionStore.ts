// Subscriptions and API keys in PostgreSQL. Callers are cached by key hash on each instance; any
// change that can refuse a caller (a key revoked or rotated, a subscription's status, limits or
// features) fires a NOTIFY from a trigger, whoever made it (grants-admin on any machine, psql), and
// every instance LISTENing drops its cache on receipt: a revoked key is refused within a second.
// Safety net: a cached caller is trusted for `cacheTtlMs` at most, and for one second at most
// while the LISTEN connection is down (it reconnects by itself).
import pg from 'pg';
import { describeError, type Logger } from '../../log.js';
import { displayPrefix, generateApiKey, hashApiKey, newId } from '../apiKeys.js';
import { auditFromRow, SYSTEM_ACTOR, type AuditAction, type AuditActor, type AuditEntry, type AuditQuery } from '../audit.js';
import { listedOrigins, LISTED_ORIGINS_TTL_MS, NO_RESTRICTIONS, restrictionsToColumn } from '../keyRestrictions.js';
import type { ApiKeyInfo, Awaitable, Caller, KeepingAccessRevocation, KeyOptions, NewSubscription, RotatedKey, SubscriptionRecords } from '../store.js';
import { FEATURES, type Feature, type Status, type Subscription } from '../tiers.js';
import { callerFromRow, FEATURE_COLUMN, keyFromRow, subscriptionFromRow, type SubscriptionRow as Row } from '../subscriptionRows.js';
import { CHANGES_CHANNEL, inTransaction, pgUnavailable, type Pool, type Queryable } from './database.js';

type SubscriptionRow = Row<boolean>;
const toSubscription = (row: SubscriptionRow): Subscription => subscriptionFromRow(row, (flag) => flag);
const toKey = keyFromRow;

/** Callers remembered by key hash; cleared whole when it grows past this. */
const CALLER_CACHE_SIZE = 10_000;
/** How long a cached caller is trusted without a word from LISTEN (the safety net). */
export const DEFAULT_CALLER_CACHE_TTL_MS = 5_000;
/** How long while the LISTEN connection is down: the one-second promise holds without notifications. */
const UNLISTENED_TTL_MS = 1_000;
const RELISTEN_DELAY_MS = 1_000;

export interface PgSubscriptionStoreOptions {
  /** The database URL, for the LISTEN connection (none: no listening, the TTL alone bounds the cache). */
  listenUrl?: string;
  clock?: () => Date;
  log?: Logger;
  cacheTtlMs?: number;
}

export class PgSubscriptionStore implements SubscriptionRecords {
  private readonly callers = new Map<string, { caller: Caller; until: number }>();
  private readonly lookups = new Map<string, Promise<Caller | null>>();
  /** Moves on every change heard of: a lookup that started before it must not fill the cache. */
  private generation = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private relisten: NodeJS.Timeout | null = null;
  private readonly clock: () => Date;
  private readonly cacheTtlMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly options: PgSubscriptionStoreOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.cacheTtlMs = options.cacheTtlMs ?? DEFAULT_CALLER_CACHE_TTL_MS;
  }

  /** Starts listening for changes; resolves once LISTEN is in place (or failed: it retries in the background). */
  async listen(): Promise<void> {
    if (this.options.listenUrl === undefined || this.closed) return;
    const client = new pg.Client({ connectionString: this.options.listenUrl, connectionTimeoutMillis: 5000 });
    this.listener = client;
    const lost = (error?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.listening = false;
      this.changed();
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.log?.warn('store change listener lost; callers are cached for one second until it is back', describeError(error ?? new Error('connection ended')));
      this.relisten = setTimeout(() => void this.listen(), RELISTEN_DELAY_MS);
      this.relisten.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => this.changed());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (this.listener !== client) return;
      // Whatever changed while nobody listened is forgotten with the cache.
      this.changed();
      this.listening = true;
    } catch (error) {
      lost(error);
    }
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Forgets every remembered caller (a change was heard of, or made here). */
  private changed(): void {
    this.generation += 1;
    this.callers.clear();
  }

  /**
   * The caller a presented key belongs to, or null for an unknown or revoked key: from the cache
   * synchronously, otherwise one query (concurrent asks for one key share it). A key rotated with a
   * grace period has its revocation time in the future: it is valid until then.
   */
  authenticate(key: string): Awaitable<Caller | null> {
    const hash = hashApiKey(key);
    const known = this.callers.get(hash);
    if (known !== undefined) {
      if (this.clock().getTime() < known.until) return known.caller;
      this.callers.delete(hash);
    }
    let lookup = this.lookups.get(hash);
    if (lookup === undefined) {
      lookup = this.lookUp(hash).finally(() => this.lookups.delete(hash));
      this.lookups.set(hash, lookup);
    }
    return lookup;
  }

  private async lookUp(hash: string): Promise<Caller | null> {
    const generation = this.generation;
    const now = this.clock();
    type Row = SubscriptionRow & { key_id: string; key_prefix: string; key_revoked_at: string | null; key_restrictions: string | null };
    let row: Row | undefined;
    try {
      ({ rows: [row] } = await this.pool.query<Row>(
        `SELECT s.*, k.id AS key_id, k.prefix AS key_prefix, k.revoked_at AS key_revoked_at, k.restrictions AS key_restrictions
           FROM api_keys k JOIN subscriptions s ON s.id = k.subscription_id
          WHERE k.key_hash = $1 AND (k.revoked_at IS NULL OR k.revoked_at > $2)`,
        [hash, now.toISOString()],
      ));
    } catch (error) {
      throw pgUnavailable(error);
    }
    if (row === undefined) return null;
    const caller = callerFromRow(toSubscription(row), row);
    if (generation === this.generation) {
      if (this.callers.size >= CALLER_CACHE_SIZE) this.callers.clear();
      const trusted = now.getTime() + (this.listening ? this.cacheTtlMs : UNLISTENED_TTL_MS);
      const revokedAt = row.key_revoked_at === null ? Infinity : Date.parse(row.key_revoked_at);
      this.callers.set(hash, { caller, until: Math.min(trusted, revokedAt) });
    }
    return caller;
  }

  async get(id: string, db: Queryable = this.pool): Promise<Subscription | null> {
    const { rows } = await db.query('SELECT * FROM subscriptions WHERE id = $1', [id]);
    return rows.length === 0 ? null : toSubscription(rows[0]);
  }

  async list(): Promise<Subscription[]> {
    return (await this.pool.query('SELECT * FROM subscriptions ORDER BY created_at, id')).rows.map(toSubscription);
  }

  async count(db: Queryable = this.pool): Promise<number> {
    return Number((await db.query('SELECT count(*) AS n FROM subscriptions')).rows[0].n);
  }

  /** Writes one audit entry (in `db`'s transaction). */
  private async audited(db: Queryable, by: AuditActor, subscriptionId: string | null, action: AuditAction, target: string, details: Record<string, unknown> | null): Promise<void> {
    await db.query('INSERT INTO audit_log (at, subscription_id, actor, address, action, target, details) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      this.clock().toISOString(),
      subscriptionId,
      by.actor,
      by.address,
      action,
      target,
      details === null ? null : JSON.stringify(details),
    ]);
  }

  /** The origins working keys list, kept until a change is heard of (a second at most). */
  private origins: { generation: number; until: number; set: ReadonlySet<string> } | null = null;

  async keyOrigins(): Promise<ReadonlySet<string>> {
    const now = this.clock();
    const cached = this.origins;
    if (cached !== null && cached.generation === this.generation && now.getTime() < cached.until) return cached.set;
    const generation = this.generation;
    let rows: { restrictions: string | null; revoked_at: string | null }[];
    try {
      ({ rows } = await this.pool.query('SELECT restrictions, revoked_at FROM api_keys WHERE restrictions IS NOT NULL'));
    } catch (error) {
      throw pgUnavailable(error);
    }
    const set = listedOrigins(rows, now);
    if (generation === this.generation) this.origins = { generation, until: now.getTime() + LISTED_ORIGINS_TTL_MS, set };
    return set;
  }

  async audit(query: AuditQuery): Promise<AuditEntry[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM audit_log WHERE ($1::text IS NULL OR subscription_id = $1) AND ($2::text IS NULL OR at >= $2) ORDER BY id LIMIT $3`,
      [query.subscriptionId ?? null, query.since ?? null, query.limit],
    );
    return rows.map(auditFromRow);
  }

  /** Creates the subscription and its first key in one transaction (or in `client`'s, when given). */
  async create(input: NewSubscription, by: AuditActor = SYSTEM_ACTOR, client?: pg.PoolClient): Promise<{ subscription: Subscription; keyId: string; apiKey: string }> {
    const work = async (db: pg.PoolClient) => {
      const id = newId('sub');
      await db.query(
        `INSERT INTO subscriptions (id, name, tier, status, monthly_limit, rate_limit, created_at) VALUES ($1, $2, $3, 'ACTIVE', $4, $5, $6)`,
        [id, input.name, input.tier, input.monthlyLimit ?? null, input.rateLimit ?? null, this.clock().toISOString()],
      );
      await this.audited(db, by, id, 'subscription.create', id, { name: input.name, tier: input.tier, monthlyLimit: input.monthlyLimit ?? null, rateLimit: input.rateLimit ?? null });
      const { keyId, apiKey } = await this.insertKey(db, id, input.apiKey ?? generateApiKey(), {}, by);
      return { subscription: (await this.get(id, db)) as Subscription, keyId, apiKey };
    };
    return client === undefined ? inTransaction(this.pool, work) : work(client);
  }

  private async insertKey(db: Queryable, subscriptionId: string, apiKey: string, options: KeyOptions, by: AuditActor): Promise<{ keyId: string; apiKey: string }> {
    const keyId = newId('key');
    const restrictions = options.restrictions ?? NO_RESTRICTIONS;
    await db.query('INSERT INTO api_keys (id, subscription_id, key_hash, prefix, created_at, name, restrictions) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      keyId,
      subscriptionId,
      hashApiKey(apiKey),
      displayPrefix(apiKey),
      this.clock().toISOString(),
      options.name ?? null,
      restrictionsToColumn(restrictions),
    ]);
    await this.audited(db, by, subscriptionId, 'key.create', keyId, { name: options.name ?? null, restrictions });
    this.changed();
    return { keyId, apiKey };
  }

  async createKey(subscriptionId: string, apiKey: string = generateApiKey(), options: KeyOptions = {}, by: AuditActor = SYSTEM_ACTOR): Promise<{ keyId: string; apiKey: string }> {
    return inTransaction(this.pool, (db) => this.insertKey(db, subscriptionId, apiKey, options, by));
  }

  async listKeys(subscriptionId: string): Promise<ApiKeyInfo[]> {
    return (await this.pool.query('SELECT * FROM api_keys WHERE subscription_id = $1 ORDER BY created_at, id', [subscriptionId])).rows.map(toKey);
  }

  async getKey(keyId: string): Promise<ApiKeyInfo | null> {
    const { rows } = await this.pool.query('SELECT * FROM api_keys WHERE id = $1', [keyId]);
    return rows.length === 0 ? null : toKey(rows[0]);
  }

  async revokeKey(keyId: string, by: AuditActor = SYSTEM_ACTOR): Promise<boolean> {
    const now = this.clock().toISOString();
    const done = await inTransaction(this.pool, async (db) => {
      const { rows } = await db.query(
        'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND (revoked_at IS NULL OR revoked_at > $1) RETURNING subscription_id',
        [now, keyId],
      );
      if (rows.length === 1) await this.audited(db, by, rows[0].subscription_id as string, 'key.revoke', keyId, null);
      return rows.length === 1;
    });
    this.changed();
    return done;
  }

  async revokeKeepingAccess(keyId: string, by: AuditActor = SYSTEM_ACTOR): Promise<KeepingAccessRevocation> {
    const now = this.clock().toISOString();
    const outcome = await inTransaction(this.pool, async (db): Promise<KeepingAccessRevocation> => {
      // The subscription's row locked first: revocations of its keys run one at a time, and the
      // count below sees every one committed before.
      const { rows: locked } = await db.query('SELECT s.id FROM subscriptions s JOIN api_keys k ON k.subscription_id = s.id WHERE k.id = $1 FOR UPDATE OF s', [keyId]);
      if (locked.length === 0) return 'gone';
      const subscriptionId = locked[0].id as string;
      const { rows } = await db.query('SELECT restrictions FROM api_keys WHERE id = $1 AND (revoked_at IS NULL OR revoked_at > $2)', [keyId, now]);
      if (rows.length === 0) return 'gone';
      if (rows[0].restrictions === null) {
        const { rows: others } = await db.query(
          'SELECT count(*)::int AS n FROM api_keys WHERE subscription_id = $1 AND id <> $2 AND revoked_at IS NULL AND restrictions IS NULL',
          [subscriptionId, keyId],
        );
        if (others[0].n === 0) return 'last-unrestricted';
      }
      await db.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [now, keyId]);
      await this.audited(db, by, subscriptionId, 'key.revoke', keyId, null);
      return 'revoked';
    });
    this.changed();
    return outcome;
  }

  async lastingKeys(subscriptionId: string): Promise<number> {
    return Number((await this.pool.query('SELECT count(*) AS n FROM api_keys WHERE subscription_id = $1 AND revoked_at IS NULL', [subscriptionId])).rows[0].n);
  }

  async rotateKey(keyId: string, graceSeconds: number, by: AuditActor = SYSTEM_ACTOR): Promise<RotatedKey | null> {
    const rotated = await inTransaction(this.pool, async (db) => {
      const now = this.clock();
      const { rows } = await db.query('SELECT * FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
      if (rows.length === 0) return null;
      const old = toKey(rows[0]);
      if (old.revokedAt !== null && old.revokedAt <= now.toISOString()) return null;
      const created = await this.insertKey(db, old.subscriptionId, generateApiKey(), { name: old.name, restrictions: old.restrictions }, by);
      // A key already in a grace period keeps its earlier end.
      const wanted = new Date(now.getTime() + graceSeconds * 1000).toISOString();
      const revokedAt = old.revokedAt !== null && old.revokedAt < wanted ? old.revokedAt : wanted;
      await db.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [revokedAt, keyId]);
      await this.audited(db, by, old.subscriptionId, 'key.rotate', keyId, { newKeyId: created.keyId, revokedAt });
      return { ...created, subscriptionId: old.subscriptionId, oldKeyRevokedAt: revokedAt };
    });
    this.changed();
    return rotated;
  }

  /** Runs one UPDATE of a subscription and its audit entry in one transaction; whether a row changed. */
  private async changeSubscription(id: string, sql: string, params: unknown[], by: AuditActor, action: AuditAction, details: Record<string, unknown>): Promise<boolean> {
    const done = await inTransaction(this.pool, async (db) => {
      const { rowCount } = await db.query(sql, params);
      if (rowCount === 1) await this.audited(db, by, id, action, id, details);
      return rowCount === 1;
    });
    this.changed();
    return done;
  }

  async setStatus(id: string, status: Status, by: AuditActor = SYSTEM_ACTOR): Promise<boolean> {
    return this.changeSubscription(id, 'UPDATE subscriptions SET status = $1 WHERE id = $2', [status, id], by, 'subscription.set-status', { status });
  }

  async setLimits(id: string, limits: { monthlyLimit?: number | null; rateLimit?: number | null }, by: AuditActor = SYSTEM_ACTOR): Promise<boolean> {
    // undefined leaves a column as it is: $2/$4 say whether to set it.
    return this.changeSubscription(
      id,
      `UPDATE subscriptions SET monthly_limit = CASE WHEN $2 THEN $1::integer ELSE monthly_limit END,
                                rate_limit = CASE WHEN $4 THEN $3::integer ELSE rate_limit END
        WHERE id = $5`,
      [limits.monthlyLimit ?? null, limits.monthlyLimit !== undefined, limits.rateLimit ?? null, limits.rateLimit !== undefined, id],
      by,
      'subscription.set-limits',
      limits,
    );
  }

  async setFeature(id: string, feature: Feature, enabled: boolean, by: AuditActor = SYSTEM_ACTOR): Promise<boolean> {
    if (!(FEATURES as readonly string[]).includes(feature)) throw new Error(`unknown feature ${feature}`);
    return this.changeSubscription(id, `UPDATE subscriptions SET ${FEATURE_COLUMN[feature]} = $1 WHERE id = $2`, [enabled, id], by, 'subscription.set-feature', { feature, enabled });
  }

  /** Records when keys were last used (one statement per batch of usage rows), in `db`'s transaction. */
  async touchKeys(lastUsed: Map<string, string>, db: Queryable = this.pool): Promise<void> {
    if (lastUsed.size === 0) return;
    const ids = [...lastUsed.keys()].sort();
    await db.query(
      `UPDATE api_keys k SET last_used_at = v.at FROM unnest($1::text[], $2::text[]) AS v (id, at)
        WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`,
      [ids, ids.map((id) => lastUsed.get(id))],
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.relisten !== null) clearTimeout(this.relisten);
    const listener = this.listener;
    this.listener = null;
    this.listening = false;
    await listener?.end().catch(() => undefined);
  }
}
