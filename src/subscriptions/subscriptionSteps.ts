// Subscriptions, API keys and the audit log: every operation both stores run, written once as
// statements (sqlSteps.ts). Each adapter runs them in its own transactions and keeps its own
// caching of callers; an operation that reads what it then decides to write runs in a write
// transaction and locks what it read (`Dialect.forUpdate`).
import { displayPrefix, generateApiKey, hashApiKey, newId } from './apiKeys.js';
import {
  auditFromRow,
  SYSTEM_ACTOR,
  type AuditAction,
  type AuditActor,
  type AuditEntry,
  type AuditQuery,
} from './audit.js';
import { DEMO_FEATURES, DEMO_KEY_NEVER_SHOWN_SQL } from './demo.js';
import { listedOrigins, NO_RESTRICTIONS, restrictionsToColumn } from './keyRestrictions.js';
import { all, get, run, type Dialect, type Steps } from './sqlSteps.js';
import type {
  ApiKeyInfo,
  Caller,
  CreatedDemo,
  KeepingAccessRevocation,
  KeyOptions,
  NewSubscription,
  RotatedKey,
} from './port.js';
import {
  callerFromRow,
  FEATURE_COLUMN,
  keyFromRow,
  subscriptionFromRow,
  type CallerKeyColumns,
  type SubscriptionRow,
} from './subscriptionRows.js';
import { FEATURES, type Feature, type Status, type Subscription } from './tiers.js';

/** SQLite holds a flag as 0 or 1, PostgreSQL as a boolean. */
type Row = SubscriptionRow<number | boolean>;
const toSubscription = (row: Row): Subscription => subscriptionFromRow(row, Boolean);
type KeyRow = Record<string, string | null>;

/** A caller's row: its subscription's columns and its key's. */
export type CallerRow = Row & CallerKeyColumns & { key_revoked_at: string | null };

/** The caller a key's row makes, and until when it may be trusted (its revocation time, if any). */
export const callerOfRow = (row: CallerRow): { caller: Caller; revokedAtMs: number } => ({
  caller: callerFromRow(toSubscription(row), row),
  revokedAtMs: row.key_revoked_at === null ? Infinity : Date.parse(row.key_revoked_at),
});

/**
 * The row of the working key whose hash is `hash`, with its subscription's; undefined when unknown or revoked by
 * `nowIso`.
 */
export function* callerRow(hash: string, nowIso: string): Steps<CallerRow | undefined> {
  return yield* get<CallerRow>(
    `SELECT s.*, k.id AS key_id, k.prefix AS key_prefix, k.revoked_at AS key_revoked_at, k.restrictions AS
      key_restrictions
       FROM api_keys k JOIN subscriptions s ON s.id = k.subscription_id
      WHERE k.key_hash = ? AND (k.revoked_at IS NULL OR k.revoked_at > ?)`,
    hash,
    nowIso,
  );
}

/** Every origin some working key lists. */
export function* keyOrigins(now: Date): Steps<ReadonlySet<string>> {
  return listedOrigins(
    yield* all<{ restrictions: string | null; revoked_at: string | null }>(
      'SELECT restrictions, revoked_at FROM api_keys WHERE restrictions IS NOT NULL',
    ),
    now,
  );
}

export function* subscription(id: string): Steps<Subscription | null> {
  const row = yield* get<Row>('SELECT * FROM subscriptions WHERE id = ?', id);
  return row === undefined ? null : toSubscription(row);
}

export function* subscriptions(): Steps<Subscription[]> {
  return (yield* all<Row>('SELECT * FROM subscriptions ORDER BY created_at, id')).map(toSubscription);
}

export function* subscriptionCount(): Steps<number> {
  return Number((yield* get<{ n: number | string }>('SELECT count(*) AS n FROM subscriptions'))!.n);
}

/** Writes one audit entry (in the operation's transaction). */
function* audited(
  at: Date,
  by: AuditActor,
  subscriptionId: string | null,
  action: AuditAction,
  target: string,
  details: Record<string, unknown> | null,
): Steps<void> {
  yield* run(
    'INSERT INTO audit_log (at, subscription_id, actor, address, action, target, details) VALUES (?, ?, ?, ?, ?, ?, ?)',
    at.toISOString(),
    subscriptionId,
    by.actor,
    by.address,
    action,
    target,
    details === null ? null : JSON.stringify(details),
  );
}

/** Audit entries, oldest first, at most `query.limit`. */
export function* auditEntries(d: Dialect, query: AuditQuery): Steps<AuditEntry[]> {
  const rows = yield* all<Record<string, unknown>>(
    `SELECT * FROM audit_log WHERE (${d.textParam} IS NULL OR subscription_id = ?) AND (${d.textParam} IS ` +
      `NULL OR at >= ?) ORDER BY id LIMIT ?`,
    query.subscriptionId ?? null,
    query.subscriptionId ?? null,
    query.since ?? null,
    query.since ?? null,
    query.limit,
  );
  return rows.map(auditFromRow);
}

