// GET /subscription/usage and GET /subscription/limits: fields and semantics (as
// docs/partners.md describes them). The clock is injected so that day and month arithmetic is deterministic.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestApi, tempDir, type TestApi } from '../support/api.js';
import { API_PREFIX as P, writeTinyCatalog as writeCatalog } from '../support/catalog.js';
import { expectValidation } from '../support/assertions.js';
import type { CheckOptions } from '../support/checkedFetch.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const DAY_MS = 86_400_000;

describe('subscriptions: the usage and limits reports', function () {
  let api: TestApi;
  let workDir: string;
  let now: Date = NOW;

  before(async function () {
    workDir = tempDir('grants-usage-');
    api = await startTestApi({ SEED_FILE: writeCatalog(workDir) }, { clock: () => now });
  });
  beforeEach(function () {
    now = NOW;
  });
  after(async function () {
    await api?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  function fresh(
    tier: 'STARTER' | 'PROFESSIONAL' | 'ENTERPRISE' = 'PROFESSIONAL',
    over: { monthlyLimit?: number; rateLimit?: number } = {},
  ) {
    const created = api.deps.subscriptions.create({ name: 'usage', tier, ...over });
    const key = created.apiKey;
    return {
      id: created.subscription.id,
      keyId: created.keyId,
      key,
      get: (p: string, check: CheckOptions = {}) => api.request(`${P}${p}`, { key, ...check }),
    };
  }

  describe('GET /subscription/usage: shape', function () {
    it('a new subscription: every field, exact values, default window of 30 days', async function () {
      const sub = fresh('PROFESSIONAL');
      const res = await sub.get('/subscription/usage');
      expect(res.status, res.text).to.equal(200);
      expect(Object.keys(res.body)).to.have.members(['success', 'data', 'meta']);
      expect(res.body.data).to.deep.equal({
        currentMonth: { calls: 0, limit: 100_000, remaining: 100_000, resetDate: '2026-12-01T00:00:00.000Z' },
        statistics: {
          period: '30 days',
          totalCalls: 0,
          avgCallsPerDay: 0,
          topEndpoints: [],
          daily: res.body.data.statistics.daily,
        },
        subscription: { tier: 'PROFESSIONAL', monthlyLimit: 100_000, rateLimit: 50, status: 'ACTIVE' },
      });
      const { daily } = res.body.data.statistics;
      expect(daily).to.have.length(30);
      expect(daily[0]).to.deep.equal({ date: '2026-10-22', calls: 0, byEndpoint: {} });
      expect(daily[29]).to.deep.equal({ date: '2026-11-20', calls: 0, byEndpoint: {} });
      for (const entry of daily) expect(entry).to.deep.include({ calls: 0, byEndpoint: {} });
    });

    for (const [tier, monthly, rate] of [
      ['STARTER', 10_000, 10],
      ['ENTERPRISE', 1_000_000, 200],
    ] as const) {
      it(`${tier}: subscription.monthlyLimit ${monthly}, rateLimit ${rate}`, async function () {
        const res = await fresh(tier).get('/subscription/usage');
        expect(res.body.data.subscription).to.deep.equal({
          tier,
          monthlyLimit: monthly,
          rateLimit: rate,
          status: 'ACTIVE',
        });
        expect(res.body.data.currentMonth.limit).to.equal(monthly);
      });
    }
  });

  describe('GET /subscription/usage: the days parameter', function () {
    for (const days of [1, 2, 7, 30, 90, 365]) {
      it(`days=${days} → period "${days} days"`, async function () {
        const res = await fresh().get(`/subscription/usage?days=${days}`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.data.statistics.period).to.equal(`${days} days`);
      });
    }

    for (const bad of ['0', '366', 'abc', '1.5', '-1', '', '1e2', '7days', '1000000']) {
      it(`days=${JSON.stringify(bad)} → 400 VALIDATION_ERROR naming days`, async function () {
        expectValidation(
          await fresh().get(`/subscription/usage?days=${encodeURIComponent(bad)}`, { invalidRequest: true }),
          ['days'],
        );
      });
    }

    it('days given twice → 400', async function () {
      expectValidation(await fresh().get('/subscription/usage?days=1&days=2', { invalidRequest: true }), ['days']);
    });

    it('an unknown parameter → 400 naming it', async function () {
      expectValidation(await fresh().get('/subscription/usage?day=7', { invalidRequest: true }), ['day']);
    });

    it('/subscription/limits takes no parameters', async function () {
      expectValidation(await fresh().get('/subscription/limits?days=7', { invalidRequest: true }), ['days']);
    });
  });

  describe('GET /subscription/usage: statistics', function () {
    /**
     * 7 counted calls: /grants ×2 (200, 400), /grants/:id ×2 (200, 404), /grants/filters ×1,
     * /subscription/limits ×2 (one while others are rate-limited); plus not counted: 401s,
     * unknown paths, 429s.
     */
    async function sevenCalls(sub: ReturnType<typeof fresh>): Promise<void> {
      const expectStatus = async (p: string, status: number, key: string | null = sub.key) => {
        const res = await api.request(`${P}${p}`, { key, invalidRequest: status >= 400 });
        expect(res.status, `${p}: ${res.text}`).to.equal(status);
      };
      await expectStatus('/grants', 200);
      await expectStatus('/grants?limit=-1', 400);
      await expectStatus('/grants/g-1', 200);
      await expectStatus('/grants/nope', 404);
      await expectStatus('/grants/filters', 200);
      await expectStatus('/subscription/limits', 200);
      await expectStatus('/grants', 401, null);
      await expectStatus('/grants', 401, 'gk_live_neverIssuedneverIssuedneverIssued');
      await expectStatus('/nope', 404);
      await expectStatus('/grants/g-1/x', 404);
      // Two concurrent calls at a rate of 1 per second: one served (counted), one 429 (not counted).
      api.deps.subscriptions.setLimits(sub.id, { rateLimit: 1 });
      const pair = await Promise.all([sub.get('/subscription/limits'), sub.get('/subscription/limits')]);
      expect(pair.map((r) => r.status).sort()).to.deep.equal([200, 429]);
      api.deps.subscriptions.setLimits(sub.id, { rateLimit: null });
    }

    it('totalCalls counts billable and /subscription/* calls, excluding 401, 429 and unknown paths; avgCallsPerDay 7/3 = 2.33', async function () {
      const sub = fresh();
      await sevenCalls(sub);
      const res = await sub.get('/subscription/usage?days=3');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.statistics.period).to.equal('3 days');
      expect(res.body.data.statistics.totalCalls).to.equal(7);
      expect(res.body.data.statistics.avgCallsPerDay).to.equal(2.33);
      expect(res.body.data.currentMonth.calls).to.equal(5);
    });

    it('avgCallsPerDay is totalCalls / N rounded to 2 decimals for other N', async function () {
      const sub = fresh();
      await sevenCalls(sub);
      // Each /subscription/usage answered is itself logged and counted by the next one.
      const expected: [number, number, number][] = [
        [1, 7, 7],
        [30, 8, 0.27],
        [7, 9, 1.29],
        [365, 10, 0.03],
        [6, 11, 1.83],
      ];
      for (const [days, total, avg] of expected) {
        const res = await sub.get(`/subscription/usage?days=${days}`);
        expect(res.body.data.statistics, `days=${days}`).to.include({
          period: `${days} days`,
          totalCalls: total,
          avgCallsPerDay: avg,
        });
      }
    });

    it('topEndpoints: route templates, calls descending then endpoint ascending', async function () {
      const sub = fresh();
      await sevenCalls(sub);
      const res = await sub.get('/subscription/usage');
      expect(res.body.data.statistics.topEndpoints).to.deep.equal([
        { endpoint: '/grants', calls: 2 },
        { endpoint: '/grants/:id', calls: 2 },
        { endpoint: '/subscription/limits', calls: 2 },
        { endpoint: '/grants/filters', calls: 1 },
      ]);
      const again = await sub.get('/subscription/usage');
      expect(again.body.data.statistics.topEndpoints).to.deep.equal([
        { endpoint: '/grants', calls: 2 },
        { endpoint: '/grants/:id', calls: 2 },
        { endpoint: '/subscription/limits', calls: 2 },
        { endpoint: '/grants/filters', calls: 1 },
        { endpoint: '/subscription/usage', calls: 1 },
      ]);
    });

    it('topEndpoints never shows a concrete grant id; different ids add up under /grants/:id', async function () {
      const sub = fresh();
      for (const id of ['g-1', 'g-2', 'g-3', 'g-1', 'zzz-unknown']) await sub.get(`/grants/${id}`);
      for (let i = 0; i < 3; i += 1) await sub.get('/grants/filters');
      await sub.get('/grants');
      const res = await sub.get('/subscription/usage?days=1');
      const { topEndpoints } = res.body.data.statistics;
      expect(topEndpoints).to.deep.equal([
        { endpoint: '/grants/:id', calls: 5 },
        { endpoint: '/grants/filters', calls: 3 },
        { endpoint: '/grants', calls: 1 },
      ]);
      expect(JSON.stringify(topEndpoints)).not.to.match(/g-1|g-2|zzz/);
      expect(topEndpoints.length).to.be.at.most(10);
    });

    it('calls refused by status (SUSPENDED) are not statistics calls; /subscription/* calls while suspended are', async function () {
      const sub = fresh();
      api.deps.subscriptions.setStatus(sub.id, 'SUSPENDED');
      expect((await sub.get('/grants')).status).to.equal(403);
      expect((await sub.get('/subscription/limits')).status).to.equal(200);
      const res = await sub.get('/subscription/usage');
      expect(res.body.data.statistics.totalCalls).to.equal(1);
      expect(res.body.data.statistics.topEndpoints).to.deep.equal([{ endpoint: '/subscription/limits', calls: 1 }]);
      expect(res.body.data.subscription.status).to.equal('SUSPENDED');
    });

    it('the window is the last N UTC days including today: calls 3 days ago are inside days=4 and 7, outside days=3 and 2', async function () {
      const sub = fresh();
      now = new Date(NOW.getTime() - 3 * DAY_MS); // 2026-11-17T12:00Z
      await sub.get('/grants');
      await sub.get('/grants/g-1');
      now = NOW;
      await sub.get('/grants/filters');
      // Each usage call below is logged today and counted by the following ones.
      const seven = await sub.get('/subscription/usage?days=7');
      expect(seven.body.data.statistics).to.include({ totalCalls: 3, avgCallsPerDay: 0.43 });
      expect(seven.body.data.statistics.topEndpoints).to.deep.equal([
        { endpoint: '/grants', calls: 1 },
        { endpoint: '/grants/:id', calls: 1 },
        { endpoint: '/grants/filters', calls: 1 },
      ]);
      const four = await sub.get('/subscription/usage?days=4');
      expect(four.body.data.statistics.totalCalls).to.equal(4);
      const three = await sub.get('/subscription/usage?days=3');
      expect(three.body.data.statistics.totalCalls).to.equal(3); // filters + 2 usage calls
      const two = await sub.get('/subscription/usage?days=2');
      expect(two.body.data.statistics.totalCalls).to.equal(4);
      expect(two.body.data.statistics.topEndpoints).to.deep.equal([
        { endpoint: '/subscription/usage', calls: 3 },
        { endpoint: '/grants/filters', calls: 1 },
      ]);
    });

    it('the window is counted in UTC days: a call at 00:00:00.000Z today is inside days=1, one at 23:59:59.999Z yesterday is not', async function () {
      const sub = fresh();
      now = new Date('2026-11-19T23:59:59.999Z');
      await sub.get('/grants');
      now = new Date('2026-11-20T00:00:00.000Z');
      await sub.get('/grants/g-1');
      now = new Date('2026-11-20T23:59:59.999Z');
      const one = await sub.get('/subscription/usage?days=1');
      expect(one.body.data.statistics.totalCalls).to.equal(1);
      expect(one.body.data.statistics.topEndpoints).to.deep.equal([{ endpoint: '/grants/:id', calls: 1 }]);
      const two = await sub.get('/subscription/usage?days=2');
      expect(two.body.data.statistics.totalCalls).to.equal(3);
    });

    it('statistics cross month boundaries while currentMonth does not', async function () {
      const sub = fresh();
      now = new Date('2026-10-30T12:00:00.000Z');
      await sub.get('/grants');
      await sub.get('/grants');
      now = new Date('2026-11-02T12:00:00.000Z');
      await sub.get('/grants');
      const res = await sub.get('/subscription/usage?days=7');
      expect(res.body.data.currentMonth.calls).to.equal(1);
      expect(res.body.data.statistics.totalCalls).to.equal(3);
    });
  });

  describe('GET /subscription/usage: statistics.daily', function () {
    it('one entry per UTC day of the window, oldest first, zero days included, calls by endpoint most called first', async function () {
      const sub = fresh();
      now = new Date('2026-11-15T00:00:00.000Z');
      for (let i = 0; i < 3; i += 1) await sub.get('/grants');
      await sub.get('/grants/g-1');
      now = new Date('2026-11-17T23:59:59.999Z');
      await sub.get('/grants/filters');
      await sub.get('/grants/g-2');
      await sub.get('/grants/g-1/x', { invalidRequest: true }); // unknown path: not counted
      await sub.get('/grants?limit=-1', { invalidRequest: true }); // 400: counted
      now = NOW;
      const res = await sub.get('/subscription/usage?days=7');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.statistics.daily).to.deep.equal([
        { date: '2026-11-14', calls: 0, byEndpoint: {} },
        { date: '2026-11-15', calls: 4, byEndpoint: { '/grants': 3, '/grants/:id': 1 } },
        { date: '2026-11-16', calls: 0, byEndpoint: {} },
        { date: '2026-11-17', calls: 3, byEndpoint: { '/grants': 1, '/grants/:id': 1, '/grants/filters': 1 } },
        { date: '2026-11-18', calls: 0, byEndpoint: {} },
        { date: '2026-11-19', calls: 0, byEndpoint: {} },
        { date: '2026-11-20', calls: 0, byEndpoint: {} },
      ]);
      expect(Object.keys(res.body.data.statistics.daily[1].byEndpoint)).to.deep.equal(['/grants', '/grants/:id']);
      // The usage call just answered is counted today by the next report; the day's sum is totalCalls.
      const again = await sub.get('/subscription/usage?days=3');
      const { daily, totalCalls } = again.body.data.statistics;
      expect(daily.map((d: { date: string }) => d.date)).to.deep.equal(['2026-11-18', '2026-11-19', '2026-11-20']);
      expect(daily[2]).to.deep.equal({ date: '2026-11-20', calls: 1, byEndpoint: { '/subscription/usage': 1 } });
      expect(totalCalls).to.equal(1);
      const year = await sub.get('/subscription/usage?days=365');
      expect(year.body.data.statistics.daily).to.have.length(365);
      expect(year.body.data.statistics.daily[0].date).to.equal('2025-11-21');
      const sum = year.body.data.statistics.daily.reduce((n: number, d: { calls: number }) => n + d.calls, 0);
      expect(sum).to.equal(year.body.data.statistics.totalCalls);
    });

    it('days=1 is today alone; the series crosses month and year boundaries', async function () {
      const sub = fresh();
      now = new Date('2026-12-31T23:00:00.000Z');
      await sub.get('/grants');
      now = new Date('2027-01-01T01:00:00.000Z');
      const one = await sub.get('/subscription/usage?days=1');
      expect(one.body.data.statistics.daily).to.deep.equal([{ date: '2027-01-01', calls: 0, byEndpoint: {} }]);
      const two = await sub.get('/subscription/usage?days=2');
      expect(two.body.data.statistics.daily).to.deep.equal([
        { date: '2026-12-31', calls: 1, byEndpoint: { '/grants': 1 } },
        { date: '2027-01-01', calls: 1, byEndpoint: { '/subscription/usage': 1 } },
      ]);
    });
  });

  describe('GET /subscription/limits', function () {
    it('every field, exact values, for a STARTER subscription', async function () {
      const sub = fresh('STARTER');
      await sub.get('/grants');
      await sub.get('/grants/g-2');
      const res = await sub.get('/subscription/limits');
      expect(res.status, res.text).to.equal(200);
      expect(Object.keys(res.body)).to.have.members(['success', 'data', 'meta']);
      expect(res.body.data).to.deep.equal({
        subscription: { tier: 'STARTER', status: 'ACTIVE' },
        limits: {
          monthly: { limit: 10_000, current: 2, remaining: 9_998, resetDate: '2026-12-01T00:00:00.000Z' },
          rateLimit: {
            requestsPerSecond: 10,
            description: 'Up to 10 requests per second across all keys of this subscription.',
          },
          alerts: { max: 5, current: 0 },
        },
        key: {
          id: sub.keyId,
          prefix: sub.key.slice(0, 12),
          restrictions: { scopes: null, origins: null, ips: null, rateLimit: null },
          expiresAt: null,
        },
        features: {
          grants: { read: true, search: true, export: false },
          subscription: { read: true },
          alerts: { manage: true },
        },
      });
    });

    it('ENTERPRISE: 200 per second, 1,000,000 a month', async function () {
      const res = await fresh('ENTERPRISE').get('/subscription/limits');
      expect(res.body.data.limits.rateLimit).to.deep.equal({
        requestsPerSecond: 200,
        description: 'Up to 200 requests per second across all keys of this subscription.',
      });
      expect(res.body.data.limits.monthly.limit).to.equal(1_000_000);
    });

    it('usage and limits agree on the month', async function () {
      const sub = fresh('STARTER');
      for (let i = 0; i < 4; i += 1) await sub.get('/grants/filters');
      const usage = (await sub.get('/subscription/usage')).body.data;
      const limits = (await sub.get('/subscription/limits')).body.data;
      expect(limits.limits.monthly).to.deep.equal({
        limit: usage.currentMonth.limit,
        current: usage.currentMonth.calls,
        remaining: usage.currentMonth.remaining,
        resetDate: usage.currentMonth.resetDate,
      });
      expect(usage.currentMonth.calls).to.equal(4);
    });
  });

  describe('overrides are reflected in both reports', function () {
    it('rate and monthly overrides, then cleared back to the tier', async function () {
      const sub = fresh('STARTER');
      await sub.get('/grants');
      api.deps.subscriptions.setLimits(sub.id, { rateLimit: 7, monthlyLimit: 123 });
      const usage = await sub.get('/subscription/usage');
      expect(usage.body.data.currentMonth).to.include({ calls: 1, limit: 123, remaining: 122 });
      expect(usage.body.data.subscription).to.deep.equal({
        tier: 'STARTER',
        monthlyLimit: 123,
        rateLimit: 7,
        status: 'ACTIVE',
      });
      expect(usage.headers.get('x-ratelimit-limit')).to.equal('7');
      const limits = await sub.get('/subscription/limits');
      expect(limits.body.data.limits.monthly).to.include({ limit: 123, current: 1, remaining: 122 });
      expect(limits.body.data.limits.rateLimit).to.deep.equal({
        requestsPerSecond: 7,
        description: 'Up to 7 requests per second across all keys of this subscription.',
      });
      expect(limits.headers.get('ratelimit-policy')).to.equal('"second";q=7;w=1, "month";q=123;w=2592000');

      api.deps.subscriptions.setLimits(sub.id, { rateLimit: null, monthlyLimit: null });
      const back = await sub.get('/subscription/limits');
      expect(back.body.data.limits.monthly.limit).to.equal(10_000);
      expect(back.body.data.limits.rateLimit.requestsPerSecond).to.equal(10);
      const backUsage = await sub.get('/subscription/usage');
      expect(backUsage.body.data.subscription).to.include({ monthlyLimit: 10_000, rateLimit: 10 });
    });
  });
});
