// PostgreSQL failures (docs/operations.md, "When a shared service fails"), against a private throwaway server
// that the tests stop, freeze (SIGSTOP) and restart; the shared server on 5432 is never touched.
// The API runs as a real process (node dist/src/main.js) with a short grace (STORE_GRACE_SECONDS=4)
// and store timeout (STORE_TIMEOUT_MS=300):
// - known callers are served during the grace, counted in Redis; unknown keys get 503 with
//   Retry-After; past the grace everyone gets 503; /readyz says which;
// - without Redis, billable calls are refused with 503 rather than served uncounted;
// - after recovery (no restart) every served call is in the monthly record and has its usage row.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeTinyCatalog } from '../support/catalog.js';
import { createSubscription, startInstance, type Answer, type FleetInstance } from '../support/fleet.js';
import { describeWithPostgresServer, psql, startPrivatePostgres, type PrivatePostgres } from '../support/postgres.js';
import { REDIS_URL, deleteKeys, uniquePrefix, waitFor } from '../support/redis.js';

const P = '/external/v1';
const BILLABLE = `${P}/grants/g-1`;
const GRACE_SECONDS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const month = () => new Date().toISOString().slice(0, 7);

describeWithPostgresServer('postgres faults: the API when its store is stopped, hung or restarted', function () {
  this.timeout(120_000);

  let workDir: string;
  let pg: PrivatePostgres;
  let seedFile: string;
  let running: FleetInstance[] = [];
  const prefixes: string[] = [];
  let databaseCount = 0;

  before(async function () {
    workDir = mkdtempSync(path.join(tmpdir(), 'grants-pg-faults-'));
    seedFile = writeTinyCatalog(workDir);
    pg = await startPrivatePostgres();
  });
  after(async function () {
    for (const api of running) api.process.kill();
    await pg?.dispose();
    for (const prefix of prefixes) await deleteKeys(prefix).catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  });
  afterEach(async function () {
    for (const api of running) api.process.kill();
    await Promise.allSettled(running.map((api) => api.process.exited));
    running = [];
    pg.resume();
    if (pg.process === null) await pg.start();
  });

  /** A fresh database on the private server and the environment of an instance using it. */
  async function environment(withRedis: boolean): Promise<Record<string, string>> {
    databaseCount += 1;
    const url = await pg.createDatabase(`faults_${databaseCount}`);
    const env: Record<string, string> = {
      DATABASE_URL: url,
      SEED_FILE: seedFile,
      STORE_GRACE_SECONDS: String(GRACE_SECONDS),
      STORE_TIMEOUT_MS: '300',
      SHUTDOWN_TIMEOUT_MS: '2000',
    };
    if (withRedis) {
      if (!REDIS_URL)
        throw new Error('REDIS_URL is needed for the tests with Redis (set it, or run bash scripts/services.sh start)');
      const prefix = uniquePrefix();
      prefixes.push(prefix);
      Object.assign(env, { REDIS_URL, REDIS_KEY_PREFIX: prefix });
    }
    return env;
  }

  /** The tests that count through Redis skip without REDIS_URL outside CI, and fail in CI. */
  function needsRedis(test: Mocha.Context): void {
    if (REDIS_URL) return;
    if (process.env.CI === 'true' || process.env.CI === '1') throw new Error('REDIS_URL must be set in CI');
    process.stderr.write('  skipped: REDIS_URL is not set\n');
    test.skip();
  }

  async function start(env: Record<string, string>): Promise<FleetInstance> {
    const api = await startInstance(`api-${running.length + 1}`, { env, workDir });
    running.push(api);
    return api;
  }

  type Created = Awaited<ReturnType<typeof createSubscription>>;

  /**
   * An instance counting through Redis, a caller it has served once before the fault (known), and one it has never
   * seen.
   */
  async function knownAndStranger(): Promise<{
    env: Record<string, string>;
    api: FleetInstance;
    known: Created;
    stranger: Created;
    first: Answer;
  }> {
    const env = await environment(true);
    const api = await start(env);
    const known = await createSubscription(env, workDir, ['--name', 'known', '--tier', 'PROFESSIONAL']);
    const stranger = await createSubscription(env, workDir, ['--name', 'stranger', '--tier', 'PROFESSIONAL']);
    return { env, api, known, stranger, first: await api.request(BILLABLE, known.apiKey) };
  }

  const readyz = async (api: FleetInstance) => {
    const res = await fetch(`${api.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  const recorded = async (env: Record<string, string>, subscriptionId: string): Promise<number> =>
    Number(
      (await psql(
        env.DATABASE_URL,
        `select coalesce(sum(calls), 0) from monthly_usage where subscription_id = '${subscriptionId}' and ` +
          `month = '${month()}'`,
      )) || 0,
    );

  const loggedIds = async (env: Record<string, string>, subscriptionId: string): Promise<Set<string>> =>
    new Set(
      (await psql(env.DATABASE_URL, `select request_id from usage_log where subscription_id = '${subscriptionId}'`))
        .split('\n')
        .filter((l) => l !== ''),
    );

  /** Asserts every served call is in the monthly record and has its usage row, once the store answers. */
  async function expectNothingLost(
    env: Record<string, string>,
    subscriptionId: string,
    served: Answer[],
  ): Promise<void> {
    const ids = served.map((a) => a.headers.get('x-request-id') as string);
    const caughtUp = await waitFor(async () => (await recorded(env, subscriptionId)) === ids.length, 10_000, 200);
    expect(caughtUp, `monthly record ${await recorded(env, subscriptionId)} for ${ids.length} served calls`).to.equal(
      true,
    );
    await waitFor(
      async () => {
        const logged = await loggedIds(env, subscriptionId);
        return ids.every((id) => logged.has(id));
      },
      10_000,
      200,
    );
    const logged = await loggedIds(env, subscriptionId);
    expect(
      ids.filter((id) => !logged.has(id)),
      'served calls without a usage row',
    ).to.deep.equal([]);
  }

  it('stopped: known callers served for the grace (counted in Redis), unknown keys 503 with Retry-After, then everyone 503; recovery without a restart loses nothing', async function () {
    needsRedis(this);
    const { env, api, known, stranger, first } = await knownAndStranger();
    const served: Answer[] = [];
    expect(first.status).to.equal(200);
    served.push(first);

    await pg.stop('SIGINT');
    const startedAt = Date.now();
    const during = await api.request(BILLABLE, known.apiKey);
    expect(during.status, JSON.stringify(during.body)).to.equal(200);
    served.push(during);
    const unknown = await api.request(BILLABLE, stranger.apiKey);
    expect(unknown.status).to.equal(503);
    expect(unknown.body.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(Number(unknown.headers.get('retry-after'))).to.be.greaterThan(0);
    const ready = await readyz(api);
    expect(ready.status).to.equal(200);
    expect(ready.body.store).to.include({ state: 'grace' });
    for (let i = 0; i < 5; i += 1) {
      const again = await api.request(BILLABLE, known.apiKey);
      expect(again.status).to.equal(200);
      served.push(again);
    }

    await sleep(Math.max(0, GRACE_SECONDS * 1000 - (Date.now() - startedAt)) + 300);
    const late = await api.request(BILLABLE, known.apiKey);
    expect(late.status).to.equal(503);
    expect(late.body.error.code).to.equal('SERVICE_UNAVAILABLE');
    const notReady = await readyz(api);
    expect(notReady.status).to.equal(503);
    expect(notReady.body.store).to.include({ state: 'unavailable' });

    await pg.start();
    expect(
      await waitFor(async () => (await readyz(api)).body.store?.state === 'ok', 10_000, 100),
      'the instance notices the store again',
    ).to.equal(true);
    const after = await api.request(BILLABLE, stranger.apiKey);
    expect(after.status).to.equal(200);
    await expectNothingLost(env, known.subscriptionId, served);
  });

  it("stopped: a known caller's /keys and /alerts calls during the grace are 503 SERVICE_UNAVAILABLE, never a 500", async function () {
    needsRedis(this);
    const env = { ...(await environment(true)), SECRETS_KEY: randomBytes(32).toString('base64') };
    const api = await start(env);
    const known = await createSubscription(env, workDir, ['--name', 'known', '--tier', 'PROFESSIONAL']);
    expect((await api.request(BILLABLE, known.apiKey)).status).to.equal(200);
    await pg.stop('SIGINT');
    const json = (method: string, body: unknown): RequestInit => ({
      method,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const calls: [string, RequestInit][] = [
      [`${P}/keys`, {}],
      [`${P}/keys`, json('POST', { name: 'during the outage' })],
      [`${P}/keys/${known.keyId}`, { method: 'DELETE' }],
      [`${P}/alerts`, {}],
      [`${P}/alerts`, json('POST', { name: 'during the outage', query: {}, url: 'https://93.184.215.14/hooks' })],
    ];
    for (const [where, init] of calls) {
      const answer = await api.request(where, known.apiKey, init);
      expect(answer.status, `${init.method ?? 'GET'} ${where}: ${JSON.stringify(answer.body)}`).to.equal(503);
      expect(answer.body.error.code).to.equal('SERVICE_UNAVAILABLE');
    }
  });

  it('hung (SIGSTOP): answers come within the store timeout, not never; known callers served, others 503; after SIGCONT nothing is lost', async function () {
    needsRedis(this);
    const { env, api, known, stranger, first } = await knownAndStranger();
    const served: Answer[] = [first];
    expect(served[0].status).to.equal(200);

    pg.pause();
    const answers = await Promise.all([
      api.request(BILLABLE, known.apiKey),
      api.request(BILLABLE, stranger.apiKey),
      api.request(BILLABLE, known.apiKey),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 503, 200]);
    served.push(answers[0], answers[2]);
    expect((await readyz(api)).body.store).to.include({ state: 'grace' });

    pg.resume();
    expect(await waitFor(async () => (await readyz(api)).body.store?.state === 'ok', 10_000, 100)).to.equal(true);
    await expectNothingLost(env, known.subscriptionId, served);
  });

  it('without Redis: billable calls are refused with 503 during the outage rather than served uncounted', async function () {
    const env = await environment(false);
    const api = await start(env);
    const known = await createSubscription(env, workDir, ['--name', 'known', '--tier', 'PROFESSIONAL']);
    expect((await api.request(BILLABLE, known.apiKey)).status).to.equal(200);
    await pg.stop('SIGINT');
    const refused = await api.request(BILLABLE, known.apiKey);
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    await pg.start();
    expect(await waitFor(async () => (await api.request(BILLABLE, known.apiKey)).status === 200, 10_000, 200)).to.equal(
      true,
    );
    expect(await recorded(env, known.subscriptionId)).to.equal(2);
  });

  it('restarted under load (killed and started again): every served call is recorded and logged', async function () {
    needsRedis(this);
    const env = await environment(true);
    const api = await start(env);
    const known = await createSubscription(env, workDir, [
      '--name',
      'load',
      '--tier',
      'ENTERPRISE',
      '--rate-limit',
      '100000',
    ]);
    const served: Answer[] = [await api.request(BILLABLE, known.apiKey)];
    expect(served[0].status).to.equal(200);
    let other = 0;
    let stop = false;
    const client = async () => {
      while (!stop) {
        const answer = await api.request(BILLABLE, known.apiKey);
        if (answer.status === 200) served.push(answer);
        else other += 1;
      }
    };
    const clients = [client(), client(), client(), client()];
    await sleep(500);
    await pg.stop('SIGKILL');
    await sleep(700);
    await pg.start();
    await sleep(700);
    stop = true;
    await Promise.all(clients);
    expect(served.length, `served ${served.length}, other ${other}`).to.be.greaterThan(20);
    await expectNothingLost(env, known.subscriptionId, served);
  });
});