/** The subscription and its first key (random unless given), each with its audit entry. */
export function* createSubscription(
  at: Date,
  input: NewSubscription,
  by: AuditActor = SYSTEM_ACTOR,
): Steps<{ subscription: Subscription; keyId: string; apiKey: string }> {
  const id = newId('sub');
  yield* run(
    `INSERT INTO subscriptions (id, name, tier, status, monthly_limit, rate_limit, created_at) VALUES (?, ` +
      `?, ?, 'ACTIVE', ?, ?, ?)`,
    id,
    input.name,
    input.tier,
    input.monthlyLimit ?? null,
    input.rateLimit ?? null,
    at.toISOString(),
  );
  yield* audited(at, by, id, 'subscription.create', id, {
    name: input.name,
    tier: input.tier,
    monthlyLimit: input.monthlyLimit ?? null,
    rateLimit: input.rateLimit ?? null,
  });
  const { keyId, apiKey } = yield* createKey(at, id, input.apiKey, {}, by);
  return { subscription: (yield* subscription(id))!, keyId, apiKey };
}

/** A key (random unless given), returned in clear: the only time it exists in clear. */
export function* createKey(
  at: Date,
  subscriptionId: string,
  apiKey: string = generateApiKey(),
  options: KeyOptions = {},
  by: AuditActor = SYSTEM_ACTOR,
): Steps<{ keyId: string; apiKey: string }> {
  const keyId = newId('key');
  const restrictions = options.restrictions ?? NO_RESTRICTIONS;
  yield* run(
    'INSERT INTO api_keys (id, subscription_id, key_hash, prefix, created_at, name, restrictions) VALUES (?, ?, ' +
      '?, ?, ?, ?, ?)',
    keyId,
    subscriptionId,
    hashApiKey(apiKey),
    displayPrefix(apiKey),
    at.toISOString(),
    options.name ?? null,
    restrictionsToColumn(restrictions),
  );
  yield* audited(at, by, subscriptionId, 'key.create', keyId, { name: options.name ?? null, restrictions });
  return { keyId, apiKey };
}

export function* keys(subscriptionId: string): Steps<ApiKeyInfo[]> {
  return (yield* all<KeyRow>(
    'SELECT * FROM api_keys WHERE subscription_id = ? ORDER BY created_at, id',
    subscriptionId,
  )).map(keyFromRow);
}

export function* key(keyId: string): Steps<ApiKeyInfo | null> {
  const row = yield* get<KeyRow>('SELECT * FROM api_keys WHERE id = ?', keyId);
  return row === undefined ? null : keyFromRow(row);
}

/** Revokes a key at once (one in a rotation's grace period included); false if unknown or already revoked. */
export function* revokeKey(at: Date, keyId: string, by: AuditActor = SYSTEM_ACTOR): Steps<boolean> {
  const now = at.toISOString();
  const row = yield* get<{ subscription_id: string }>(
    'SELECT subscription_id FROM api_keys WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)',
    keyId,
    now,
  );
  if (row === undefined) return false;
  const done =
    (yield* run(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)',
      now,
      keyId,
      now,
    )) === 1;
  if (done) yield* audited(at, by, row.subscription_id, 'key.revoke', keyId, null);
  return done;
}

/**
 * Revokes at once unless the key is the subscription's last unrestricted one without a revocation
 * set. In a write transaction: the subscription's row is locked first, so revocations of its keys
 * run one at a time and the count sees every one committed before.
 */
export function* revokeKeepingAccess(
  d: Dialect,
  at: Date,
  keyId: string,
  by: AuditActor = SYSTEM_ACTOR,
): Steps<KeepingAccessRevocation> {
  const now = at.toISOString();
  const locked = yield* get<{ id: string }>(
    `SELECT s.id FROM subscriptions s JOIN api_keys k ON k.subscription_id = s.id WHERE k.id = ?${d.forUpdate('s')}`,
    keyId,
  );
  if (locked === undefined) return 'gone';
  const row = yield* get<{ restrictions: string | null }>(
    'SELECT restrictions FROM api_keys WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)',
    keyId,
    now,
  );
  if (row === undefined) return 'gone';
  if (row.restrictions === null) {
    const others = yield* get<{ n: number | string }>(
      'SELECT count(*) AS n FROM api_keys WHERE subscription_id = ? AND id <> ? AND revoked_at IS NULL AND ' +
        'restrictions IS NULL',
      locked.id,
      keyId,
    );
    if (Number(others!.n) === 0) return 'last-unrestricted';
  }
  yield* run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', now, keyId);
  yield* audited(at, by, locked.id, 'key.revoke', keyId, null);
  return 'revoked';
}

/** Keys of the subscription with no revocation set, not even a future one. */
export function* lastingKeys(subscriptionId: string): Steps<number> {
  return Number(
    (yield* get<{ n: number | string }>(
      'SELECT count(*) AS n FROM api_keys WHERE subscription_id = ? AND revoked_at IS NULL',
      subscriptionId,
    ))!.n,
  );
}

/**
 * Replaces a key, in a write transaction: a new key with the old one's name and restrictions, and
 * the old one revoked `graceSeconds` from now (at once for 0); null if the old key is unknown or
 * already revoked.
 */
