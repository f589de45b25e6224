// The subscriptions database (SQLite, separate from the catalog): opening and versioned migrations.
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

export const subscriptionsPath = (dataDir: string): string => path.join(dataDir, 'subscriptions.sqlite');

/** Migrations in order; each runs once, in its own transaction. Never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `CREATE TABLE subscriptions (
     id                TEXT PRIMARY KEY,
     name              TEXT NOT NULL,
     tier              TEXT NOT NULL CHECK (tier IN ('STARTER', 'PROFESSIONAL', 'ENTERPRISE')),
     status            TEXT NOT NULL CHECK (status IN ('ACTIVE', 'SUSPENDED', 'CANCELLED')),
     monthly_limit     INTEGER,
     rate_limit        INTEGER,
     feature_grants_read       INTEGER NOT NULL DEFAULT 1,
     feature_grants_search     INTEGER NOT NULL DEFAULT 1,
     feature_subscription_read INTEGER NOT NULL DEFAULT 1,
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
   CREATE TABLE usage_log (
     id              INTEGER PRIMARY KEY,
     at              TEXT NOT NULL,
     day             TEXT NOT NULL,
     subscription_id TEXT NOT NULL,
     key_id          TEXT NOT NULL,
     key_prefix      TEXT NOT NULL,
     endpoint        TEXT,
     billable        INTEGER NOT NULL,
     status          INTEGER NOT NULL,
     latency_ms      REAL NOT NULL,
     request_id      TEXT NOT NULL
   );
   CREATE INDEX usage_log_subscription_day ON usage_log (subscription_id, day);
   CREATE TABLE monthly_usage (
     subscription_id TEXT NOT NULL,
     month           TEXT NOT NULL,
     calls           INTEGER NOT NULL,
     PRIMARY KEY (subscription_id, month)
   ) WITHOUT ROWID;`,
  // 2: the usage statistics' counts per subscription, day and endpoint, kept by triggers on
  // usage_log (whatever writes it), so GET /subscription/usage reads a few rows, not the log.
  // "Counted" is the statistics' rule: billable or /subscription/*, any status but 401 and 429.
  `CREATE TABLE usage_daily (
     subscription_id TEXT NOT NULL,
     day             TEXT NOT NULL,
     endpoint        TEXT NOT NULL,
     calls           INTEGER NOT NULL,
     PRIMARY KEY (subscription_id, day, endpoint)
   ) WITHOUT ROWID;
   INSERT INTO usage_daily (subscription_id, day, endpoint, calls)
     SELECT subscription_id, day, endpoint, count(*) FROM usage_log
     WHERE status NOT IN (401, 429) AND endpoint IS NOT NULL AND (billable = 1 OR endpoint LIKE '/subscription/%')
     GROUP BY subscription_id, day, endpoint;
   CREATE TRIGGER usage_log_counted_insert AFTER INSERT ON usage_log
     WHEN NEW.status NOT IN (401, 429) AND NEW.endpoint IS NOT NULL AND (NEW.billable = 1 OR NEW.endpoint LIKE
       '/subscription/%')
   BEGIN
     INSERT INTO usage_daily (subscription_id, day, endpoint, calls) VALUES (NEW.subscription_id, NEW.day,
       NEW.endpoint, 1)
       ON CONFLICT (subscription_id, day, endpoint) DO UPDATE SET calls = calls + 1;
   END;
   CREATE TRIGGER usage_log_counted_delete AFTER DELETE ON usage_log
     WHEN OLD.status NOT IN (401, 429) AND OLD.endpoint IS NOT NULL AND (OLD.billable = 1 OR OLD.endpoint LIKE
       '/subscription/%')
   BEGIN
     UPDATE usage_daily SET calls = calls - 1 WHERE subscription_id = OLD.subscription_id AND day = OLD.day AND
       endpoint = OLD.endpoint;
   END;
   CREATE TRIGGER usage_log_counted_update AFTER UPDATE ON usage_log
   BEGIN
     UPDATE usage_daily SET calls = calls - 1
       WHERE subscription_id = OLD.subscription_id AND day = OLD.day AND endpoint = OLD.endpoint
         AND OLD.status NOT IN (401, 429) AND OLD.endpoint IS NOT NULL AND (OLD.billable = 1 OR OLD.endpoint LIKE
           '/subscription/%');
     INSERT INTO usage_daily (subscription_id, day, endpoint, calls)
       SELECT NEW.subscription_id, NEW.day, NEW.endpoint, 1
       WHERE NEW.status NOT IN (401, 429) AND NEW.endpoint IS NOT NULL AND (NEW.billable = 1 OR NEW.endpoint LIKE
         '/subscription/%')
       ON CONFLICT (subscription_id, day, endpoint) DO UPDATE SET calls = calls + 1;
   END;`,
  // 3: usage_log is append-only and read by nothing in the API since usage_daily (2) holds the
  // statistics; its (subscription_id, day) index cost a third of every row's write.
  `DROP INDEX IF EXISTS usage_log_subscription_day;`,
  // 4: the demo subscription of a first start and whether its key was shown (src/subscriptions/demo.ts).
  // A database from before, holding only a "Demo" subscription with one key, may come from a first
  // start that died before showing it: that key counts as not shown.
  `CREATE TABLE demo_subscription (
     subscription_id TEXT PRIMARY KEY REFERENCES subscriptions (id),
     key_id          TEXT NOT NULL REFERENCES api_keys (id),
     key_shown_at    TEXT
   );
   INSERT INTO demo_subscription (subscription_id, key_id)
     SELECT s.id, k.id FROM subscriptions s JOIN api_keys k ON k.subscription_id = s.id
     WHERE s.name = 'Demo' AND s.tier = 'PROFESSIONAL'
       AND (SELECT count(*) FROM subscriptions) = 1 AND (SELECT count(*) FROM api_keys) = 1;`,
  // 5: retention (src/subscriptions/sqlite/usageRetention.ts). Log rows of days before usage_retention's
  // day are deleted without touching usage_daily, which keeps the per-day counts; any other
  // deletion still decrements them.
  `CREATE TABLE usage_retention (
     id         INTEGER PRIMARY KEY CHECK (id = 1),
     before_day TEXT NOT NULL
   );
   INSERT INTO usage_retention (id, before_day) VALUES (1, '');
   DROP TRIGGER usage_log_counted_delete;
   CREATE TRIGGER usage_log_counted_delete AFTER DELETE ON usage_log
     WHEN OLD.status NOT IN (401, 429) AND OLD.endpoint IS NOT NULL AND (OLD.billable = 1 OR OLD.endpoint LIKE
       '/subscription/%')
       AND OLD.day >= (SELECT before_day FROM usage_retention WHERE id = 1)
   BEGIN
     UPDATE usage_daily SET calls = calls - 1 WHERE subscription_id = OLD.subscription_id AND day = OLD.day AND
       endpoint = OLD.endpoint;
   END;`,
  // 6: the grants.export feature (GET /grants/export). NULL: the tier's default (tiers.ts,
  // ENTERPRISE only); grants-admin subscription set-feature writes 0 or 1.
  `ALTER TABLE subscriptions ADD COLUMN feature_grants_export INTEGER;`,
  // 7: alerts (src/alerts/): the saved searches, what each told its partner, the outbox of webhook
  // messages (written in the transaction that moves the matcher's position), the matcher's place
  // in the change log, and the answers kept for Idempotency-Key. alert_limit: an operator's
  // override of the tier's number of alerts; feature_alerts_manage NULL: on (the default).
  `ALTER TABLE subscriptions ADD COLUMN feature_alerts_manage INTEGER;
   ALTER TABLE subscriptions ADD COLUMN alert_limit INTEGER;
   CREATE TABLE alerts (
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
     from_seq            INTEGER NOT NULL,
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
   ) WITHOUT ROWID;
   CREATE INDEX alert_grants_grant ON alert_grants (grant_id);
   CREATE TABLE alert_messages (
     seq              INTEGER PRIMARY KEY,
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
     id         INTEGER PRIMARY KEY CHECK (id = 1),
     log        TEXT,
     seq        INTEGER NOT NULL,
     updated_at TEXT NOT NULL
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
   ) WITHOUT ROWID;`,
  // 8: keys with restrictions (src/subscriptions/keyRestrictions.ts): a name and the restrictions
  // as JSON (NULL: none, every key made before), and the audit log of every change to a
  // subscription or a key (src/subscriptions/audit.ts): rows are only added, and deleted with
  // the usage log's retention; an UPDATE is refused.
  `ALTER TABLE api_keys ADD COLUMN name TEXT;
   ALTER TABLE api_keys ADD COLUMN restrictions TEXT;
   CREATE TABLE audit_log (
     id              INTEGER PRIMARY KEY,
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
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
   BEGIN
     SELECT RAISE(ABORT, 'the audit log is append-only');
   END;`,
  // 9: an answer kept for an Idempotency-Key holds no signing secret in clear: the secret is kept
  // sealed apart (secret), with the alert it belongs to (alert_id), and forgotten when the alert
  // is deleted. Answers kept before, secrets in clear in their body, are dropped.
  `ALTER TABLE idempotency_keys ADD COLUMN alert_id TEXT;
   ALTER TABLE idempotency_keys ADD COLUMN secret TEXT;
   DELETE FROM idempotency_keys WHERE instr(body, 'whsec_') > 0;
   CREATE INDEX idempotency_keys_alert ON idempotency_keys (alert_id) WHERE alert_id IS NOT NULL;`,
  // 10: a followed grant's opensAt, and the one whose grant.opened was sent.
  `ALTER TABLE alert_grants ADD COLUMN opens_at TEXT;
   ALTER TABLE alert_grants ADD COLUMN opened_opens_at TEXT;`,
];

export function openSubscriptionsDb(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = db.prepare('SELECT coalesce(max(version), 0) FROM schema_migrations').pluck();
  db.transaction(() => {
    for (let version = (applied.get() as number) + 1; version <= MIGRATIONS.length; version += 1) {
      db.exec(MIGRATIONS[version - 1]);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
        version,
        new Date().toISOString(),
      );
    }
  }).immediate();
  return db;
}
