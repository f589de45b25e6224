// Test support for suites that need a real PostgreSQL (TEST_POSTGRES_URL, by default the shared
// one at 127.0.0.1:5432, user postgres, trust). Each suite creates its own database, named with
// the branch and a random suffix, and drops it after. When PostgreSQL is unreachable the suite is
// skipped with the reason outside CI and fails in CI.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** null when PostgreSQL answers; otherwise why not. */
export async function postgresMissing(): Promise<string | null> {
  try {
    await withAdmin((c) => c.query('SELECT 1'));
    return null;
  } catch (error) {
    return `PostgreSQL at ${new URL(POSTGRES_ADMIN_URL).host} is unreachable (${(error as Error).message})`;
  }
}

/** A fresh database on the test server: grants_<label>_<random>. */
export async function createTestDatabase(label = 'pgstore'): Promise<TestDatabase> {
  const name = `grants_${label}_${randomBytes(5).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * describe() for a suite that needs PostgreSQL: a before-all hook checks it answers, then skips the
 * suite (outside CI, saying why) or fails it (in CI).
 */
export function describeWithPostgres(title: string, body: (this: Mocha.Suite) => void): void {
  describe(`${title} [postgres]`, function () {
    before(async function () {
      const missing = await postgresMissing();
      if (missing === null) return;
      if (IN_CI) throw new Error(`${missing} in CI: the postgres suites must run there (start it with scripts/services.sh start)`);
      process.stderr.write(`  skipped "${title}": ${missing} (start PostgreSQL, or set TEST_POSTGRES_URL)\n`);
      this.skip();
    });
    body.call(this);
  });
}
