// One-shot copy of an embedded deployment's subscriptions database (DATA_DIR/subscriptions.sqlite)
// into an empty PostgreSQL store: subscriptions, API keys (their hashes: no key is ever in clear),
// the monthly records, the demo subscription's marker, the usage log and the per-day counts.
// It refuses a target that already holds a subscription or a monthly record (so running it twice
// copies nothing twice), reads the SQLite file in one read transaction (a consistent snapshot even
// while an instance still writes to it) and writes everything in one PostgreSQL transaction: the
// target ends up with all of it or none of it.
import { existsSync } from 'node:fs';
import { openSubscriptionsDb, subscriptionsPath, type Db } from './sqlite/database.js';
import { createPool, migrate } from './postgres/database.js';
import { ensurePartitions } from './postgres/usageStore.js';

/** What the copy needs of a PostgreSQL connection: one client, so that BEGIN … COMMIT holds. */
interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface CopyCounts {
  subscriptions: number;
  apiKeys: number;
  monthlyRecords: number;
  usageRows: number;
  dailyRows: number;
  demo: number;
  /** Entries of the audit log (changes to subscriptions and keys). */
  auditRows: number;
}

export class TargetNotEmptyError extends Error {
  constructor(readonly found: { subscriptions: number; monthlyRecords: number }) {
    super(
      `the PostgreSQL store already holds ${found.subscriptions} subscription(s) and ` +
        `${found.monthlyRecords} monthly record(s); ` +
        'migrate-from-sqlite copies only into an empty store (nothing was copied)',
    );
    this.name = 'TargetNotEmptyError';
  }
}

interface CopyOptions {
  /** Creates the usage log's monthly partitions for these months (YYYY-MM) before the copy. */
  ensureUsageMonths(months: string[]): Promise<void>;
  /** Usage rows per INSERT statement. */
  batchRows?: number;
  /** Told after each batch of usage rows. */
  onProgress?(copiedUsageRows: number, totalUsageRows: number): void;
}

const USAGE_COLUMNS = [
  'at',
  'day',
  'subscription_id',
  'key_id',
  'key_prefix',
  'endpoint',
  'billable',
  'status',
  'latency_ms',
  'request_id',
] as const;

/** `INSERT INTO table (cols) VALUES ($1, …), (…)` for `rows` rows of `columns.length` values. */
function multiRowInsert(table: string, columns: readonly string[], rows: number, suffix = ''): string {
  const tuples: string[] = [];
  for (let r = 0; r < rows; r += 1)
    tuples.push(`(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}${suffix}`;
}

/** Inserts `rows` (arrays of values in `columns` order) in statements of at most `per` rows. */
async function insertAll(
  client: SqlClient,
  table: string,
  columns: readonly string[],
  rows: unknown[][],
  per: number,
  onBatch?: (done: number) => void,
): Promise<void> {
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    await client.query(multiRowInsert(table, columns, chunk.length), chunk.flat());
    onBatch?.(i + chunk.length);
  }
}

const asBool = (value: unknown): boolean => value === 1 || value === true;

/**
 * Copies everything from `sqlite` through `client` (which must be a single connection, not a pool).
 * Throws TargetNotEmptyError, before writing anything, when the target holds data already.
 */
