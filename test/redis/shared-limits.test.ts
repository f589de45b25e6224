// Limits shared by two API instances through the Redis named by REDIS_URL: the
// per-second budget and the monthly allowance are one budget for every instance, the month rolls
// over on the UTC calendar, and a Redis that lost its keys hands out no fresh allowance.
// Each test runs two instances over one DATA_DIR (one subscription database) and a key prefix of
// its own, deleted afterwards.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  REDIS_URL,
  burst,
  deleteKeys,
  describeWithRedis,
  keysWithPrefix,
  redisStatusOf,
  testRedis,
  uniquePrefix,
  waitFor,
  writeTinyCatalog,
} from '../support/redis.js';

const P = '/external/v1';
const BILLABLE = `${P}/grants/g-1`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithRedis('redis: limits shared by two API instances', function () {
  this.timeout(20_000);

  let workDir: string;
  let seedFile: string;
  let redis: Redis;
  let prefix: string;
  let running: TestApi[] = [];

  before(function () {
    workDir = mkdtempSync(path.join(tmpdir(), 'grants-redis-shared-'));
    seedFile = writeTinyCatalog(workDir);
    redis = testRedis();
  });
  after(async function () {
    redis?.disconnect();
    rmSync(workDir, { recursive: true, force: true });
  });

  beforeEach(function () {
    prefix = uniquePrefix();
  });
  afterEach(async function () {
    for (const api of running) await api.stop();
    running = [];
    await deleteKeys(prefix);
  });

  const envFor = (dataDir: string): Record<string, string> => ({
    SEED_FILE: seedFile,
    DATA_DIR: dataDir,
    REDIS_URL: REDIS_URL as string,
    REDIS_KEY_PREFIX: prefix,
    API_INSTANCES: '2',
  });

  /** Starts one instance and waits until its Redis connection is ready. */
  async function startInstance(dataDir: string, clock?: () => Date): Promise<TestApi> {
    const api = await startTestApi(envFor(dataDir), { clock });
    running.push(api);
    const ready = await waitFor(() => redisStatusOf(api.deps) === 'ready', 3000);
    expect(ready, `instance ${api.url} connected to ${REDIS_URL} (status ${redisStatusOf(api.deps)})`).to.equal(true);
    return api;
  }

  /** Two instances over one fresh subscription database. */
  async function startPair(clock?: () => Date): Promise<[TestApi, TestApi]> {
    const dataDir = mkdtempSync(path.join(workDir, 'data-'));
    return [await startInstance(dataDir, clock), await startInstance(dataDir, clock)];
  }

  const usageOn = async (api: TestApi, key: string) => {
    const res = await api.request(`${P}/subscription/usage`, { key });
    expect(res.status, res.text).to.equal(200);
    return res.body.data.currentMonth as { calls: number; limit: number; remaining: number; resetDate: string };
  };

  const monthKeyName = (subscriptionId: string, month: string) => `${prefix}month:${subscriptionId}:${month}`;

  it('(a) per second: 30 concurrent requests over both instances → exactly 10 served, 20 RATE_LIMITED; served again after the window', async function () {
    const [a, b] = await startPair();
    const { apiKey } = a.deps.subscriptions.create({ name: 'starter', tier: 'STARTER' });

    const first = await burst([a, b], 30, apiKey, BILLABLE);
    expect(first.counts, JSON.stringify(first)).to.deep.equal({ ok: 10, RATE_LIMITED: 20 });
    // Both instances took part: each answered 15 of the requests.
    expect(first.byInstance.map((c) => (c.ok ?? 0) + (c.RATE_LIMITED ?? 0))).to.deep.equal([15, 15]);

    // A refusal says when to retry and shows the shared budget used up.
    const refused = await a.request(BILLABLE, { key: apiKey });
    if (refused.status === 429) {
      expect(refused.body.error.code).to.equal('RATE_LIMITED');
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('10');
      expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
    }

    await sleep(1100);
    const again = await burst([a, b], 10, apiKey, BILLABLE);
    expect(again.counts, JSON.stringify(again)).to.deep.equal({ ok: 10 });
  });

  it('(b) allowance: override 40, 30 used, then 60 concurrent over both instances → exactly 10 served, 50 QUOTA_EXCEEDED; usage 40/0 on each', async function () {
    const [a, b] = await startPair();
    const { apiKey, subscription } = a.deps.subscriptions.create({
      name: 'allowance',
      tier: 'STARTER',
      monthlyLimit: 40,
      rateLimit: 1000,
    });

    const warmUp = await burst([a, b], 30, apiKey, BILLABLE);
    expect(warmUp.counts, JSON.stringify(warmUp)).to.deep.equal({ ok: 30 });
    for (const api of [a, b]) expect(await usageOn(api, apiKey)).to.include({ calls: 30, limit: 40, remaining: 10 });

    const rush = await burst([a, b], 60, apiKey, BILLABLE);
    expect(rush.counts, JSON.stringify(rush)).to.deep.equal({ ok: 10, QUOTA_EXCEEDED: 50 });

    for (const api of [a, b]) expect(await usageOn(api, apiKey)).to.include({ calls: 40, limit: 40, remaining: 0 });
    const month = new Date().toISOString().slice(0, 7);
    expect(await redis.get(monthKeyName(subscription.id, month)), 'the shared counter').to.equal('40');

    const late = await b.request(BILLABLE, { key: apiKey });
    expect(late.status).to.equal(429);
    expect(late.body.error.code).to.equal('QUOTA_EXCEEDED');
  });

  it('(b′) a request refused for the month spends nothing of the shared second: 20 QUOTA_EXCEEDED in a row over both instances at 10/s, r unchanged', async function () {
    const [a, b] = await startPair();
    const { apiKey } = a.deps.subscriptions.create({ name: 'quota-rate', tier: 'STARTER', monthlyLimit: 1 });
    expect((await a.request(BILLABLE, { key: apiKey })).status).to.equal(200);
    for (let i = 0; i < 20; i += 1) {
      const res = await [a, b][i % 2].request(BILLABLE, { key: apiKey });
      expect(res.body?.error?.code, `answer ${i + 1}: ${res.text}`).to.equal('QUOTA_EXCEEDED');
      const remaining = Number(res.headers.get('x-ratelimit-remaining'));
      expect(remaining, `answer ${i + 1}: ${res.headers.get('ratelimit')}`).to.be.within(9, 10);
      expect(res.headers.get('ratelimit')).to.match(new RegExp(`^"second";r=${remaining};`));
    }
    await sleep(1100);
    const fresh = await burst([a, b], 11, apiKey, `${P}/subscription/limits`);
    expect(fresh.counts, JSON.stringify(fresh)).to.deep.equal({ ok: 10, RATE_LIMITED: 1 });
  });

  it('(c) month rollover with an injected clock: a fresh allowance on 2026-12-01T00:00:00.000Z, per-month keys expiring after their month', async function () {
    let now = new Date('2026-11-30T23:59:59.000Z');
    const clock = () => now;
    const [a, b] = await startPair(clock);
    const { apiKey, subscription } = a.deps.subscriptions.create({
      name: 'rollover',
      tier: 'STARTER',
      monthlyLimit: 6,
      rateLimit: 1000,
    });

    const november = await burst([a, b], 8, apiKey, BILLABLE);
    expect(november.counts, JSON.stringify(november)).to.deep.equal({ ok: 6, QUOTA_EXCEEDED: 2 });
    for (const api of [a, b]) {
      expect(await usageOn(api, apiKey)).to.deep.equal({
        calls: 6,
        limit: 6,
        remaining: 0,
        resetDate: '2026-12-01T00:00:00.000Z',
      });
    }

    const novemberKey = monthKeyName(subscription.id, '2026-11');
    expect(await redis.get(novemberKey)).to.equal('6');
    const novemberTtl = await redis.ttl(novemberKey);
    expect(novemberTtl, `TTL of ${novemberKey}`).to.be.greaterThan(0);
    // It outlives its month (Redis expiries run on real time: now + TTL must reach past 2026-12-01).
    expect(Date.now() + novemberTtl * 1000, 'expiry of the November counter').to.be.at.least(Date.UTC(2026, 11, 1));

    now = new Date('2026-11-30T23:59:59.999Z');
    expect((await a.request(BILLABLE, { key: apiKey })).body?.error?.code, 'last millisecond of November').to.equal(
      'QUOTA_EXCEEDED',
    );

    now = new Date('2026-12-01T00:00:00.000Z');
    for (const api of [a, b]) {
      expect(await usageOn(api, apiKey)).to.deep.equal({
        calls: 0,
        limit: 6,
        remaining: 6,
        resetDate: '2027-01-01T00:00:00.000Z',
      });
    }
    const december = await burst([a, b], 8, apiKey, BILLABLE);
    expect(december.counts, JSON.stringify(december)).to.deep.equal({ ok: 6, QUOTA_EXCEEDED: 2 });
    for (const api of [a, b]) {
      expect(await usageOn(api, apiKey)).to.deep.equal({
        calls: 6,
        limit: 6,
        remaining: 0,
        resetDate: '2027-01-01T00:00:00.000Z',
      });
    }

    const decemberKey = monthKeyName(subscription.id, '2026-12');
    expect(await redis.get(decemberKey)).to.equal('6');
    expect(await redis.get(novemberKey), 'November is left as it was').to.equal('6');
    const decemberTtl = await redis.ttl(decemberKey);
    expect(decemberTtl, `TTL of ${decemberKey}`).to.be.greaterThan(0);
    expect(Date.now() + decemberTtl * 1000, 'expiry of the December counter').to.be.at.least(Date.UTC(2027, 0, 1));
    // Every month counter of this subscription is a YYYY-MM key.
    const monthKeys = (await keysWithPrefix(redis, `${prefix}month:`)).sort();
    expect(monthKeys).to.deep.equal([novemberKey, decemberKey]);
  });

  it('(d) a Redis that lost its keys hands out no fresh allowance after an instance restarts: the counter is raised to the SQLite record', async function () {
    const [a, b] = await startPair();
    const { apiKey, subscription } = a.deps.subscriptions.create({
      name: 'flushed',
      tier: 'STARTER',
      monthlyLimit: 12,
      rateLimit: 1000,
    });
    const month = new Date().toISOString().slice(0, 7);
    const counter = monthKeyName(subscription.id, month);

    const first = await burst([a, b], 8, apiKey, BILLABLE);
    expect(first.counts).to.deep.equal({ ok: 8 });
    expect(await redis.get(counter)).to.equal('8');

    expect(await deleteKeys(prefix), 'keys deleted').to.be.greaterThan(0);
    expect(await redis.exists(counter)).to.equal(0);

    // Restart instance a over the same database: on connecting, it reconciles Redis with SQLite.
    await a.stop();
    running = running.filter((api) => api !== a);
    const a2 = await startInstance(b.dataDir);
    const reconciled = await waitFor(async () => (await redis.get(counter)) === '8', 3000);
    expect(reconciled, `${counter} raised back to 8 (is ${await redis.get(counter)})`).to.equal(true);

    for (const api of [a2, b]) expect(await usageOn(api, apiKey)).to.include({ calls: 8, limit: 12, remaining: 4 });

    const rush = await burst([a2, b], 10, apiKey, BILLABLE);
    expect(rush.counts, JSON.stringify(rush)).to.deep.equal({ ok: 4, QUOTA_EXCEEDED: 6 });
    for (const api of [a2, b]) expect(await usageOn(api, apiKey)).to.include({ calls: 12, limit: 12, remaining: 0 });
  });

  it('(d′) a Redis that lost its keys while both instances stay connected (FLUSHDB, eviction) still hands out no fresh allowance', async function () {
    const [a, b] = await startPair();
    const { apiKey, subscription } = a.deps.subscriptions.create({
      name: 'evicted',
      tier: 'STARTER',
      monthlyLimit: 12,
      rateLimit: 1000,
    });
    const month = new Date().toISOString().slice(0, 7);
    const counter = monthKeyName(subscription.id, month);

    const first = await burst([a, b], 8, apiKey, BILLABLE);
    expect(first.counts).to.deep.equal({ ok: 8 });
    expect(await redis.del(counter)).to.equal(1);

    // The SQLite record still says 8 of 12: only 4 more may be served.
    const rush = await burst([a, b], 10, apiKey, BILLABLE);
    const usage = await usageOn(a, apiKey);
    expect(
      { counts: rush.counts, calls: usage.calls },
      `served beyond the allowance once the Redis counter vanished (usage reports ${usage.calls} of ` +
        `${usage.limit} calls)`,
    ).to.deep.equal({ counts: { ok: 4, QUOTA_EXCEEDED: 6 }, calls: 12 });
  });
});
