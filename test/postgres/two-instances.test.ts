// Two real API processes on separate DATA_DIRs (as two machines would have) sharing only one
// PostgreSQL database (and, in the Redis case, one Redis): the monthly allowance stays exact
// (60 concurrent requests across both against its last 10 calls serve exactly 10, and the record
// holds every served call), and a key revoked or a subscription suspended through grants-admin
// on DATABASE_URL is refused by both within a second.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { runBin } from '../support/bins.js';
import { API_PREFIX as P, writeTinyCatalog } from '../support/catalog.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';
import { freePort, launch, waitFor, type Launched } from '../support/processes.js';
import { deleteKeys, REDIS_URL, uniquePrefix } from '../support/redis.js';
import { checkedExchange } from '../support/checkedFetch.js';

interface Instance {
  url: string;
  process: Launched;
  dataDir: string;
}

const MONTH = new Date().toISOString().slice(0, 7);

describeWithPostgres('two API instances sharing one PostgreSQL database', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let workDir: string;
  let seedFile: string;
  let instances: Instance[] = [];
  let sql: pg.Client;
  let redisPrefix: string | null = null;

  const admin = async (args: string[]) => {
    const run = await runBin('grants-admin', args, {
      env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: path.join(workDir, 'admin') },
    });
    if (run.code !== 0) throw new Error(`grants-admin ${args.join(' ')} exited ${run.code}: ${run.err}`);
    return run.out;
  };

  async function startInstance(name: string, extraEnv: Record<string, string> = {}): Promise<Instance> {
    const port = await freePort();
    const dataDir = path.join(workDir, name);
    const child = launch(process.execPath, ['dist/src/main.js'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        SEARCH_ENGINE: 'sqlite',
        SEED_FILE: seedFile,
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        ...extraEnv,
      },
    });
    const instance = { url: `http://127.0.0.1:${port}`, process: child, dataDir };
    instances.push(instance);
    const ready = await waitFor(
      async () => {
        try {
          return (await fetch(`${instance.url}/readyz`)).status === 200;
        } catch {
          return false;
        }
      },
      30_000,
      100,
    );
    if (!ready) throw new Error(`instance ${name} did not become ready:\n${child.stdout()}\n${child.stderr()}`);
    return instance;
  }

  // The request and its answer checked against the OpenAPI document.
  const get = (instance: Instance, key: string, pathAndQuery = `${P}/grants/g-1`) =>
    checkedExchange(instance.url + pathAndQuery, { headers: { Authorization: `Bearer ${key}` } });

  async function createSubscription(
    options: string[],
  ): Promise<{ subscriptionId: string; keyId: string; apiKey: string }> {
    return JSON.parse(
      await admin(['subscription', 'create', '--name', 'fleet', '--tier', 'STARTER', '--json', ...options]),
    );
  }

  beforeEach(async () => {
    database = await createTestDatabase();
    workDir = tempDir('pg-two-instances');
    seedFile = writeTinyCatalog(workDir);
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });

  afterEach(async () => {
    await Promise.all(
      instances.map(async (i) => {
        i.process.child.kill('SIGTERM');
        await Promise.race([i.process.exited, new Promise((r) => setTimeout(r, 5000))]);
        i.process.kill();
      }),
    );
    instances = [];
    await sql.end();
    await database.drop();
    if (redisPrefix !== null) await deleteKeys(redisPrefix);
    redisPrefix = null;
    rmSync(workDir, { recursive: true, force: true });
  });

  async function lastTenOfTheAllowance(env: Record<string, string>): Promise<void> {
    // Created before the instances start, so neither makes a demo subscription.
    const { subscriptionId, apiKey } = await createSubscription(['--monthly-limit', '1000', '--rate-limit', '100000']);
    const [a, b] = [await startInstance('a', env), await startInstance('b', env)];
    // 990 calls already counted this month: 10 are left.
    await sql.query('INSERT INTO monthly_usage (subscription_id, month, calls) VALUES ($1, $2, 990)', [
      subscriptionId,
      MONTH,
    ]);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => get(i % 2 === 0 ? a : b, apiKey)));
    const served = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(served, JSON.stringify(answers.filter((r) => r.status !== 200 && r.status !== 429))).to.have.length(10);
    expect(refused).to.have.length(50);
    for (const r of refused) expect(r.body.error.code).to.equal('QUOTA_EXCEEDED');
    // The record holds every served call (it is committed before a request is served).
    const { rows } = await sql.query('SELECT calls FROM monthly_usage WHERE subscription_id = $1 AND month = $2', [
      subscriptionId,
      MONTH,
    ]);
    expect(rows[0].calls).to.equal(1000);
    // Both instances see the same usage: the per-day table holds the 10 served calls.
    for (const instance of [a, b]) {
      const usage = await get(instance, apiKey, `${P}/subscription/usage?days=1`);
      expect(usage.status).to.equal(200);
      expect(usage.body.data.currentMonth).to.include({ calls: 1000, remaining: 0 });
    }
    expect(
      await waitFor(
        async () =>
          Number(
            (await sql.query("SELECT coalesce(sum(calls), 0) AS n FROM usage_daily WHERE endpoint = '/grants/:id'"))
              .rows[0].n,
          ) === 10,
        5000,
      ),
    ).to.equal(true);
  }

  it('60 concurrent requests across the two against the last 10 calls of an allowance serve exactly 10; the record and the statistics hold them', async () => {
    await lastTenOfTheAllowance({});
  });

  it('the same with Redis as the hot counter: exactly 10 served, and PostgreSQL records every one', async function () {
    if (REDIS_URL === undefined) {
      if (process.env.CI === 'true' || process.env.CI === '1') throw new Error('REDIS_URL is not set in CI');
      this.skip();
    }
    redisPrefix = uniquePrefix();
    await lastTenOfTheAllowance({ REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: redisPrefix, API_INSTANCES: '2' });
  });

  it('a key revoked and a subscription suspended through grants-admin are refused by both instances within a second', async () => {
    const created = await createSubscription(['--rate-limit', '1000']);
    const second = JSON.parse(await admin(['key', 'create', created.subscriptionId, '--json']));
    const [a, b] = [await startInstance('a'), await startInstance('b')];
    // Both instances know (and cache) both keys.
    for (const instance of [a, b])
      for (const key of [created.apiKey, second.apiKey]) expect((await get(instance, key)).status).to.equal(200);

    await admin(['key', 'revoke', created.keyId]);
    const revokedAt = Date.now();
    const refusedBoth = await waitFor(
      async () => (await get(a, created.apiKey)).status === 401 && (await get(b, created.apiKey)).status === 401,
      1000,
      20,
    );
    expect(refusedBoth, 'the revoked key was still served after a second').to.equal(true);
    expect(Date.now() - revokedAt).to.be.below(1000);
    for (const instance of [a, b]) expect((await get(instance, second.apiKey)).status).to.equal(200);

    await admin(['subscription', 'set-status', created.subscriptionId, 'SUSPENDED']);
    const suspendedAt = Date.now();
    const suspendedBoth = await waitFor(
      async () => (await get(a, second.apiKey)).status === 403 && (await get(b, second.apiKey)).status === 403,
      1000,
      20,
    );
    expect(suspendedBoth, 'the suspended subscription was still served after a second').to.equal(true);
    expect(Date.now() - suspendedAt).to.be.below(1000);
    const refusal = await get(a, second.apiKey);
    expect(refusal.body.error.code).to.equal('SUBSCRIPTION_INACTIVE');
  });
});
