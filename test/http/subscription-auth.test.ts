// Authentication, subscription status, feature flags, keys sharing a budget, and grants-admin
// changes reaching a running API.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { runAdmin } from '../../src/cli/admin.js';
import { startTestApi, tempDir, type TestApi, type TestResponse } from '../support/api.js';
import { expectError as expectErrorWith } from '../support/assertions.js';
import { API_PREFIX as P, captureCli, writeTinyCatalog as writeCatalog } from '../support/catalog.js';

const WWW_AUTH = 'Bearer realm="grants-api"';

/** An error in the full envelope: JSON content type, exactly success/error/meta, a request id matching its header. */
const expectError = (res: TestResponse, status: number, code: string): void =>
  expectErrorWith(res, status, code, { contentType: true, exactKeys: true, requestId: true });

function expect401(res: TestResponse): void {
  expectError(res, 401, 'UNAUTHORIZED');
  expect(res.headers.get('www-authenticate')).to.equal(WWW_AUTH);
}

function expectOk(res: TestResponse): void {
  expect(res.status, res.text).to.equal(200);
  expect(res.body.success).to.equal(true);
}

const GRANT_PATHS = [`${P}/grants`, `${P}/grants/g-1`, `${P}/grants/filters`];
const SUBSCRIPTION_PATHS = [`${P}/subscription/usage`, `${P}/subscription/limits`];

