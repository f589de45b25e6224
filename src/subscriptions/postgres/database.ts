// The PostgreSQL subscriptions database: the pool, versioned migrations (run at start-up and by
// `grants-admin migrate`, serialised across instances by an advisory lock), transactions, and the
// errors a retry may cure. Timestamps of subscriptions and keys are ISO text, as in SQLite, so both
// adapters answer alike; the usage log's are timestamptz/date (it is partitioned by month on day).
import pg from 'pg';
import { ServiceUnavailableError } from '../../failures.js';

export type Pool = pg.Pool;
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** The channel the change triggers notify on (src/subscriptions/postgres/subscriptionStore.ts listens). */
export const CHANGES_CHANNEL = 'grants_store_changes';
/** Advisory lock ids: migrations, and the usage log's partitions (created and dropped by any instance). */
const MIGRATION_LOCK = 727_170_001;
export const PARTITION_LOCK = 727_170_002;

/** Migrations in order; each runs once, all of a start in one transaction. Never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `CREATE TABLE subscriptions (
     id                TEXT PRIMARY KEY,
     name              TEXT NOT NULL,
     tier              TEXT NOT NULL CHECK (tier IN ('STARTER', 'PROFESSIONAL', 'ENTERPRISE')),
     status            TEXT NOT NULL CHECK (status IN ('ACTIVE', 'SUSPENDED', 'CANCELLED')),
     monthly_limit     INTEGER,
     rate_limit        INTEGER,
     feature_grants_read       BOOLEAN NOT NULL DEFAULT TRUE,
     feature_grants_search     BOOLEAN NOT NULL DEFAULT TRUE,
     feature_subscription_read BOOLEAN NOT NULL DEFAULT TRUE,
     created_at        TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id              TEXT PRIMARY KEY,
     subscription_id TEXT NOT NULL REFERENCES subscriptions (id),
     key_hash        TEXT NOT NULL UNIQUE,
     prefix          TEXT NOT NULL,
     created_at      TEXT NOT NULL,
     last_used_at    TEXT,
     revoked_at      TEXT
   );
   CREATE INDEX api_keys_subscription ON api_keys (subscription_id);
   CREATE TABLE monthly_usage (
     subscription_id TEXT NOT NULL,
     month           TEXT NOT NULL,
     calls           INTEGER NOT NULL,
     PRIMARY KEY (subscription_id, month)
   );
   -- The usage log, one partition per month (created ahead by the writers, dropped whole by retention).
   CREATE TABLE usage_log (
     at              TIMESTAMPTZ NOT NULL,
     day             DATE NOT NULL,
     subscription_id TEXT NOT NULL,
     key_id          TEXT NOT NULL,
     key_prefix      TEXT NOT NULL,
     endpoint        TEXT,
     billable        BOOLEAN NOT NULL,
     status          SMALLINT NOT NULL,
     latency_ms      REAL NOT NULL,
     request_id      TEXT NOT NULL
   ) PARTITION BY RANGE (day);
   -- Counted calls per subscription, day and endpoint, kept by the writers with INSERT … ON CONFLICT.
   CREATE TABLE usage_daily (
     subscription_id TEXT NOT NULL,
     day             DATE NOT NULL,
     endpoint        TEXT NOT NULL,
     calls           BIGINT NOT NULL,
     PRIMARY KEY (subscription_id, day, endpoint)
   );
   CREATE TABLE demo_subscription (
     subscription_id TEXT PRIMARY KEY REFERENCES subscriptions (id),
     key_id          TEXT NOT NULL REFERENCES api_keys (id),
     key_shown_at    TEXT
   );
   -- Every change that can refuse a caller notifies the instances (they drop their cached callers).
   -- A key's last use is not one: it changes on every batch of usage and refuses nobody.
   CREATE FUNCTION grants_store_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME);
     RETURN NULL;
   END $$;
   CREATE TRIGGER subscriptions_changed AFTER INSERT OR UPDATE OR DELETE ON subscriptions
     FOR EACH STATEMENT EXECUTE FUNCTION grants_store_notify();
   CREATE TRIGGER api_keys_changed AFTER INSERT OR DELETE OR UPDATE OF revoked_at, key_hash, subscription_id ON api_keys
     FOR EACH STATEMENT EXECUTE FUNCTION grants_store_notify();
   -- The exact check-and-count of one turn's asks, one row per (subscription, month, asks, limit),
   -- in the caller's order (sorted, so two instances lock rows in one order): the month's row is
   -- locked, as many asks admitted as the limit leaves room for (all when the limit is null), and
   -- counted, in the statement that checked them. Two instances can never both take the last call.
   CREATE FUNCTION consume_allowance(subs TEXT[], months TEXT[], asks INTEGER[], limits INTEGER[])
     RETURNS TABLE (calls_before INTEGER, calls_admitted INTEGER) LANGUAGE plpgsql AS $$
   DECLARE
     i INTEGER;
     b INTEGER;
     a INTEGER;
   BEGIN
     FOR i IN 1 .. coalesce(array_length(subs, 1), 0) LOOP
       INSERT INTO monthly_usage AS m (subscription_id, month, calls) VALUES (subs[i], months[i], 0) ON CONFLICT DO
         NOTHING;
       SELECT m.calls INTO b FROM monthly_usage m WHERE m.subscription_id = subs[i] AND m.month = months[i] FOR UPDATE;
       a := CASE WHEN limits[i] IS NULL THEN asks[i] ELSE least(asks[i], greatest(0, limits[i] - b)) END;
       IF a > 0 THEN
         UPDATE monthly_usage m SET calls = m.calls + a WHERE m.subscription_id = subs[i] AND m.month = months[i];
       END IF;
       calls_before := b;
       calls_admitted := a;
       RETURN NEXT;
     END LOOP;
   END $$;`,
  // 2: the grants.export feature (GET /grants/export). NULL: the tier's default (tiers.ts,
  // ENTERPRISE only); grants-admin subscription set-feature writes true or false.
  `ALTER TABLE subscriptions ADD COLUMN feature_grants_export BOOLEAN;`,
  // 3: the alerts.manage feature (NULL: on) and an operator's override of the number of alerts.
  `ALTER TABLE subscriptions ADD COLUMN feature_alerts_manage BOOLEAN;
   ALTER TABLE subscriptions ADD COLUMN alert_limit INTEGER;`,
  // 4: alerts (src/alerts/postgres/alertStore.ts), as in SQLite: the alerts, what each told its
  // partner, the outbox, the matcher's position and lease (one matcher in the fleet), and the
  // answers kept for Idempotency-Key. Times are ISO text, as for subscriptions and keys.
  `CREATE TABLE alerts (
     id                  TEXT PRIMARY KEY,
     subscription_id     TEXT NOT NULL REFERENCES subscriptions (id),
     name                TEXT NOT NULL,
     query               TEXT NOT NULL,
     url                 TEXT NOT NULL,
     events              TEXT NOT NULL,
     closing_days        INTEGER,
     status              TEXT NOT NULL CHECK (status IN ('ACTIVE', 'PAUSED', 'DISABLED')),
     disabled_reason     TEXT,
     secret              TEXT NOT NULL,
     previous_secret     TEXT,
     previous_until      TEXT,
     from_seq            BIGINT NOT NULL,
     created_at          TEXT NOT NULL,
     updated_at          TEXT NOT NULL
   );
   CREATE INDEX alerts_subscription ON alerts (subscription_id, created_at, id);
   CREATE TABLE alert_grants (
     alert_id          TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
     grant_id          TEXT NOT NULL,
     deadline          TEXT,
     reminded_deadline TEXT,
     PRIMARY KEY (alert_id, grant_id)
   );
   CREATE INDEX alert_grants_grant ON alert_grants (grant_id);
   CREATE TABLE alert_messages (
     seq              BIGSERIAL PRIMARY KEY,
     id               TEXT NOT NULL UNIQUE,
     alert_id         TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
     grant_id         TEXT,
     type             TEXT NOT NULL,
     payload          TEXT NOT NULL,
     status           TEXT NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
     attempts         INTEGER NOT NULL DEFAULT 0,
     next_attempt_at  TEXT,
     last_at          TEXT,
     last_status      INTEGER,
     last_error       TEXT,
     last_duration_ms INTEGER,
     claimed_until    TEXT,
     created_at       TEXT NOT NULL
   );
   CREATE INDEX alert_messages_due ON alert_messages (status, next_attempt_at);
   CREATE INDEX alert_messages_order ON alert_messages (alert_id, grant_id, status, seq);
   CREATE TABLE alert_matcher (
     id          INTEGER PRIMARY KEY CHECK (id = 1),
     log         TEXT,
     seq         BIGINT NOT NULL,
     updated_at  TEXT NOT NULL,
     holder      TEXT,
     lease_until TIMESTAMPTZ
   );
   INSERT INTO alert_matcher (id, log, seq, updated_at) VALUES (1, NULL, 0, '');
   CREATE TABLE idempotency_keys (
     subscription_id TEXT NOT NULL,
     key             TEXT NOT NULL,
     fingerprint     TEXT NOT NULL,
     status          INTEGER NOT NULL,
     body            TEXT NOT NULL,
     created_at      TEXT NOT NULL,
     PRIMARY KEY (subscription_id, key)
   );`,
  // 5: keys with restrictions (name, restrictions as JSON text; NULL: none), a change of
  // restrictions notifies the instances as a revocation does, and the audit log (append-only:
  // an UPDATE is refused; rows are deleted with the usage log's retention).
  `ALTER TABLE api_keys ADD COLUMN name TEXT;
   ALTER TABLE api_keys ADD COLUMN restrictions TEXT;
   DROP TRIGGER api_keys_changed ON api_keys;
   CREATE TRIGGER api_keys_changed AFTER INSERT OR DELETE OR UPDATE OF revoked_at, key_hash, subscription_id,
     restrictions ON api_keys
     FOR EACH STATEMENT EXECUTE FUNCTION grants_store_notify();
   CREATE TABLE audit_log (
     id              BIGSERIAL PRIMARY KEY,
     at              TEXT NOT NULL,
     subscription_id TEXT,
     actor           TEXT NOT NULL,
     address         TEXT,
     action          TEXT NOT NULL,
     target          TEXT NOT NULL,
     details         TEXT
   );
   CREATE INDEX audit_log_subscription ON audit_log (subscription_id, at);
   CREATE INDEX audit_log_at ON audit_log (at);
   CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'the audit log is append-only';
   END $$;
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
     FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();`,
  // 6: the deliverers' window of due messages read in claim order (next_attempt_at, then seq)
  // straight from the index: with (status, next_attempt_at) alone, messages due at the same
  // instant were all read and sorted by seq before the LIMIT.
  `CREATE INDEX alert_messages_due_order ON alert_messages (status, next_attempt_at, seq);
   DROP INDEX alert_messages_due;`,
  // 7: an answer kept for an Idempotency-Key holds no signing secret in clear: the secret is kept
  // sealed apart (secret), with the alert it belongs to (alert_id), and forgotten when the alert
  // is deleted. Answers kept before, secrets in clear in their body, are dropped.
  `ALTER TABLE idempotency_keys ADD COLUMN alert_id TEXT;
   ALTER TABLE idempotency_keys ADD COLUMN secret TEXT;
   DELETE FROM idempotency_keys WHERE strpos(body, 'whsec_') > 0;
   CREATE INDEX idempotency_keys_alert ON idempotency_keys (alert_id) WHERE alert_id IS NOT NULL;`,
  // 8: a followed grant's opensAt, and the one whose grant.opened was sent.
  `ALTER TABLE alert_grants ADD COLUMN opens_at TEXT;
   ALTER TABLE alert_grants ADD COLUMN opened_opens_at TEXT;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function createPool(url: string, max = 10): Pool {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000 });
  // An idle client that loses its connection emits here; without a listener the process would exit.
  pool.on('error', () => undefined);
  // So does a client checked out of the pool (a transaction under way) when the server ends its
  // session, as a restart or a fast shutdown does: pg-pool listens only to idle clients, so without
  // this the process would exit. The statement under way fails (the caller sees it), and the pool
  // discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs `work` in one transaction on one pooled connection. */
