// The per-second rate, the monthly allowance, their headers, what is billable, and the UTC month
// (as docs/partners.md describes them).
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestApi, tempDir, type TestApi } from '../support/api.js';
import { expectError } from '../support/assertions.js';
import { API_PREFIX as P, writeTinyCatalog as writeCatalog } from '../support/catalog.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whole seconds of the UTC month containing `now`, and until its end. */
const monthSecondsAt = (now: Date) =>
  (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) /
  1000;
const secondsToNextMonth = (now: Date) =>
  Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000);

const countBy = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

/** Parses `"second";r=9;t=1, "month";r=5;t=10` into { second: { r: '9', t: '1' }, month: {...} }. */
function parseItems(header: string | null): Record<string, Record<string, string>> {
  expect(header, 'header present').to.be.a('string');
  const out: Record<string, Record<string, string>> = {};
  for (const item of header!.split(',').map((s) => s.trim())) {
    const [name, ...params] = item.split(';');
    expect(name, item).to.match(/^"[a-z]+"$/);
    out[JSON.parse(name)] = Object.fromEntries(params.map((p) => p.split('=') as [string, string]));
  }
  return out;
}

describe('subscriptions: per-second rate, monthly allowance, billing, month', function () {
  this.timeout(20_000);
  let workDir: string;
  let seedFile: string;

  before(function () {
    workDir = tempDir('grants-limits-');
    seedFile = writeCatalog(workDir);
  });
  after(function () {
    rmSync(workDir, { recursive: true, force: true });
  });

  describe('STARTER tier, real limits', function () {
    let api: TestApi;
    before(async function () {
      api = await startTestApi({ SEED_FILE: seedFile, TEST_TIER: 'STARTER' });
    });
    after(async function () {
      await api?.stop();
    });

    const freshStarter = () => api.deps.subscriptions.create({ name: 'starter', tier: 'STARTER' }).apiKey;

    it('the harness subscription has the STARTER limits', async function () {
      const res = await api.request(`${P}/subscription/limits`);
      expect(res.status).to.equal(200);
      expect(res.body.data.subscription.tier).to.equal('STARTER');
      expect(res.body.data.limits.rateLimit.requestsPerSecond).to.equal(10);
      expect(res.body.data.limits.monthly.limit).to.equal(10_000);
    });

    it('exact per-second boundary: of 11 concurrent requests 10 are served, the 11th is 429 RATE_LIMITED; after the window, served again', async function () {
      const key = freshStarter();
      const responses = await Promise.all(Array.from({ length: 11 }, () => api.request(`${P}/grants`, { key })));
      const served = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 429);
      expect(served).to.have.length(10);
      expect(refused).to.have.length(1);
      const [limited] = refused;
      expectError(limited, 429, 'RATE_LIMITED');
      const retryAfter = limited.headers.get('retry-after');
      expect(retryAfter).to.match(/^\d+$/);
      expect(Number(retryAfter)).to.be.at.least(1);
      expect(limited.headers.get('x-ratelimit-limit')).to.equal('10');
      expect(limited.headers.get('x-ratelimit-remaining')).to.equal('0');
      expect(parseItems(limited.headers.get('ratelimit')).second.r).to.equal('0');
      // The remaining counts of the served ones are 9 down to 0, each once.
      expect(served.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).to.deep.equal([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);

      await sleep(Number(retryAfter) * 1000 + 100);
      const again = await api.request(`${P}/grants`, { key });
      expect(again.status, again.text).to.equal(200);
      expect(again.headers.get('x-ratelimit-remaining')).to.equal('9');
    });

    it('the per-second rate applies to every endpoint: /subscription/* and unknown paths spend it too', async function () {
      const key = freshStarter();
      const paths = [
        ...Array(4).fill(`${P}/subscription/usage`),
        ...Array(3).fill(`${P}/subscription/limits`),
        ...Array(3).fill(`${P}/nope`),
      ];
      const first = await Promise.all(paths.map((p) => api.request(p, { key, invalidRequest: p.endsWith('/nope') })));
      expect(countBy(first.map((r) => r.status))).to.deep.equal({ 200: 7, 404: 3 });
      const over = await Promise.all([
        api.request(`${P}/grants`, { key }),
        api.request(`${P}/subscription/limits`, { key }),
      ]);
      for (const res of over) expectError(res, 429, 'RATE_LIMITED');
    });

    it('rate headers on a 200 with exact values (first request of a window)', async function () {
      const key = freshStarter();
      const before = Date.now();
      const res = await api.request(`${P}/grants`, { key });
      const after = Date.now();
      expect(res.status).to.equal(200);
      const now = new Date(after);
      expect(res.headers.get('ratelimit-policy')).to.equal(
        `"second";q=10;w=1, "month";q=10000;w=${monthSecondsAt(now)}`,
      );
      const rate = parseItems(res.headers.get('ratelimit'));
      expect(rate.second).to.deep.equal({ r: '9', t: '1' });
      expect(rate.month.r).to.equal('9999');
      expect(Math.abs(Number(rate.month.t) - secondsToNextMonth(now))).to.be.at.most(2);
      expect(res.headers.get('x-ratelimit-limit')).to.equal('10');
      expect(res.headers.get('x-ratelimit-remaining')).to.equal('9');
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      expect(reset).to.be.within(Math.floor(before / 1000), Math.ceil(after / 1000) + 1);
    });

    it('rate headers on 4xx responses too: 400, 404 (unknown grant), 404 (unknown path), 403 (feature off)', async function () {
      const created = api.deps.subscriptions.create({ name: 'starter', tier: 'STARTER' });
      const key = created.apiKey;
      api.deps.subscriptions.setFeature(created.subscription.id, 'grants.read', false);
      const cases: [string, number, string][] = [
        [`${P}/grants?limit=-1`, 400, 'VALIDATION_ERROR'],
        [`${P}/grants/filters?x=1`, 400, 'VALIDATION_ERROR'],
        [`${P}/nope`, 404, 'NOT_FOUND'],
        [`${P}/grants/g-1`, 403, 'FEATURE_NOT_AVAILABLE'],
      ];
      let expectedRemaining = 10;
      for (const [p, status, code] of cases) {
        const res = await api.request(p, { key, invalidRequest: true });
        expectError(res, status, code);
        expectedRemaining -= 1;
        expect(res.headers.get('ratelimit-policy'), p).to.match(/^"second";q=10;w=1, "month";q=10000;w=\d+$/);
        expect(res.headers.get('x-ratelimit-limit'), p).to.equal('10');
        expect(res.headers.get('x-ratelimit-remaining'), p).to.equal(String(expectedRemaining));
        expect(parseItems(res.headers.get('ratelimit')).second.r, p).to.equal(String(expectedRemaining));
        expect(res.headers.get('x-ratelimit-reset'), p).to.match(/^\d{10}$/);
      }
    });

    it('rate headers on a 403 SUBSCRIPTION_INACTIVE too: every authenticated response carries them', async function () {
      const created = api.deps.subscriptions.create({ name: 'inactive', tier: 'STARTER' });
      const key = created.apiKey;
      api.deps.subscriptions.setStatus(created.subscription.id, 'SUSPENDED');
      const suspended = await api.request(`${P}/grants`, { key });
      expectError(suspended, 403, 'SUBSCRIPTION_INACTIVE');
      const served = await api.request(`${P}/subscription/limits`, { key });
      expect(served.status).to.equal(200);
      expect(served.headers.get('x-ratelimit-limit'), 'control: a 200 of the same subscription').to.equal('10');
      api.deps.subscriptions.setStatus(created.subscription.id, 'CANCELLED');
      const cancelled = await api.request(`${P}/subscription/limits`, { key });
      expectError(cancelled, 403, 'SUBSCRIPTION_INACTIVE');
      for (const [label, res] of [
        ['SUSPENDED /grants', suspended],
        ['CANCELLED /subscription/limits', cancelled],
      ] as const) {
        expect(res.headers.get('ratelimit-policy'), `${label}: RateLimit-Policy`).to.match(
          /^"second";q=10;w=1, "month";q=10000;w=\d+$/,
        );
        expect(res.headers.get('ratelimit'), `${label}: RateLimit`).to.match(
          /^"second";r=\d+;t=\d+, "month";r=10000;t=\d+$/,
        );
        expect(res.headers.get('x-ratelimit-limit'), `${label}: X-RateLimit-Limit`).to.equal('10');
        expect(res.headers.get('x-ratelimit-remaining'), `${label}: X-RateLimit-Remaining`).to.match(/^\d+$/);
        expect(res.headers.get('x-ratelimit-reset'), `${label}: X-RateLimit-Reset`).to.match(/^\d{10}$/);
      }
    });

    it('the month part of RateLimit counts down with billable calls, not with /subscription/* calls', async function () {
      const key = freshStarter();
      const a = await api.request(`${P}/grants`, { key });
      const b = await api.request(`${P}/grants/g-2`, { key });
      const c = await api.request(`${P}/subscription/limits`, { key });
      expect(parseItems(a.headers.get('ratelimit')).month.r).to.equal('9999');
      expect(parseItems(b.headers.get('ratelimit')).month.r).to.equal('9998');
      expect(parseItems(c.headers.get('ratelimit')).month.r).to.equal('9998');
      expect(c.body.data.limits.monthly.current).to.equal(2);
    });
  });

  describe('monthly allowance and billable calls (real clock)', function () {
    let api: TestApi;
    before(async function () {
      api = await startTestApi({ SEED_FILE: seedFile });
    });
    after(async function () {
      await api?.stop();
    });

    /** A subscription with a huge rate so that only the monthly allowance can refuse. */
    function fresh(monthlyLimit?: number, rateLimit = 100_000) {
      const created = api.deps.subscriptions.create({ name: 'monthly', tier: 'STARTER', monthlyLimit, rateLimit });
      return { id: created.subscription.id, key: created.apiKey };
    }

    async function billed(key: string): Promise<{ usage: number; limits: number }> {
      const usage = await api.request(`${P}/subscription/usage`, { key });
      const limits = await api.request(`${P}/subscription/limits`, { key });
      expect(usage.status, usage.text).to.equal(200);
      expect(limits.status, limits.text).to.equal(200);
      return { usage: usage.body.data.currentMonth.calls, limits: limits.body.data.limits.monthly.current };
    }

    it('allowance 20, 10 used, then 50 concurrent: exactly 10 served and 40 refused with 429 QUOTA_EXCEEDED', async function () {
      const sub = fresh();
      api.deps.subscriptions.setLimits(sub.id, { monthlyLimit: 20 });
      for (let i = 0; i < 10; i += 1) expect((await api.request(`${P}/grants`, { key: sub.key })).status).to.equal(200);
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => api.request(`${P}/grants`, { key: sub.key })),
      );
      const statuses = responses.map((r) => r.status);
      expect(countBy(statuses)).to.deep.equal({ 200: 10, 429: 40 });
      const expectedRetry = secondsToNextMonth(new Date());
      for (const res of responses.filter((r) => r.status === 429)) {
        expectError(res, 429, 'QUOTA_EXCEEDED');
        expect(res.headers.get('retry-after')).to.match(/^\d+$/);
        expect(Math.abs(Number(res.headers.get('retry-after')) - expectedRetry)).to.be.at.most(2);
        expect(parseItems(res.headers.get('ratelimit')).month.r).to.equal('0');
        expect(res.headers.get('ratelimit-policy')).to.match(/"month";q=20;w=\d+$/);
      }
      expect(await billed(sub.key)).to.deep.equal({ usage: 20, limits: 20 });
    });

    it('a request refused for the month spends nothing of the second: 25 QUOTA_EXCEEDED in a row at 10/s, never RATE_LIMITED, r unchanged', async function () {
      const sub = fresh(1, 10);
      const served = await api.request(`${P}/grants`, { key: sub.key });
      expect(served.status).to.equal(200);
      // The window the served call opened has 9 left; a later window starts at 10.
      for (let i = 0; i < 25; i += 1) {
        const res = await api.request(`${P}/grants/g-1`, { key: sub.key });
        expectError(res, 429, 'QUOTA_EXCEEDED');
        const second = parseItems(res.headers.get('ratelimit')).second;
        expect(Number(second.r), `answer ${i + 1}: ${res.headers.get('ratelimit')}`).to.be.within(9, 10);
        expect(res.headers.get('x-ratelimit-remaining')).to.equal(second.r);
      }
      // The second's budget is whole: 10 answers in a burst, and the 11th refused for the rate.
      await sleep(1100);
      const burst = await Promise.all(
        Array.from({ length: 11 }, () => api.request(`${P}/subscription/limits`, { key: sub.key })),
      );
      expect(countBy(burst.map((r) => r.status))).to.deep.equal({ 200: 10, 429: 1 });
    });

    it('when the allowance is used up, every grant endpoint is 429 QUOTA_EXCEEDED and /subscription/* still answers 200', async function () {
      const sub = fresh(2);
      expect((await api.request(`${P}/grants`, { key: sub.key })).status).to.equal(200);
      expect((await api.request(`${P}/grants/g-1`, { key: sub.key })).status).to.equal(200);
      for (const p of [
        `${P}/grants`,
        `${P}/grants/g-1`,
        `${P}/grants/filters`,
        `${P}/grants/unknown`,
        `${P}/grants?limit=-1`,
      ]) {
        expectError(await api.request(p, { key: sub.key, invalidRequest: true }), 429, 'QUOTA_EXCEEDED');
      }
      // Not a grant endpoint: an unknown path is still a 404, not a 429.
      expectError(await api.request(`${P}/nope`, { key: sub.key, invalidRequest: true }), 404, 'NOT_FOUND');
      const usage = await api.request(`${P}/subscription/usage`, { key: sub.key });
      expect(usage.status).to.equal(200);
      expect(usage.body.data.currentMonth).to.include({ calls: 2, limit: 2, remaining: 0 });
      const limits = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expect(limits.status).to.equal(200);
      expect(limits.body.data.limits.monthly).to.include({ limit: 2, current: 2, remaining: 0 });
    });

    it('billable: /grants (limit=0, the counts alone, included), /grants/:id (200 and 404), /grants/filters and a 400 on /grants each count once', async function () {
      const sub = fresh();
      expect(await billed(sub.key)).to.deep.equal({ usage: 0, limits: 0 });
      const steps: [string, number][] = [
        [`${P}/grants`, 200],
        [`${P}/grants?limit=0&facets=currency`, 200],
        [`${P}/grants/g-1`, 200],
        [`${P}/grants/does-not-exist`, 404],
        [`${P}/grants/filters`, 200],
        [`${P}/grants?limit=-1`, 400],
        [`${P}/grants?bogus=1`, 400],
      ];
      let expected = 0;
      for (const [p, status] of steps) {
        const res = await api.request(p, { key: sub.key, invalidRequest: status >= 400 });
        expect(res.status, p).to.equal(status);
        expected += 1;
        expect(await billed(sub.key), p).to.deep.equal({ usage: expected, limits: expected });
      }
    });

    it('billable: a 403 FEATURE_NOT_AVAILABLE on a grant endpoint counts once (it passed every check before the feature)', async function () {
      const sub = fresh();
      api.deps.subscriptions.setFeature(sub.id, 'grants.read', false);
      expectError(await api.request(`${P}/grants/g-1`, { key: sub.key }), 403, 'FEATURE_NOT_AVAILABLE');
      expect(await billed(sub.key)).to.deep.equal({ usage: 1, limits: 1 });
      expectError(await api.request(`${P}/grants/g-2`, { key: sub.key }), 403, 'FEATURE_NOT_AVAILABLE');
      expect(await billed(sub.key)).to.deep.equal({ usage: 2, limits: 2 });
    });

    it('free: /subscription/*, 401s, unknown paths (inside and outside the prefix) do not count', async function () {
      const sub = fresh();
      expect((await api.request(`${P}/grants`, { key: sub.key })).status).to.equal(200);
      const free: [string, string | null, number][] = [
        [`${P}/subscription/usage`, sub.key, 200],
        [`${P}/subscription/limits`, sub.key, 200],
        [`${P}/subscription/usage?days=0`, sub.key, 400],
        [`${P}/grants`, null, 401],
        [`${P}/grants`, 'gk_live_unknownunknownunknownunknown0000', 401],
        [`${P}/nope`, sub.key, 404],
        [`${P}/subscription`, sub.key, 404],
        [`${P}/grants/g-1/extra`, sub.key, 404],
        ['/nowhere', sub.key, 404],
      ];
      for (const [p, key, status] of free) {
        const res = await api.request(p, { key, invalidRequest: status >= 400 });
        expect(res.status, p).to.equal(status);
      }
      expect(await billed(sub.key)).to.deep.equal({ usage: 1, limits: 1 });
    });

    it('free: a 429 RATE_LIMITED does not count', async function () {
      const sub = fresh(undefined, 2);
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => api.request(`${P}/grants`, { key: sub.key })),
      );
      expect(countBy(responses.map((r) => r.status))).to.deep.equal({ 200: 2, 429: 4 });
      for (const res of responses.filter((r) => r.status === 429)) expectError(res, 429, 'RATE_LIMITED');
      await sleep(1100);
      const usage = await api.request(`${P}/subscription/usage`, { key: sub.key });
      expect(usage.status, usage.text).to.equal(200);
      expect(usage.body.data.currentMonth.calls).to.equal(2);
    });

    it('remaining is never negative: an allowance lowered below the calls made gives remaining 0', async function () {
      const sub = fresh();
      for (let i = 0; i < 5; i += 1) expect((await api.request(`${P}/grants`, { key: sub.key })).status).to.equal(200);
      api.deps.subscriptions.setLimits(sub.id, { monthlyLimit: 3 });
      const usage = await api.request(`${P}/subscription/usage`, { key: sub.key });
      expect(usage.body.data.currentMonth).to.include({ calls: 5, limit: 3, remaining: 0 });
      expect(usage.body.data.subscription.monthlyLimit).to.equal(3);
      const limits = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expect(limits.body.data.limits.monthly).to.include({ limit: 3, current: 5, remaining: 0 });
      expect(parseItems(limits.headers.get('ratelimit')).month.r).to.equal('0');
      const refused = await api.request(`${P}/grants`, { key: sub.key });
      expectError(refused, 429, 'QUOTA_EXCEEDED');
      expect(parseItems(refused.headers.get('ratelimit')).month.r).to.equal('0');
      const after = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expect(after.body.data.limits.monthly).to.include({ current: 5, remaining: 0 });
    });
  });

  describe('the UTC calendar month, with an injected clock', function () {
    let api: TestApi;
    let now = new Date('2026-11-20T10:00:00.000Z');
    before(async function () {
      api = await startTestApi({ SEED_FILE: seedFile }, { clock: () => now });
    });
    after(async function () {
      await api?.stop();
    });

    it('exact month policy window: November 2026 has 30 days, December 31', async function () {
      const sub = api.deps.subscriptions.create({ name: 'policy', tier: 'PROFESSIONAL' });
      now = new Date('2026-11-20T10:00:00.000Z');
      const nov = await api.request(`${P}/grants`, { key: sub.apiKey });
      expect(nov.headers.get('ratelimit-policy')).to.equal('"second";q=50;w=1, "month";q=100000;w=2592000');
      expect(parseItems(nov.headers.get('ratelimit')).month).to.deep.equal({
        r: '99999',
        t: String(10 * 86400 + 14 * 3600),
      });
      now = new Date('2026-12-15T00:00:00.000Z');
      const dec = await api.request(`${P}/grants`, { key: sub.apiKey });
      expect(dec.headers.get('ratelimit-policy')).to.equal('"second";q=50;w=1, "month";q=100000;w=2678400');
      expect(parseItems(dec.headers.get('ratelimit')).month).to.deep.equal({ r: '99999', t: String(17 * 86400) });
    });

    it('calls made in November do not count in December: calls 0 and resetDate 2027-01-01 at 2026-12-01T00:00:00.000Z', async function () {
      const created = api.deps.subscriptions.create({ name: 'rollover', tier: 'STARTER' });
      const key = created.apiKey;
      now = new Date('2026-11-30T23:59:59.999Z');
      for (let i = 0; i < 3; i += 1) expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
      const nov = await api.request(`${P}/subscription/usage`, { key });
      expect(nov.body.data.currentMonth).to.deep.equal({
        calls: 3,
        limit: 10_000,
        remaining: 9_997,
        resetDate: '2026-12-01T00:00:00.000Z',
      });

      now = new Date('2026-12-01T00:00:00.000Z');
      const dec = await api.request(`${P}/subscription/usage`, { key });
      expect(dec.body.data.currentMonth).to.deep.equal({
        calls: 0,
        limit: 10_000,
        remaining: 10_000,
        resetDate: '2027-01-01T00:00:00.000Z',
      });
      const limits = await api.request(`${P}/subscription/limits`, { key });
      expect(limits.body.data.limits.monthly).to.deep.equal({
        limit: 10_000,
        current: 0,
        remaining: 10_000,
        resetDate: '2027-01-01T00:00:00.000Z',
      });
      expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
      const afterCall = await api.request(`${P}/subscription/limits`, { key });
      expect(afterCall.body.data.limits.monthly.current).to.equal(1);
    });

    it('an allowance used up in a month is available again at the next month start', async function () {
      const created = api.deps.subscriptions.create({ name: 'refill', tier: 'STARTER', monthlyLimit: 2 });
      const key = created.apiKey;
      now = new Date('2026-11-10T12:00:00.000Z');
      expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
      expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
      const refused = await api.request(`${P}/grants`, { key });
      expectError(refused, 429, 'QUOTA_EXCEEDED');
      const untilDec = (Date.parse('2026-12-01T00:00:00.000Z') - now.getTime()) / 1000;
      expect(refused.headers.get('retry-after')).to.equal(String(untilDec));
      expect(refused.body.error.message).to.contain('2026-12-01T00:00:00.000Z');
      now = new Date('2026-12-01T00:00:00.000Z');
      expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
    });

    it('on 31 December the reset rolls into the next year: resetDate 2027-01-01 and Retry-After counts to it', async function () {
      const created = api.deps.subscriptions.create({ name: 'new-year', tier: 'STARTER', monthlyLimit: 1 });
      const key = created.apiKey;
      now = new Date('2026-12-31T23:59:00.000Z');
      expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
      const refused = await api.request(`${P}/grants/g-1`, { key });
      expectError(refused, 429, 'QUOTA_EXCEEDED');
      expect(refused.headers.get('retry-after')).to.equal('60');
      expect(parseItems(refused.headers.get('ratelimit')).month).to.deep.equal({ r: '0', t: '60' });
      const usage = await api.request(`${P}/subscription/usage`, { key });
      expect(usage.body.data.currentMonth).to.deep.equal({
        calls: 1,
        limit: 1,
        remaining: 0,
        resetDate: '2027-01-01T00:00:00.000Z',
      });

      now = new Date('2026-12-31T23:59:59.400Z');
      const lastSecond = await api.request(`${P}/grants`, { key });
      expectError(lastSecond, 429, 'QUOTA_EXCEEDED');
      expect(lastSecond.headers.get('retry-after')).to.equal('1');

      now = new Date('2027-01-01T00:00:00.000Z');
      const jan = await api.request(`${P}/subscription/usage`, { key });
      expect(jan.body.data.currentMonth).to.deep.equal({
        calls: 0,
        limit: 1,
        remaining: 1,
        resetDate: '2027-02-01T00:00:00.000Z',
      });
      expect((await api.request(`${P}/grants`, { key })).status).to.equal(200);
    });
  });
});
