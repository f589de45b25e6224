// Redis failures (src/ratelimit/redisConnection.ts): the API keeps serving under
// the insurance limits (1/API_INSTANCES of the per-second rate in memory, the monthly allowance
// from the SQLite record), says so on /readyz, and returns to the shared limits by itself.
// Each test uses its own redis-server, black hole or empty port: the shared Redis is never touched.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  burst,
  describeWithRedisServer,
  freePort,
  redisStatusOf,
  startBlackHole,
  startPrivateRedis,
  testRedis,
  uniquePrefix,
  waitFor,
  writeTinyCatalog,
  type BlackHole,
  type PrivateRedis,
} from '../support/redis.js';

const P = '/external/v1';
const BILLABLE = `${P}/grants/g-1`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('redis faults: the API keeps serving without Redis', function () {
  this.timeout(30_000);

  let workDir: string;
  let seedFile: string;
  let running: TestApi[] = [];
  let servers: PrivateRedis[] = [];
  let holes: BlackHole[] = [];

  before(function () {
    workDir = mkdtempSync(path.join(tmpdir(), 'grants-redis-faults-'));
    seedFile = writeTinyCatalog(workDir);
  });
  after(function () {
    rmSync(workDir, { recursive: true, force: true });
  });
  afterEach(async function () {
    for (const api of running) await api.stop();
    for (const server of servers) await server.dispose();
    for (const hole of holes) await hole.close();
    running = [];
    servers = [];
    holes = [];
  });

  async function startInstance(env: Record<string, string>): Promise<TestApi> {
    const api = await startTestApi({ SEED_FILE: seedFile, REDIS_KEY_PREFIX: uniquePrefix(), ...env });
    running.push(api);
    return api;
  }

  const limitsState = async (api: TestApi): Promise<string> => {
    const res = await api.request('/readyz', { key: null });
    expect(res.status, res.text).to.equal(200);
    return res.body.limits;
  };

  const usageOn = async (api: TestApi, key: string) => {
    const res = await api.request(`${P}/subscription/usage`, { key });
    expect(res.status, res.text).to.equal(200);
    return res.body.data.currentMonth as { calls: number; limit: number; remaining: number };
  };

  /** Sequential billable requests; every one must be a 200. Returns the slowest, in ms. */
  async function slowestOf(api: TestApi, n: number): Promise<number> {
    let slowest = 0;
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const res = await api.request(BILLABLE);
      slowest = Math.max(slowest, performance.now() - started);
      expect(res.status, `request ${i + 1}: ${res.text}`).to.equal(200);
    }
    return slowest;
  }

  describeWithRedisServer('with a private redis-server', function () {
    it('(a) Redis killed mid-test: served under the insurance limits (5/s each, allowance from SQLite), /readyz local-fallback; restarted → redis and 10/s again', async function () {
      const redisServer = await startPrivateRedis();
      servers.push(redisServer);
      const prefix = uniquePrefix();
      const dataDir = mkdtempSync(path.join(workDir, 'data-'));
      const env = { DATA_DIR: dataDir, REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix, API_INSTANCES: '2' };
      const a = await startInstance(env);
      const b = await startInstance(env);
      for (const api of [a, b])
        expect(await waitFor(() => redisStatusOf(api.deps) === 'ready', 3000), 'connected').to.equal(true);

      const { apiKey, subscription } = a.deps.subscriptions.create({
        name: 'outage',
        tier: 'STARTER',
        monthlyLimit: 24,
      });

      // Before the outage: one shared budget of 10/s.
      const shared = await burst([a, b], 30, apiKey, BILLABLE);
      expect(shared.counts, JSON.stringify(shared)).to.deep.equal({ ok: 10, RATE_LIMITED: 20 });

      await redisServer.stop('SIGKILL');
      const noticed = await waitFor(
        async () => (await limitsState(a)) === 'local-fallback' && (await limitsState(b)) === 'local-fallback',
        3000,
      );
      expect(noticed, '/readyz of both instances says local-fallback').to.equal(true);
      await sleep(1100);

      // During the outage each instance allows 10 / API_INSTANCES = 5 per second.
      const first = await burst([a, b], 20, apiKey, BILLABLE);
      expect(first.counts, JSON.stringify(first)).to.deep.equal({ ok: 10, RATE_LIMITED: 10 });
      expect(first.byInstance, JSON.stringify(first)).to.deep.equal([
        { ok: 5, RATE_LIMITED: 5 },
        { ok: 5, RATE_LIMITED: 5 },
      ]);
      const ready = await a.request('/readyz', { key: null });
      expect(ready.body.limits).to.equal('local-fallback');
      expect(ready.body.degradedSince).to.be.a('string');

      // 20 of 24 used: the allowance boundary holds from the SQLite count: 4 are served. Of the 10
      // that pass the rate at first, 6 are refused for the month and give their point back, so a
      // request arriving after that passes the rate too and is refused for the month as well.
      await sleep(1100);
      const second = await burst([a, b], 20, apiKey, BILLABLE);
      const { ok, QUOTA_EXCEEDED: quota = 0, RATE_LIMITED: limited = 0, ...other } = second.counts;
      expect({ ok, other }, JSON.stringify(second)).to.deep.equal({ ok: 4, other: {} });
      expect(quota, JSON.stringify(second)).to.be.at.least(6);
      expect(quota + limited).to.equal(16);
      await sleep(1100); // /subscription/* answers count against the per-second budget too
      for (const api of [a, b]) expect(await usageOn(api, apiKey)).to.include({ calls: 24, limit: 24, remaining: 0 });

      // Redis back, empty, on the same port.
      const restartedAt = Date.now();
      await redisServer.restart();
      const recovered = await waitFor(
        async () => (await limitsState(a)) === 'redis' && (await limitsState(b)) === 'redis',
        8000,
        100,
      );
      expect(recovered, `/readyz of both instances says redis again (after ${Date.now() - restartedAt} ms)`).to.equal(
        true,
      );

      // The empty Redis was raised to the record: the allowance is still used up.
      const client = testRedis(redisServer.url);
      try {
        const month = new Date().toISOString().slice(0, 7);
        expect(await client.get(`${prefix}month:${subscription.id}:${month}`), 'reconciled counter').to.equal('24');
      } finally {
        client.disconnect();
      }
      const refused = await b.request(BILLABLE, { key: apiKey });
      expect(refused.body?.error?.code, refused.text).to.equal('QUOTA_EXCEEDED');

      // And the shared per-second budget is back: 10/s over both instances.
      const fresh = a.deps.subscriptions.create({ name: 'after', tier: 'STARTER' }).apiKey;
      const back = await burst([a, b], 30, fresh, BILLABLE);
      expect(back.counts, JSON.stringify(back)).to.deep.equal({ ok: 10, RATE_LIMITED: 20 });
      expect(await limitsState(a)).to.equal('redis');
    });

    it('(b′) Redis hung after connecting (SIGSTOP), REDIS_COMMAND_TIMEOUT_MS=100: every request 200 and each well under 1 s', async function () {
      const redisServer = await startPrivateRedis();
      servers.push(redisServer);
      const api = await startInstance({ REDIS_URL: redisServer.url, REDIS_COMMAND_TIMEOUT_MS: '100' });
      expect(await waitFor(() => redisStatusOf(api.deps) === 'ready', 3000), 'connected').to.equal(true);
      expect((await api.request(BILLABLE)).status).to.equal(200);
      expect(await limitsState(api)).to.equal('redis');

      redisServer.pause();
      const slowest = await slowestOf(api, 20);
      expect(slowest, 'slowest of 20 requests (ms)').to.be.below(1000);
      expect(await limitsState(api)).to.equal('local-fallback');

      redisServer.resume();
      const recovered = await waitFor(
        async () => {
          await api.request(BILLABLE);
          return (await limitsState(api)) === 'redis';
        },
        5000,
        100,
      );
      expect(recovered, '/readyz says redis once Redis answers again').to.equal(true);
    });
  });

  it('(b) a black hole (accepts, never answers) with REDIS_COMMAND_TIMEOUT_MS=100: every request 200 and each well under 1 s', async function () {
    const hole = await startBlackHole();
    holes.push(hole);
    const api = await startInstance({ REDIS_URL: hole.url, REDIS_COMMAND_TIMEOUT_MS: '100' });

    const slowest = await slowestOf(api, 20);
    expect(slowest, 'slowest of 20 requests (ms)').to.be.below(1000);
    expect(hole.connections, 'the API did connect to the black hole').to.be.greaterThan(0);
    expect(await limitsState(api)).to.equal('local-fallback');
  });

  it('(c) no Redis listening at start-up: the API starts, serves, enforces the allowance from SQLite and says local-fallback', async function () {
    const port = await freePort();
    const api = await startInstance({ REDIS_URL: `redis://127.0.0.1:${port}`, API_INSTANCES: '2' });

    expect((await api.request('/healthz', { key: null })).status).to.equal(200);
    const served = await slowestOf(api, 3);
    expect(served).to.be.below(1000);

    const { apiKey } = api.deps.subscriptions.create({ name: 'no-redis', tier: 'STARTER', monthlyLimit: 3 });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api.request(BILLABLE, { key: apiKey });
      outcomes.push(res.status === 200 ? 'ok' : String(res.body?.error?.code ?? res.status));
    }
    expect(outcomes).to.deep.equal(['ok', 'ok', 'ok', 'QUOTA_EXCEEDED']);
    expect(await limitsState(api)).to.equal('local-fallback');
  });
});