async function copySqliteToPostgres(sqlite: Db, client: SqlClient, options: CopyOptions): Promise<CopyCounts> {
  const per = options.batchRows ?? 1000;
  sqlite.exec('BEGIN'); // one snapshot of the file for the whole copy
  try {
    const usageMonths = sqlite
      .prepare('SELECT DISTINCT substr(day, 1, 7) AS month FROM usage_log ORDER BY month')
      .pluck()
      .all() as string[];
    await options.ensureUsageMonths(usageMonths);

    await client.query('BEGIN');
    try {
      // Lock out a concurrent migrate-from-sqlite (or a first start creating the demo) until we commit.
      await client.query('LOCK TABLE subscriptions, api_keys, monthly_usage IN SHARE ROW EXCLUSIVE MODE');
      const found = (
        await client.query(
          'SELECT (SELECT count(*) FROM subscriptions) AS subscriptions, (SELECT count(*) FROM monthly_usage) AS ' +
            'monthly',
        )
      ).rows[0];
      const existing = { subscriptions: Number(found.subscriptions), monthlyRecords: Number(found.monthly) };
      if (existing.subscriptions > 0 || existing.monthlyRecords > 0) throw new TargetNotEmptyError(existing);

      const subscriptions = sqlite.prepare('SELECT * FROM subscriptions ORDER BY created_at, id').all() as Record<
        string,
        unknown
      >[];
      await insertAll(
        client,
        'subscriptions',
        [
          'id',
          'name',
          'tier',
          'status',
          'monthly_limit',
          'rate_limit',
          'feature_grants_read',
          'feature_grants_search',
          'feature_subscription_read',
          'feature_grants_export',
          'created_at',
        ],
        subscriptions.map((s) => [
          s.id,
          s.name,
          s.tier,
          s.status,
          s.monthly_limit,
          s.rate_limit,
          asBool(s.feature_grants_read),
          asBool(s.feature_grants_search),
          asBool(s.feature_subscription_read),
          s.feature_grants_export === null || s.feature_grants_export === undefined
            ? null
            : asBool(s.feature_grants_export),
          s.created_at,
        ]),
        per,
      );
      const keys = sqlite.prepare('SELECT * FROM api_keys ORDER BY created_at, id').all() as Record<string, unknown>[];
      await insertAll(
        client,
        'api_keys',
        [
          'id',
          'subscription_id',
          'key_hash',
          'prefix',
          'created_at',
          'last_used_at',
          'revoked_at',
          'name',
          'restrictions',
        ],
        keys.map((k) => [
          k.id,
          k.subscription_id,
          k.key_hash,
          k.prefix,
          k.created_at,
          k.last_used_at,
          k.revoked_at,
          k.name ?? null,
          k.restrictions ?? null,
        ]),
        per,
      );
      const monthly = sqlite
        .prepare('SELECT subscription_id, month, calls FROM monthly_usage ORDER BY subscription_id, month')
        .all() as Record<string, unknown>[];
      await insertAll(
        client,
        'monthly_usage',
        ['subscription_id', 'month', 'calls'],
        monthly.map((m) => [m.subscription_id, m.month, m.calls]),
        per,
      );
      const demo = sqlite
        .prepare('SELECT subscription_id, key_id, key_shown_at FROM demo_subscription')
        .all() as Record<string, unknown>[];
      await insertAll(
        client,
        'demo_subscription',
        ['subscription_id', 'key_id', 'key_shown_at'],
        demo.map((d) => [d.subscription_id, d.key_id, d.key_shown_at]),
        per,
      );
      const daily = sqlite
        .prepare(
          'SELECT subscription_id, day, endpoint, calls FROM usage_daily WHERE calls > 0 ORDER BY ' +
            'subscription_id, day, endpoint',
        )
        .all() as Record<string, unknown>[];
      await insertAll(
        client,
        'usage_daily',
        ['subscription_id', 'day', 'endpoint', 'calls'],
        daily.map((d) => [d.subscription_id, d.day, d.endpoint, d.calls]),
        per,
      );

      const audit = sqlite
        .prepare('SELECT at, subscription_id, actor, address, action, target, details FROM audit_log ORDER BY id')
        .all() as Record<string, unknown>[];
      await insertAll(
        client,
        'audit_log',
        ['at', 'subscription_id', 'actor', 'address', 'action', 'target', 'details'],
        audit.map((a) => [a.at, a.subscription_id, a.actor, a.address, a.action, a.target, a.details]),
        per,
      );

      // The usage log can be large: stream it from SQLite in id order, a batch at a time.
      const totalUsage = sqlite.prepare('SELECT count(*) FROM usage_log').pluck().get() as number;
      let copied = 0;
      let batch: unknown[][] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await client.query(multiRowInsert('usage_log', USAGE_COLUMNS, batch.length), batch.flat());
        copied += batch.length;
        batch = [];
        options.onProgress?.(copied, totalUsage);
      };
      for (const u of sqlite.prepare('SELECT * FROM usage_log ORDER BY id').iterate() as IterableIterator<
        Record<string, unknown>
      >) {
        batch.push([
          u.at,
          u.day,
          u.subscription_id,
          u.key_id,
          u.key_prefix,
          u.endpoint,
          asBool(u.billable),
          u.status,
          u.latency_ms,
          u.request_id,
        ]);
        if (batch.length >= per) await flush();
      }
      await flush();
      await client.query('COMMIT');
      return {
        subscriptions: subscriptions.length,
        apiKeys: keys.length,
        monthlyRecords: monthly.length,
        usageRows: copied,
        dailyRows: daily.length,
        demo: demo.length,
        auditRows: audit.length,
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    sqlite.exec('COMMIT');
  }
}

export class NoSqliteDatabaseError extends Error {
  constructor(readonly file: string) {
    super(`no subscriptions database at ${file}`);
    this.name = 'NoSqliteDatabaseError';
  }
}

/**
 * grants-admin migrate-from-sqlite: brings the SQLite file of `dataDir` to the latest schema, runs
 * the PostgreSQL migrations, and copies everything over (see copySqliteToPostgres).
 */
export async function migrateSqliteToPostgres(
  dataDir: string,
  databaseUrl: string,
  onProgress?: CopyOptions['onProgress'],
): Promise<CopyCounts> {
  const file = subscriptionsPath(dataDir);
  if (!existsSync(file)) throw new NoSqliteDatabaseError(file);
  const sqlite = openSubscriptionsDb(file);
  const pool = createPool(databaseUrl, 2);
  try {
    await migrate(pool);
    const client = await pool.connect();
    try {
      return await copySqliteToPostgres(sqlite, client, {
        ensureUsageMonths: (months) => ensurePartitions(pool, months),
        onProgress,
      });
    } finally {
      client.release();
    }
  } finally {
    sqlite.close();
    await pool.end();
  }
}