describe('subscriptions: authentication, status, features, keys, admin changes', function () {
  let api: TestApi;
  let workDir: string;

  before(async function () {
    workDir = tempDir('grants-auth-');
    api = await startTestApi({ SEED_FILE: writeCatalog(workDir) });
  });

  after(async function () {
    await api?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** A fresh subscription (own key, own budget) so tests never share state. */
  function freshSubscription(tier: 'STARTER' | 'PROFESSIONAL' | 'ENTERPRISE' = 'ENTERPRISE', rateLimit?: number) {
    const created = api.deps.subscriptions.create({ name: 'fresh', tier, rateLimit });
    return { id: created.subscription.id, key: created.apiKey, keyId: created.keyId };
  }

  describe('401 UNAUTHORIZED', function () {
    it('the harness key itself is accepted (control)', async function () {
      expectOk(await api.request(`${P}/grants`));
    });

    it('no Authorization header', async function () {
      expect401(await api.request(`${P}/grants`, { key: null, invalidRequest: true }));
    });

    const badHeaders: [string, string][] = [
      ['wrong scheme "Basic x"', 'Basic x'],
      ['"Bearer" with no token', 'Bearer'],
      ['"Bearer" followed by spaces only', 'Bearer    '],
      ['"Bearer a b" (two tokens)', 'Bearer a b'],
      ['a bare key without scheme', 'gk_live_abcdefghijklmnopqrstuvwxyz0123456789'],
      ['"Token <key>"', 'Token gk_live_abcdefghijklmnopqrstuvwxyz0123456789'],
    ];
    for (const [label, header] of badHeaders) {
      it(`malformed header: ${label}`, async function () {
        expect401(
          await api.request(`${P}/grants`, { key: null, headers: { Authorization: header }, invalidRequest: true }),
        );
      });
    }

    it('the harness key under a wrong scheme is still refused', async function () {
      expect401(
        await api.request(`${P}/grants`, {
          key: null,
          headers: { Authorization: `Basic ${api.key}` },
          invalidRequest: true,
        }),
      );
    });

    it('an unknown key', async function () {
      expect401(await api.request(`${P}/grants`, { key: 'gk_live_thisKeyWasNeverIssuedToAnyone000000' }));
    });

    it('an unknown key on every endpoint, including /subscription/* and unknown paths', async function () {
      for (const p of [...GRANT_PATHS, ...SUBSCRIPTION_PATHS, `${P}/grants/unknown-id`, `${P}/nope`]) {
        expect401(
          await api.request(p, {
            key: 'gk_live_thisKeyWasNeverIssuedToAnyone000000',
            invalidRequest: p.endsWith('/nope'),
          }),
        );
      }
    });

    it('a revoked key is refused at the very next request', async function () {
      const sub = freshSubscription();
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
      expect(api.deps.subscriptions.revokeKey(sub.keyId)).to.equal(true);
      expect401(await api.request(`${P}/grants`, { key: sub.key }));
      expect401(await api.request(`${P}/subscription/limits`, { key: sub.key }));
    });

    it('the scheme word is case-insensitive: "bearer" and "BEARER" are accepted', async function () {
      expectOk(await api.request(`${P}/grants`, { key: null, headers: { Authorization: `bearer ${api.key}` } }));
      expectOk(await api.request(`${P}/grants`, { key: null, headers: { Authorization: `BEARER ${api.key}` } }));
    });

    it('a key longer than 256 characters is refused, even one that is stored', async function () {
      expect401(await api.request(`${P}/grants`, { key: `gk_live_${'x'.repeat(300)}` }));
      const sub = freshSubscription();
      const long = `gk_live_${'L'.repeat(257 - 8)}`;
      expect(long.length).to.equal(257);
      api.deps.subscriptions.createKey(sub.id, long);
      expect401(await api.request(`${P}/grants`, { key: long }));
      const atLimit = `gk_live_${'M'.repeat(256 - 8)}`;
      api.deps.subscriptions.createKey(sub.id, atLimit);
      expectOk(await api.request(`${P}/grants`, { key: atLimit }));
    });

    it('a 401 is not counted and not logged against any subscription', async function () {
      const sub = freshSubscription();
      api.deps.subscriptions.revokeKey(sub.keyId);
      expect401(await api.request(`${P}/grants`, { key: sub.key }));
      const { apiKey } = api.deps.subscriptions.createKey(sub.id);
      const usage = await api.request(`${P}/subscription/usage`, { key: apiKey });
      expectOk(usage);
      expect(usage.body.data.currentMonth.calls).to.equal(0);
      expect(usage.body.data.statistics.totalCalls).to.equal(0);
    });
  });

  describe('subscription status', function () {
    it('SUSPENDED: grant endpoints 403 SUBSCRIPTION_INACTIVE, /subscription/* 200 showing SUSPENDED, nothing billed', async function () {
      const sub = freshSubscription();
      api.deps.subscriptions.setStatus(sub.id, 'SUSPENDED');
      for (const p of [...GRANT_PATHS, `${P}/grants/unknown-id`, `${P}/grants?limit=-1`]) {
        expectError(await api.request(p, { key: sub.key, invalidRequest: true }), 403, 'SUBSCRIPTION_INACTIVE');
      }
      const limits = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expectOk(limits);
      expect(limits.body.data.subscription.status).to.equal('SUSPENDED');
      expect(limits.body.data.limits.monthly.current).to.equal(0);
      const usage = await api.request(`${P}/subscription/usage`, { key: sub.key });
      expectOk(usage);
      expect(usage.body.data.subscription.status).to.equal('SUSPENDED');
      expect(usage.body.data.currentMonth.calls).to.equal(0);
    });

    it('SUSPENDED then ACTIVE again: grant endpoints answer at once', async function () {
      const sub = freshSubscription();
      api.deps.subscriptions.setStatus(sub.id, 'SUSPENDED');
      expectError(await api.request(`${P}/grants`, { key: sub.key }), 403, 'SUBSCRIPTION_INACTIVE');
      api.deps.subscriptions.setStatus(sub.id, 'ACTIVE');
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
    });

    it('CANCELLED: every endpoint 403 SUBSCRIPTION_INACTIVE, /subscription/* included', async function () {
      const sub = freshSubscription();
      api.deps.subscriptions.setStatus(sub.id, 'CANCELLED');
      for (const p of [...GRANT_PATHS, ...SUBSCRIPTION_PATHS, `${P}/grants/unknown-id`]) {
        expectError(await api.request(p, { key: sub.key }), 403, 'SUBSCRIPTION_INACTIVE');
      }
      api.deps.subscriptions.setStatus(sub.id, 'ACTIVE');
      const usage = await api.request(`${P}/subscription/usage`, { key: sub.key });
      expect(usage.body.data.currentMonth.calls).to.equal(0);
    });
  });

  describe('feature flags', function () {
    const cases: {
      feature: 'grants.search' | 'grants.read' | 'subscription.read';
      guarded: string[];
      open: string[];
    }[] = [
      {
        feature: 'grants.search',
        guarded: [`${P}/grants`, `${P}/grants/filters`, `${P}/grants?search=program`],
        open: [`${P}/grants/g-1`, ...SUBSCRIPTION_PATHS],
      },
      {
        feature: 'grants.read',
        guarded: [`${P}/grants/g-1`, `${P}/grants/g-2`],
        open: [`${P}/grants`, `${P}/grants/filters`, ...SUBSCRIPTION_PATHS],
      },
      { feature: 'subscription.read', guarded: SUBSCRIPTION_PATHS, open: GRANT_PATHS },
    ];
    for (const { feature, guarded, open } of cases) {
      it(`${feature} off: 403 FEATURE_NOT_AVAILABLE on ${guarded.join(', ')}; the others still work`, async function () {
        const sub = freshSubscription();
        expect(api.deps.subscriptions.setFeature(sub.id, feature, false)).to.equal(true);
        for (const p of guarded) {
          const res = await api.request(p, { key: sub.key });
          expectError(res, 403, 'FEATURE_NOT_AVAILABLE');
          expect(res.body.error.message).to.contain(feature);
          expect(res.body.error.message).to.contain(
            `grants-admin subscription set-feature <subscription id> ${feature} on`,
          );
        }
        for (const p of open) expectOk(await api.request(p, { key: sub.key }));
        api.deps.subscriptions.setFeature(sub.id, feature, true);
        for (const p of guarded) expectOk(await api.request(p, { key: sub.key }));
      });
    }

    it('the limits report shows a feature switched off', async function () {
      const sub = freshSubscription();
      api.deps.subscriptions.setFeature(sub.id, 'grants.read', false);
      const res = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expect(res.body.data.features).to.deep.equal({
        grants: { read: false, search: true, export: true },
        subscription: { read: true },
        alerts: { manage: true },
      });
    });
  });

  describe('several keys of one subscription', function () {
    it('share one per-second budget: 6 + 6 concurrent requests on two STARTER keys → exactly 10 served, 2 refused', async function () {
      const sub = freshSubscription('STARTER');
      const second = api.deps.subscriptions.createKey(sub.id);
      const requests = [
        ...Array.from({ length: 6 }, () => api.request(`${P}/grants`, { key: sub.key })),
        ...Array.from({ length: 6 }, () => api.request(`${P}/grants`, { key: second.apiKey })),
      ];
      const statuses = (await Promise.all(requests)).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(10);
      expect(statuses.filter((s) => s === 429)).to.have.length(2);
    });

    it('share one monthly count, and both keys see the same usage', async function () {
      const sub = freshSubscription();
      const second = api.deps.subscriptions.createKey(sub.id);
      for (let i = 0; i < 3; i += 1) expectOk(await api.request(`${P}/grants`, { key: sub.key }));
      for (let i = 0; i < 2; i += 1) expectOk(await api.request(`${P}/grants/g-1`, { key: second.apiKey }));
      const viaFirst = await api.request(`${P}/subscription/limits`, { key: sub.key });
      const viaSecond = await api.request(`${P}/subscription/limits`, { key: second.apiKey });
      expect(viaFirst.body.data.limits.monthly.current).to.equal(5);
      expect(viaSecond.body.data.limits.monthly.current).to.equal(5);
    });

    it('revoking one key leaves the other working', async function () {
      const sub = freshSubscription();
      const second = api.deps.subscriptions.createKey(sub.id);
      api.deps.subscriptions.revokeKey(sub.keyId);
      expect401(await api.request(`${P}/grants`, { key: sub.key }));
      expectOk(await api.request(`${P}/grants`, { key: second.apiKey }));
    });
  });

  describe('grants-admin changes reach the running API at its next request', function () {
    const admin = (args: string[]) => captureCli((io) => runAdmin(args, { ...process.env, DATA_DIR: api.dataDir }, io));

    it('set-status SUSPENDED / CANCELLED / ACTIVE', async function () {
      const sub = freshSubscription();
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
      expect((await admin(['subscription', 'set-status', sub.id, 'SUSPENDED'])).code).to.equal(0);
      expectError(await api.request(`${P}/grants`, { key: sub.key }), 403, 'SUBSCRIPTION_INACTIVE');
      expectOk(await api.request(`${P}/subscription/limits`, { key: sub.key }));
      expect((await admin(['subscription', 'set-status', sub.id, 'CANCELLED'])).code).to.equal(0);
      expectError(await api.request(`${P}/subscription/limits`, { key: sub.key }), 403, 'SUBSCRIPTION_INACTIVE');
      expect((await admin(['subscription', 'set-status', sub.id, 'ACTIVE'])).code).to.equal(0);
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
    });

    it('set-limits (rate and monthly, then default)', async function () {
      const sub = freshSubscription('PROFESSIONAL');
      expect(
        (await admin(['subscription', 'set-limits', sub.id, '--rate-limit', '3', '--monthly-limit', '77'])).code,
      ).to.equal(0);
      const limited = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expectOk(limited);
      expect(limited.headers.get('x-ratelimit-limit')).to.equal('3');
      expect(limited.body.data.limits.rateLimit.requestsPerSecond).to.equal(3);
      expect(limited.body.data.limits.monthly.limit).to.equal(77);
      expect(
        (await admin(['subscription', 'set-limits', sub.id, '--rate-limit', 'default', '--monthly-limit', 'default']))
          .code,
      ).to.equal(0);
      const back = await api.request(`${P}/subscription/limits`, { key: sub.key });
      expect(back.headers.get('x-ratelimit-limit')).to.equal('50');
      expect(back.body.data.limits.rateLimit.requestsPerSecond).to.equal(50);
      expect(back.body.data.limits.monthly.limit).to.equal(100_000);
    });

    it('set-limits --monthly-limit below the calls made: grant endpoints answer 429 QUOTA_EXCEEDED at once', async function () {
      const sub = freshSubscription();
      for (let i = 0; i < 2; i += 1) expectOk(await api.request(`${P}/grants`, { key: sub.key }));
      expect((await admin(['subscription', 'set-limits', sub.id, '--monthly-limit', '2'])).code).to.equal(0);
      expectError(await api.request(`${P}/grants`, { key: sub.key }), 429, 'QUOTA_EXCEEDED');
    });

    it('set-feature off / on', async function () {
      const sub = freshSubscription();
      expect((await admin(['subscription', 'set-feature', sub.id, 'grants.read', 'off'])).code).to.equal(0);
      expectError(await api.request(`${P}/grants/g-1`, { key: sub.key }), 403, 'FEATURE_NOT_AVAILABLE');
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
      expect((await admin(['subscription', 'set-feature', sub.id, 'grants.read', 'on'])).code).to.equal(0);
      expectOk(await api.request(`${P}/grants/g-1`, { key: sub.key }));
    });

    it('key create: the new key works at once; key revoke: it is refused at once', async function () {
      const sub = freshSubscription();
      const created = await admin(['key', 'create', sub.id, '--json']);
      expect(created.code).to.equal(0);
      const { keyId, apiKey } = JSON.parse(created.out.join('\n'));
      expectOk(await api.request(`${P}/grants`, { key: apiKey }));
      expect((await admin(['key', 'revoke', keyId])).code).to.equal(0);
      expect401(await api.request(`${P}/grants`, { key: apiKey }));
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
    });

    it('key list shows when a key was last used by the API', async function () {
      const sub = freshSubscription();
      const before = JSON.parse((await admin(['key', 'list', sub.id, '--json'])).out.join('\n'));
      expect(before.map((k: { lastUsedAt: string | null }) => k.lastUsedAt)).to.deep.equal([null]);
      const start = Date.now();
      expectOk(await api.request(`${P}/grants`, { key: sub.key }));
      api.deps.usage.flush();
      const after = JSON.parse((await admin(['key', 'list', sub.id, '--json'])).out.join('\n'));
      expect(after).to.have.length(1);
      expect(Date.parse(after[0].lastUsedAt)).to.be.within(start - 1000, Date.now() + 1000);
    });

    it('subscription create: the printed key works on the running API with the tier given', async function () {
      const created = await admin(['subscription', 'create', '--name', 'Via CLI', '--tier', 'STARTER', '--json']);
      expect(created.code).to.equal(0);
      const { apiKey } = JSON.parse(created.out.join('\n'));
      const res = await api.request(`${P}/subscription/limits`, { key: apiKey });
      expectOk(res);
      expect(res.body.data.subscription.tier).to.equal('STARTER');
      expect(res.headers.get('x-ratelimit-limit')).to.equal('10');
    });
  });
});