export async function inTransaction<T>(pool: Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Applies the migrations not applied yet; returns the schema version. Safe with several instances starting at once. */
export async function migrate(pool: Pool): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT ' +
        'NULL DEFAULT now())',
    );
    const applied = Number(
      (await client.query('SELECT coalesce(max(version), 0) AS v FROM schema_migrations')).rows[0].v,
    );
    for (let version = applied + 1; version <= MIGRATIONS.length; version += 1) {
      await client.query(MIGRATIONS[version - 1]);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
    }
    return Math.max(applied, MIGRATIONS.length);
  });
}

export async function schemaVersion(pool: Queryable): Promise<number> {
  return Number((await pool.query('SELECT coalesce(max(version), 0) AS v FROM schema_migrations')).rows[0].v);
}

/** SQLSTATE classes and socket errors a retry may cure: connection, resources, shutdown, conflicts. */
const TRANSIENT_STATES = /^(08|53|57P0|40001|40P01)/;
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

/** `error` as a ServiceUnavailableError when PostgreSQL could not answer; otherwise `error` itself. */
export function pgUnavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (
    (typeof code === 'string' && (TRANSIENT_STATES.test(code) || TRANSIENT_CODES.has(code))) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
      message,
    )
  ) {
    return new ServiceUnavailableError(
      `subscriptions store (PostgreSQL) unavailable${typeof code === 'string' ? `: ${code}` : ''}`,
      1,
    );
  }
  return error;
}

/**
 * `target` with every method's failure passed through pgUnavailable: a PostgreSQL that cannot
 * answer (stopped, restarting, unreachable) makes the caller's request a 503, never a 500.
 */
export function unavailableWhenDown<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, prop) {
      const value = Reflect.get(object, prop, object) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(object, args);
        } catch (error) {
          throw pgUnavailable(error);
        }
        return result instanceof Promise
          ? result.catch((error: unknown) => Promise.reject(pgUnavailable(error)))
          : result;
      };
    },
  });
}