export function* rotateKey(
  d: Dialect,
  at: Date,
  keyId: string,
  graceSeconds: number,
  by: AuditActor = SYSTEM_ACTOR,
): Steps<RotatedKey | null> {
  const row = yield* get<KeyRow>(`SELECT * FROM api_keys WHERE id = ?${d.forUpdate()}`, keyId);
  if (row === undefined) return null;
  const old = keyFromRow(row);
  if (old.revokedAt !== null && old.revokedAt <= at.toISOString()) return null;
  const created = yield* createKey(
    at,
    old.subscriptionId,
    undefined,
    { name: old.name, restrictions: old.restrictions },
    by,
  );
  // A key already in a grace period keeps its earlier end.
  const wanted = new Date(at.getTime() + graceSeconds * 1000).toISOString();
  const revokedAt = old.revokedAt !== null && old.revokedAt < wanted ? old.revokedAt : wanted;
  yield* run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', revokedAt, keyId);
  yield* audited(at, by, old.subscriptionId, 'key.rotate', keyId, { newKeyId: created.keyId, revokedAt });
  return { ...created, subscriptionId: old.subscriptionId, oldKeyRevokedAt: revokedAt };
}

/** One UPDATE of a subscription and, when it changed a row, its audit entry. */
function* changeSubscription(
  at: Date,
  id: string,
  set: string,
  params: unknown[],
  by: AuditActor,
  action: AuditAction,
  details: Record<string, unknown>,
): Steps<boolean> {
  const done = (yield* run(`UPDATE subscriptions SET ${set} WHERE id = ?`, ...params, id)) === 1;
  if (done) yield* audited(at, by, id, action, id, details);
  return done;
}

export function* setStatus(at: Date, id: string, status: Status, by: AuditActor = SYSTEM_ACTOR): Steps<boolean> {
  return yield* changeSubscription(at, id, 'status = ?', [status], by, 'subscription.set-status', { status });
}

/** Sets or clears (null) the overrides given; undefined leaves a value as it is. */
export function* setLimits(
  at: Date,
  id: string,
  limits: { monthlyLimit?: number | null; rateLimit?: number | null },
  by: AuditActor = SYSTEM_ACTOR,
): Steps<boolean> {
  const given = (
    [
      ['monthly_limit', limits.monthlyLimit],
      ['rate_limit', limits.rateLimit],
    ] as const
  ).filter(([, value]) => value !== undefined);
  // Nothing to set still finds the subscription (and audits the request).
  const set =
    given.length === 0 ? 'monthly_limit = monthly_limit' : given.map(([column]) => `${column} = ?`).join(', ');
  return yield* changeSubscription(
    at,
    id,
    set,
    given.map(([, value]) => value),
    by,
    'subscription.set-limits',
    limits,
  );
}

export function* setFeature(
  at: Date,
  id: string,
  feature: Feature,
  enabled: boolean,
  by: AuditActor = SYSTEM_ACTOR,
): Steps<boolean> {
  if (!(FEATURES as readonly string[]).includes(feature)) throw new Error(`unknown feature ${feature}`);
  // 1 and 0: SQLite's flags, and PostgreSQL reads them as a boolean's true and false.
  return yield* changeSubscription(
    at,
    id,
    `${FEATURE_COLUMN[feature]} = ?`,
    [enabled ? 1 : 0],
    by,
    'subscription.set-feature',
    { feature, enabled },
  );
}

/** The lock that keeps demo creations apart (`exclusive` of the write transaction createDemo runs in). */
export const DEMO_LOCK = 727_170_003;

/**
 * The demo subscription (src/subscriptions/demo.ts) when no subscription exists, in a write
 * transaction that excludes any other demo creation (DEMO_LOCK); null when a subscription exists.
 */
export function* createDemo(at: Date, apiKey: string | null): Steps<CreatedDemo | null> {
  if ((yield* subscriptionCount()) > 0) return null;
  const created = yield* createSubscription(at, { name: 'Demo', tier: 'PROFESSIONAL', apiKey: apiKey ?? undefined });
  for (const feature of DEMO_FEATURES) yield* setFeature(at, created.subscription.id, feature, true);
  yield* run(
    'INSERT INTO demo_subscription (subscription_id, key_id) VALUES (?, ?)',
    created.subscription.id,
    created.keyId,
  );
  return { subscriptionId: created.subscription.id, apiKey: created.apiKey };
}

/** Records that the demo key was shown (later starts say nothing about it). */
export function* markDemoKeyShown(at: Date, subscriptionId: string): Steps<void> {
  yield* run(
    'UPDATE demo_subscription SET key_shown_at = ? WHERE subscription_id = ?',
    at.toISOString(),
    subscriptionId,
  );
}

/** The demo subscription nobody can have a key of (DEMO_KEY_NEVER_SHOWN_SQL), or null. */
export function* demoKeyNeverShown(): Steps<string | null> {
  return (yield* get<{ subscription_id: string }>(DEMO_KEY_NEVER_SHOWN_SQL))?.subscription_id ?? null;
}
