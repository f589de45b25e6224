// The subscriptions store port: everything the subscriptions side reads and writes, whatever holds
// it. Two adapters implement it: SQLite (src/subscriptions/sqlite/store.ts, the embedded default,
// synchronous underneath) and PostgreSQL (src/subscriptions/postgres/, shared by a fleet).
//
// Methods return Awaitable<T>: the SQLite adapter answers synchronously (no promise, no extra
// microtask on the hot path), the PostgreSQL adapter with a promise. Callers on the hot path test
// for a promise (`isPromise`) instead of awaiting every answer; others simply `await`.
import type { AuditActor, AuditEntry, AuditQuery } from './audit.js';
import type { KeyRestrictions } from './keyRestrictions.js';
import type { Feature, Status, Subscription, Tier } from './tiers.js';

export type Awaitable<T> = T | Promise<T>;

export const isPromise = <T>(value: Awaitable<T>): value is Promise<T> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

export interface ApiKeyInfo {
  id: string;
  subscriptionId: string;
  prefix: string;
  /** The partner's name for the key (null for keys made without one). */
  name: string | null;
  restrictions: KeyRestrictions;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Caller {
  subscription: Subscription;
  keyId: string;
  keyPrefix: string;
  /** What the key may do, from where, until when and how fast (src/subscriptions/keyRestrictions.ts). */
  restrictions: KeyRestrictions;
}

/** A key's name and restrictions at its creation. */
export interface KeyOptions {
  name?: string | null;
  restrictions?: KeyRestrictions;
}

/**
 * The hot path: the caller a presented API key belongs to (null: unknown or revoked; an expired key is returned, its
 * restrictions say so).
 */
export interface CallerDirectory {
  authenticate(key: string): Awaitable<Caller | null>;
}

export interface NewSubscription {
  name: string;
  tier: Tier;
  monthlyLimit?: number | null;
  rateLimit?: number | null;
  /** The first key in clear (random when absent). */
  apiKey?: string;
}

export interface RotatedKey {
  keyId: string;
  apiKey: string;
  subscriptionId: string;
  oldKeyRevokedAt: string;
}

/** What revokeKeepingAccess did. */
export type KeepingAccessRevocation = 'revoked' | 'gone' | 'last-unrestricted';

/**
 * Subscriptions and keys, as grants-admin and the partner's /keys endpoints manage them. Every
 * change writes its audit entry (`by`: who made it; the server itself when absent) in the
 * change's own transaction.
 */
export interface SubscriptionRecords extends CallerDirectory {
  get(id: string): Awaitable<Subscription | null>;
  list(): Awaitable<Subscription[]>;
  count(): Awaitable<number>;
  create(
    input: NewSubscription,
    by?: AuditActor,
  ): Awaitable<{ subscription: Subscription; keyId: string; apiKey: string }>;
  /** Creates a key (random unless given); returns it in clear, the only time it exists in clear. */
  createKey(
    subscriptionId: string,
    apiKey?: string,
    options?: KeyOptions,
    by?: AuditActor,
  ): Awaitable<{ keyId: string; apiKey: string }>;
  listKeys(subscriptionId: string): Awaitable<ApiKeyInfo[]>;
  getKey(keyId: string): Awaitable<ApiKeyInfo | null>;
  /** Revokes at once; false if unknown or already revoked. */
  revokeKey(keyId: string, by?: AuditActor): Awaitable<boolean>;
  /**
   * Revokes at once unless the key is unrestricted and the subscription holds no other
   * unrestricted key without a revocation set: the check and the revocation are one transaction
   * (two keys revoking each other at once cannot both succeed). 'gone': unknown or already revoked.
   */
  revokeKeepingAccess(keyId: string, by?: AuditActor): Awaitable<KeepingAccessRevocation>;
  /** Keys of the subscription with no revocation set, not even a future one. */
  lastingKeys(subscriptionId: string): Awaitable<number>;
  /**
   * A new key (with the old one's name and restrictions), the old one revoked `graceSeconds` from now; null if the old
   * key is unknown or revoked.
   */
  rotateKey(keyId: string, graceSeconds: number, by?: AuditActor): Awaitable<RotatedKey | null>;
  setStatus(id: string, status: Status, by?: AuditActor): Awaitable<boolean>;
  /** Sets or clears (null) the overrides given; undefined leaves a value as it is. */
  setLimits(
    id: string,
    limits: { monthlyLimit?: number | null; rateLimit?: number | null },
    by?: AuditActor,
  ): Awaitable<boolean>;
  setFeature(id: string, feature: Feature, enabled: boolean, by?: AuditActor): Awaitable<boolean>;
  /** Audit entries, oldest first, at most `limit`. */
  audit(query: AuditQuery): Awaitable<AuditEntry[]>;
  /**
   * Every origin some working key lists (the browser preflights they may pass); may lag a change
   * by a second at most.
   */
  keyOrigins(): Awaitable<ReadonlySet<string>>;
}

export interface UsageRow {
  at: Date;
  subscriptionId: string;
  keyId: string;
  keyPrefix: string;
  /** Route template relative to /external/v1, or null for an unknown path. */
  endpoint: string | null;
  billable: boolean;
  status: number;
  latencyMs: number;
  requestId: string;
}

export interface UsageStatistics {
  totalCalls: number;
  topEndpoints: { endpoint: string; calls: number }[];
}

/** Counted calls of one subscription on one day at one endpoint (the per-day table). */
export interface DailyCalls {
  day: string;
  endpoint: string;
  calls: number;
}

/**
 * The usage log: rows written in batches, one per event-loop turn or per write in flight (the key's
 * last use with them), and the statistics, read only from the per-day table. "Counted" is the
 * statistics' rule: billable or /subscription/*, any status but 401 and 429.
 */
export interface UsageLog {
  /**
   * Logs one row; resolves once it is committed, so that the answer it logs is sent only then (a
   * crash loses no row of an answer sent). A failed write never rejects: the row waits in memory
   * for the next attempt.
   */
  record(row: UsageRow): Awaitable<void>;
  /** Writes every waiting row now (rows that fail stay in memory for the next attempt). */
  flush(): Awaitable<void>;
  readonly pending: number;
  /** Counted calls from `fromDay` (YYYY-MM-DD) on: total and the top 10 endpoints. */
  statistics(subscriptionId: string, fromDay: string): Awaitable<UsageStatistics>;
  /** Counted calls from `fromDay` on, per day and endpoint, ordered by day then endpoint. */
  dailyByEndpoint(subscriptionId: string, fromDay: string): Awaitable<DailyCalls[]>;
  close(): Awaitable<void>;
}

/** Counts billable calls per subscription and month; the allowance check and the count are one step. */
export interface AllowanceCounter {
  /** Counts one call if fewer than `limit` were counted this month; says whether it was. */
  tryConsume(subscriptionId: string, month: string, limit: number): Promise<Admission>;
  current(subscriptionId: string, month: string): Promise<number>;
}

export interface Admission {
  allowed: boolean;
  /** Calls counted this month after this decision. */
  calls: number;
}

/**
 * The monthly record: the exact check-and-count (AllowanceCounter) and what the Redis counter
 * needs from it (calls it admitted, counted so the record never trails what was served).
 */
export interface AllowanceRecord extends AllowanceCounter {
  /** Counts a call another counter admitted; resolves once committed, with the month's calls. */
  recordServed(subscriptionId: string, month: string): Promise<number>;
  /** A lower bound of the recorded count (the floor a flushed Redis counter is raised to). */
  floor(subscriptionId: string, month: string): Awaitable<number>;
  /** Every subscription's count for a month. */
  monthCounts(month: string): Awaitable<{ subscriptionId: string; calls: number }[]>;
  /** Commits what is waiting (before the store closes). */
  close(): Awaitable<void>;
}

export interface CreatedDemo {
  subscriptionId: string;
  apiKey: string;
}

/** The demo subscription of a first start (src/subscriptions/demo.ts tells the story). */
export interface DemoRecords {
  createIfNone(apiKey: string | null): Awaitable<CreatedDemo | null>;
  markKeyShown(subscriptionId: string): Awaitable<void>;
  keyNeverShown(): Awaitable<string | null>;
}

export interface UsageSizes {
  /** Rows in the usage log (each logged request until its day passes the retention). */
  usageLogRows: number;
  /** Rows of per-day counts (subscription × day × endpoint), kept for good. */
  usageDailyRows: number;
}

export type StoreKind = 'sqlite' | 'postgres';

/** One opened store: the parts above, retention, sizes for the metrics, and closing. */
export interface SubscriptionsStore {
  readonly kind: StoreKind;
  readonly subscriptions: SubscriptionRecords;
  readonly usage: UsageLog;
  readonly allowance: AllowanceRecord;
  readonly demo: DemoRecords;
  /** The applied schema version (migrations run when the store opens). */
  schemaVersion(): Awaitable<number>;
  /**
   * Starts what a serving process runs in the background: the sweep that deletes usage rows past the retention (and,
   * on SQLite, the write-ahead log's checkpoints on a thread of their own).
   */
  startBackgroundWork(): void;
  /** Usage sizes for the metrics; may be up to a minute old. */
  sizes(): UsageSizes;
  /** Flushes what is buffered and releases connections. */
  close(): Promise<void>;
}
