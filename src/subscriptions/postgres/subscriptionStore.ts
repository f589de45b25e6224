// Subscriptions and API keys in PostgreSQL: the operations of ../subscriptionSteps.ts, each a
// promise. Callers are cached by key hash on each instance; any
// change that can refuse a caller (a key revoked or rotated, a subscription's status, limits or
// features) fires a NOTIFY from a trigger, whoever made it (grants-admin on any machine, psql), and
// every instance LISTENing drops its cache on receipt: a revoked key is refused within a second.
// Safety net: a cached caller is trusted for `cacheTtlMs` at most, and for one second at most
// while the LISTEN connection is down (it reconnects by itself).
import pg from 'pg';
import { describeError, type Logger } from '../../log.js';
import { hashApiKey } from '../apiKeys.js';
import type { AuditActor, AuditEntry, AuditQuery } from '../audit.js';
import { CallerCache } from '../callerCache.js';
import { LISTED_ORIGINS_TTL_MS } from '../keyRestrictions.js';
import type { Steps, TransactionOptions } from '../sqlSteps.js';
import type {
  ApiKeyInfo,
  Awaitable,
  Caller,
  KeepingAccessRevocation,
  KeyOptions,
  NewSubscription,
  RotatedKey,
  SubscriptionRecords,
} from '../port.js';
import * as op from '../subscriptionSteps.js';
import type { Feature, Status, Subscription } from '../tiers.js';
import { CHANGES_CHANNEL, pgUnavailable, type Pool } from './database.js';
import { PgSteps } from './steps.js';

/** How long a cached caller is trusted without a word from LISTEN (the safety net). */
const DEFAULT_CALLER_CACHE_TTL_MS = 5_000;
/** How long while the LISTEN connection is down: the one-second promise holds without notifications. */
const UNLISTENED_TTL_MS = 1_000;
const RELISTEN_DELAY_MS = 1_000;

interface PgSubscriptionStoreOptions {
  /** The database URL, for the LISTEN connection (none: no listening, the TTL alone bounds the cache). */
  listenUrl?: string;
  clock?: () => Date;
  log?: Logger;
  cacheTtlMs?: number;
}

export class PgSubscriptionStore implements SubscriptionRecords {
  readonly steps: PgSteps;
  private readonly callers = new CallerCache();
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
    this.steps = new PgSteps(pool);
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
      this.options.log?.warn(
        'store change listener lost; callers are cached for one second until it is back',
        describeError(error ?? new Error('connection ended')),
      );
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
    const known = this.callers.get(hash, this.clock().getTime());
    if (known !== undefined) return known;
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
    let row: op.CallerRow | undefined;
    try {
      row = await this.steps.run(op.callerRow(hash, now.toISOString()));
    } catch (error) {
      throw pgUnavailable(error);
    }
    if (row === undefined) return null;
    const { caller, revokedAtMs } = op.callerOfRow(row);
    if (generation === this.generation) {
      const trusted = now.getTime() + (this.listening ? this.cacheTtlMs : UNLISTENED_TTL_MS);
      this.callers.set(hash, caller, Math.min(trusted, revokedAtMs));
    }
    return caller;
  }

  /** The origins working keys list, kept until a change is heard of (a second at most). */
  private origins: { generation: number; until: number; set: ReadonlySet<string> } | null = null;

  async keyOrigins(): Promise<ReadonlySet<string>> {
    const now = this.clock();
    const cached = this.origins;
    if (cached !== null && cached.generation === this.generation && now.getTime() < cached.until) return cached.set;
    const generation = this.generation;
    let set: ReadonlySet<string>;
    try {
      set = await this.steps.run(op.keyOrigins(now));
    } catch (error) {
      throw pgUnavailable(error);
    }
    if (generation === this.generation)
      this.origins = { generation, until: now.getTime() + LISTED_ORIGINS_TTL_MS, set };
    return set;
  }

  get(id: string): Promise<Subscription | null> {
    return this.steps.run(op.subscription(id));
  }

  list(): Promise<Subscription[]> {
    return this.steps.run(op.subscriptions());
  }

  count(): Promise<number> {
    return this.steps.run(op.subscriptionCount());
  }

  audit(query: AuditQuery): Promise<AuditEntry[]> {
    return this.steps.run(op.auditEntries(this.steps.dialect, query));
  }

  /** Runs a change in one transaction; the cached callers are forgotten once it has ended. */
  private async change<T>(steps: Steps<T>, options?: TransactionOptions): Promise<T> {
    try {
      return await this.steps.transaction(steps, options);
    } finally {
      this.changed();
    }
  }

  create(
    input: NewSubscription,
    by?: AuditActor,
  ): Promise<{ subscription: Subscription; keyId: string; apiKey: string }> {
    return this.change(op.createSubscription(this.clock(), input, by));
  }

  createKey(
    subscriptionId: string,
    apiKey?: string,
    options?: KeyOptions,
    by?: AuditActor,
  ): Promise<{ keyId: string; apiKey: string }> {
    return this.change(op.createKey(this.clock(), subscriptionId, apiKey, options, by));
  }

  listKeys(subscriptionId: string): Promise<ApiKeyInfo[]> {
    return this.steps.run(op.keys(subscriptionId));
  }

  getKey(keyId: string): Promise<ApiKeyInfo | null> {
    return this.steps.run(op.key(keyId));
  }

  revokeKey(keyId: string, by?: AuditActor): Promise<boolean> {
    return this.change(op.revokeKey(this.clock(), keyId, by));
  }

  revokeKeepingAccess(keyId: string, by?: AuditActor): Promise<KeepingAccessRevocation> {
    return this.change(op.revokeKeepingAccess(this.steps.dialect, this.clock(), keyId, by), { write: true });
  }

  lastingKeys(subscriptionId: string): Promise<number> {
    return this.steps.run(op.lastingKeys(subscriptionId));
  }

  rotateKey(keyId: string, graceSeconds: number, by?: AuditActor): Promise<RotatedKey | null> {
    return this.change(op.rotateKey(this.steps.dialect, this.clock(), keyId, graceSeconds, by), { write: true });
  }

  setStatus(id: string, status: Status, by?: AuditActor): Promise<boolean> {
    return this.change(op.setStatus(this.clock(), id, status, by));
  }

  setLimits(
    id: string,
    limits: { monthlyLimit?: number | null; rateLimit?: number | null },
    by?: AuditActor,
  ): Promise<boolean> {
    return this.change(op.setLimits(this.clock(), id, limits, by));
  }

  setFeature(id: string, feature: Feature, enabled: boolean, by?: AuditActor): Promise<boolean> {
    return this.change(op.setFeature(this.clock(), id, feature, enabled, by));
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
