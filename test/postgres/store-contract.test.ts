// The store contract: the same cases against both adapters of src/subscriptions/port.ts, the
// SQLite file and a real PostgreSQL database (created for the run, dropped after). "Two instances"
// are two stores opened on one database, as two API processes would open it.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { createLogger } from '../../src/log.js';
import { NO_RESTRICTIONS } from '../../src/subscriptions/keyRestrictions.js';
import { openPgStore, type PgStore } from '../../src/subscriptions/postgres/store.js';
import { openSqliteStore, type SqliteStore } from '../../src/subscriptions/sqlite/store.js';
import type { SubscriptionsStore, UsageRow } from '../../src/subscriptions/port.js';
import { tempDir } from '../support/api.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';
import { waitFor } from '../support/processes.js';

const log = createLogger('silent');
const MONTH = new Date().toISOString().slice(0, 7);
const TODAY = new Date().toISOString().slice(0, 10);

interface Backend {
  /** Prepares an empty database. */
  setUp(): Promise<void>;
  /** Opens a store (again: another instance on the same database). */
  open(clock?: () => Date): Promise<SubscriptionsStore>;
  /** Tries to change an audit entry behind the store's back (it must be refused). */
  updateAudit(store: SubscriptionsStore): Promise<unknown>;
  tearDown(): Promise<void>;
}

const row = (over: Partial<UsageRow> & { keyId: string; subscriptionId: string }): UsageRow => ({
  at: new Date(),
  keyPrefix: 'gk_test',
  endpoint: '/grants',
  billable: true,
  status: 200,
  latencyMs: 1.5,
  requestId: 'req-1',
  ...over,
});

function contract(backend: Backend): void {
  let store: SubscriptionsStore;
  const others: SubscriptionsStore[] = [];
  const another = async (clock?: () => Date) => {
    const opened = await backend.open(clock);
    others.push(opened);
    return opened;
  };

  beforeEach(async () => {
    await backend.setUp();
    store = await backend.open();
  });
  afterEach(async () => {
    for (const s of others.splice(0)) await s.close();
    await store.close();
    await backend.tearDown();
  });

  it('opens migrated, at a schema version above 0, and opening it again changes nothing', async () => {
    const version = await store.schemaVersion();
    expect(version).to.be.greaterThan(0);
    expect(await (await another()).schemaVersion()).to.equal(version);
  });

  it('a created subscription is listed, counted, read by id, and its key authenticates its caller; an unknown key does not', async () => {
    const s = store.subscriptions;
    expect(await s.count()).to.equal(0);
    const created = await s.create({ name: 'Acme', tier: 'STARTER', monthlyLimit: 500 });
    expect(created.subscription).to.include({
      name: 'Acme',
      tier: 'STARTER',
      status: 'ACTIVE',
      monthlyLimitOverride: 500,
      rateLimitOverride: null,
    });
    expect(created.subscription.features).to.deep.equal({
      'grants.read': true,
      'grants.search': true,
      'subscription.read': true,
      'grants.export': false,
      'alerts.manage': true,
    });
    expect(await s.count()).to.equal(1);
    expect(await s.get(created.subscription.id)).to.deep.equal(created.subscription);
    expect(await s.list()).to.deep.equal([created.subscription]);
    expect(await s.get('sub_missing')).to.equal(null);
    const caller = await s.authenticate(created.apiKey);
    expect(caller).to.deep.include({ keyId: created.keyId });
    expect(caller!.subscription).to.deep.equal(created.subscription);
    expect(await s.authenticate(`${created.apiKey}x`)).to.equal(null);
  });

  it('keys: created, listed, read, revoked once (then refused), and lasting keys counted', async () => {
    const s = store.subscriptions;
    const { subscription, keyId, apiKey } = await s.create({ name: 'Keys', tier: 'PROFESSIONAL' });
    const second = await s.createKey(subscription.id);
    expect((await s.listKeys(subscription.id)).map((k) => k.id)).to.have.members([keyId, second.keyId]);
    expect(await s.lastingKeys(subscription.id)).to.equal(2);
    expect(await s.getKey(keyId)).to.include({
      id: keyId,
      subscriptionId: subscription.id,
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(await s.getKey('key_missing')).to.equal(null);
    expect(await s.authenticate(apiKey)).to.not.equal(null);
    expect(await s.revokeKey(keyId)).to.equal(true);
    expect(await s.revokeKey(keyId)).to.equal(false);
    expect(await s.authenticate(apiKey)).to.equal(null);
    expect(await s.lastingKeys(subscription.id)).to.equal(1);
    expect(await s.authenticate(second.apiKey)).to.not.equal(null);
  });

  it('rotation: with a grace period the old key works until then; without one it is refused at once; a revoked key does not rotate', async () => {
    const s = store.subscriptions;
    const { keyId, apiKey } = await s.create({ name: 'Rotate', tier: 'STARTER' });
    const graced = await s.rotateKey(keyId, 3600);
    expect(graced).to.not.equal(null);
    expect(Date.parse(graced!.oldKeyRevokedAt) - Date.now()).to.be.within(3500_000, 3600_000);
    expect(await s.authenticate(apiKey)).to.not.equal(null);
    expect(await s.authenticate(graced!.apiKey)).to.not.equal(null);
    const now = await s.rotateKey(graced!.keyId, 0);
    expect(await s.authenticate(graced!.apiKey)).to.equal(null);
    expect(await s.authenticate(now!.apiKey)).to.not.equal(null);
    expect(await s.rotateKey(graced!.keyId, 10)).to.equal(null);
    expect(await s.rotateKey('key_missing', 10)).to.equal(null);
  });

  it('status, limits and features: each change is what the next authentication sees', async () => {
    const s = store.subscriptions;
    const { subscription, apiKey } = await s.create({ name: 'Changes', tier: 'ENTERPRISE', rateLimit: 7 });
    await s.authenticate(apiKey);
    expect(await s.setStatus(subscription.id, 'SUSPENDED')).to.equal(true);
    expect((await s.authenticate(apiKey))!.subscription.status).to.equal('SUSPENDED');
    expect(await s.setLimits(subscription.id, { monthlyLimit: 99 })).to.equal(true);
    expect((await s.authenticate(apiKey))!.subscription).to.include({ monthlyLimitOverride: 99, rateLimitOverride: 7 });
    expect(await s.setLimits(subscription.id, { rateLimit: null })).to.equal(true);
    expect((await s.authenticate(apiKey))!.subscription).to.include({
      monthlyLimitOverride: 99,
      rateLimitOverride: null,
    });
    expect(await s.setFeature(subscription.id, 'grants.search', false)).to.equal(true);
    expect((await s.authenticate(apiKey))!.subscription.features['grants.search']).to.equal(false);
    expect(await s.setStatus('sub_missing', 'ACTIVE')).to.equal(false);
    expect(await s.setLimits('sub_missing', { monthlyLimit: 1 })).to.equal(false);
  });

  it('a key revoked or a subscription suspended through another instance is refused here within a second', async () => {
    const { subscription, apiKey } = await store.subscriptions.create({ name: 'Fleet', tier: 'STARTER' });
    const second = await store.subscriptions.createKey(subscription.id);
    const admin = await another();
    expect(await store.subscriptions.authenticate(apiKey)).to.not.equal(null); // cached here now
    const { keyId } = (await store.subscriptions.authenticate(apiKey))!;
    await admin.subscriptions.revokeKey(keyId);
    const started = Date.now();
    expect(await waitFor(async () => (await store.subscriptions.authenticate(apiKey)) === null, 1000, 10)).to.equal(
      true,
    );
    expect(Date.now() - started).to.be.below(1000);
    expect((await store.subscriptions.authenticate(second.apiKey))!.subscription.status).to.equal('ACTIVE');
    await admin.subscriptions.setStatus(subscription.id, 'SUSPENDED');
    expect(
      await waitFor(
        async () => (await store.subscriptions.authenticate(second.apiKey))?.subscription.status === 'SUSPENDED',
        1000,
        10,
      ),
    ).to.equal(true);
  });

  it('the allowance: 30 asks in one turn against the last 10 calls admit the first 10 in order, and the record holds 100', async () => {
    const { subscription } = await store.subscriptions.create({ name: 'Allowance', tier: 'STARTER' });
    const id = subscription.id;
    for (let i = 0; i < 90; i += 1) await store.allowance.recordServed(id, MONTH);
    expect(await store.allowance.current(id, MONTH)).to.equal(90);
    const results = await Promise.all(Array.from({ length: 30 }, () => store.allowance.tryConsume(id, MONTH, 100)));
    expect(results.slice(0, 10)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => ({ allowed: true, calls: 91 + i })),
    );
    expect(results.slice(10)).to.deep.equal(Array.from({ length: 20 }, () => ({ allowed: false, calls: 100 })));
    expect(await store.allowance.current(id, MONTH)).to.equal(100);
    expect(await store.allowance.floor(id, MONTH)).to.equal(100);
    expect(await store.allowance.monthCounts(MONTH)).to.deep.equal([{ subscriptionId: id, calls: 100 }]);
    expect(await store.allowance.current('sub_other', MONTH)).to.equal(0);
  });

  it('two instances racing for the last 25 calls of an allowance admit exactly 25 between them', async () => {
    const other = await another();
    const id = 'sub_race';
    const limit = 25;
    const asks = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        // Spread over several turns on each side, so the two instances interleave.
        await new Promise((resolve) => setTimeout(resolve, i % 8));
        return (i % 2 === 0 ? store : other).allowance.tryConsume(id, MONTH, limit);
      }),
    );
    expect(asks.filter((a) => a.allowed)).to.have.length(limit);
    expect(
      asks
        .filter((a) => a.allowed)
        .map((a) => a.calls)
        .sort((a, b) => a - b),
    ).to.deep.equal(Array.from({ length: limit }, (_, i) => i + 1));
    expect(await other.allowance.current(id, MONTH)).to.equal(limit);
  });

  it('usage: rows written in batches; statistics and per-day counts count billable or /subscription/* calls, never 401 or 429; the key’s last use recorded', async () => {
    const { subscription, keyId } = await store.subscriptions.create({ name: 'Usage', tier: 'STARTER' });
    const sub = subscription.id;
    const at = new Date();
    const rows: UsageRow[] = [
      ...Array.from({ length: 7 }, () => row({ subscriptionId: sub, keyId, endpoint: '/grants', at })),
      ...Array.from({ length: 3 }, () => row({ subscriptionId: sub, keyId, endpoint: '/grants/{id}', at })),
      row({ subscriptionId: sub, keyId, endpoint: '/subscription/usage', billable: false, at }),
      row({ subscriptionId: sub, keyId, endpoint: '/grants', status: 429, billable: false, at }),
      row({ subscriptionId: sub, keyId, endpoint: '/grants', status: 401, billable: false, at }),
      row({ subscriptionId: sub, keyId, endpoint: null, status: 404, billable: false, at }),
      row({ subscriptionId: sub, keyId, endpoint: '/grants', status: 400, billable: false, at }),
      row({ subscriptionId: 'sub_elsewhere', keyId: 'key_elsewhere', at }),
    ];
    for (const r of rows) void store.usage.record(r);
    expect(store.usage.pending).to.equal(rows.length);
    await store.usage.flush();
    expect(store.usage.pending).to.equal(0);
    expect(await store.usage.statistics(sub, TODAY)).to.deep.equal({
      totalCalls: 11,
      topEndpoints: [
        { endpoint: '/grants', calls: 7 },
        { endpoint: '/grants/{id}', calls: 3 },
        { endpoint: '/subscription/usage', calls: 1 },
      ],
    });
    expect(await store.usage.dailyByEndpoint(sub, TODAY)).to.deep.equal([
      { day: TODAY, endpoint: '/grants', calls: 7 },
      { day: TODAY, endpoint: '/grants/{id}', calls: 3 },
      { day: TODAY, endpoint: '/subscription/usage', calls: 1 },
    ]);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await store.usage.statistics(sub, tomorrow)).to.deep.equal({ totalCalls: 0, topEndpoints: [] });
    expect((await store.subscriptions.getKey(keyId))!.lastUsedAt).to.equal(at.toISOString());
    // A second batch adds to the same day's counts.
    void store.usage.record(row({ subscriptionId: sub, keyId, endpoint: '/grants' }));
    expect((await store.usage.statistics(sub, TODAY)).totalCalls).to.equal(12);
  });

  it('usage of two instances adds up in the per-day counts', async () => {
    const other = await another();
    for (let i = 0; i < 40; i += 1)
      void (i % 2 === 0 ? store : other).usage.record(row({ subscriptionId: 'sub_two', keyId: 'key_two' }));
    await Promise.all([store.usage.flush(), other.usage.flush()]);
    expect((await store.usage.statistics('sub_two', TODAY)).totalCalls).to.equal(40);
    expect(await other.usage.dailyByEndpoint('sub_two', TODAY)).to.deep.equal([
      { day: TODAY, endpoint: '/grants', calls: 40 },
    ]);
  });

  it('restrictions: kept with the key, read with its caller, kept by a rotation; the origins of working keys listed, on another instance too', async () => {
    const s = store.subscriptions;
    const { subscription } = await s.create({ name: 'Restricted', tier: 'PROFESSIONAL' });
    const restrictions = {
      scopes: ['grants:search' as const],
      origins: ['https://a.example'],
      ips: ['10.0.0.0/8'],
      expiresAt: '2030-01-01T00:00:00.000Z',
      rateLimit: 7,
    };
    const made = await s.createKey(subscription.id, undefined, { name: 'widget', restrictions });
    const caller = await s.authenticate(made.apiKey);
    expect(caller!.restrictions).to.deep.equal(restrictions);
    const info = await s.getKey(made.keyId);
    expect(info).to.deep.include({ name: 'widget', restrictions });
    expect((await s.listKeys(subscription.id)).find((k) => k.id !== made.keyId)!.restrictions).to.deep.equal(
      NO_RESTRICTIONS,
    );
    const other = await another();
    expect([...(await other.subscriptions.keyOrigins())]).to.deep.equal(['https://a.example']);
    const rotated = await s.rotateKey(made.keyId, 0);
    expect((await s.authenticate(rotated!.apiKey))!.restrictions).to.deep.equal(restrictions);
    expect((await s.getKey(rotated!.keyId))!.name).to.equal('widget');
    await s.revokeKey(rotated!.keyId);
    expect((await s.keyOrigins()).size).to.equal(0);
    expect(await waitFor(async () => (await other.subscriptions.keyOrigins()).size === 0, 1500, 20)).to.equal(true);
  });

  it('the audit log: one entry per change with its actor and address, oldest first, by subscription and since; an UPDATE of it is refused', async () => {
    const s = store.subscriptions;
    const admin = { actor: 'admin', address: 'ops-host' };
    const { subscription, keyId } = await s.create({ name: 'Audited', tier: 'STARTER' }, admin);
    await s.setStatus(subscription.id, 'SUSPENDED', admin);
    await s.setLimits(subscription.id, { rateLimit: 3 }, admin);
    await s.setFeature(subscription.id, 'grants.export', true, admin);
    const made = await s.createKey(subscription.id, undefined, { name: 'k' }, { actor: keyId, address: '203.0.113.9' });
    await s.revokeKey(made.keyId, { actor: keyId, address: '203.0.113.9' });
    expect(await s.revokeKey(made.keyId, admin)).to.equal(false);
    const { subscription: elsewhere } = await s.create({ name: 'Elsewhere', tier: 'STARTER' });
    const entries = await s.audit({ subscriptionId: subscription.id, limit: 100 });
    expect(entries.map((e) => [e.actor, e.address, e.action, e.target])).to.deep.equal([
      ['admin', 'ops-host', 'subscription.create', subscription.id],
      ['admin', 'ops-host', 'key.create', keyId],
      ['admin', 'ops-host', 'subscription.set-status', subscription.id],
      ['admin', 'ops-host', 'subscription.set-limits', subscription.id],
      ['admin', 'ops-host', 'subscription.set-feature', subscription.id],
      [keyId, '203.0.113.9', 'key.create', made.keyId],
      [keyId, '203.0.113.9', 'key.revoke', made.keyId],
    ]);
    expect(entries[2].details).to.deep.equal({ status: 'SUSPENDED' });
    expect(entries[4].details).to.deep.equal({ feature: 'grants.export', enabled: true });
    const all = await s.audit({ limit: 100 });
    expect(all.filter((e) => e.subscriptionId === elsewhere.id).map((e) => e.actor)).to.deep.equal([
      'system',
      'system',
    ]);
    expect(
      (await s.audit({ subscriptionId: subscription.id, since: entries[5].at, limit: 100 })).map((e) => e.action),
    ).to.include('key.revoke');
    expect(await s.audit({ limit: 2 })).to.have.length(2);
    let refused: unknown = null;
    try {
      await backend.updateAudit(store);
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).to.match(/append-only/);
  });

  it('the demo subscription: made once when none exists, every feature on, its key unshown until marked', async () => {
    const demo = await store.demo.createIfNone(null);
    expect(demo).to.not.equal(null);
    expect(await store.demo.createIfNone(null)).to.equal(null);
    expect(await store.subscriptions.count()).to.equal(1);
    expect(await store.demo.keyNeverShown()).to.equal(demo!.subscriptionId);
    expect(await store.subscriptions.authenticate(demo!.apiKey)).to.not.equal(null);
    // Every feature the README shows, export included (off by default for its PROFESSIONAL tier).
    const made = await store.subscriptions.get(demo!.subscriptionId);
    expect(made!.tier).to.equal('PROFESSIONAL');
    expect(made!.features).to.deep.equal({
      'grants.read': true,
      'grants.search': true,
      'subscription.read': true,
      'grants.export': true,
      'alerts.manage': true,
    });
    await store.demo.markKeyShown(demo!.subscriptionId);
    expect(await store.demo.keyNeverShown()).to.equal(null);
  });
}

describe('contract: subscriptions store', () => {
  describe('SQLite adapter', () => {
    let dir: string;
    contract({
      async setUp() {
        dir = tempDir('store-contract');
      },
      async open(clock) {
        return openSqliteStore(dir, { log, retentionDays: 400, clock });
      },
      async updateAudit(opened) {
        return (opened as SqliteStore).db.prepare("UPDATE audit_log SET actor = 'someone else'").run();
      },
      async tearDown() {
        rmSync(dir, { recursive: true, force: true });
      },
    });
  });

  describeWithPostgres('PostgreSQL adapter', () => {
    let database: TestDatabase;
    contract({
      async setUp() {
        database = await createTestDatabase();
      },
      async open(clock) {
        return openPgStore(database.url, { log, retentionDays: 400, clock, poolSize: 4 });
      },
      async updateAudit(opened) {
        return (opened as PgStore).pool.query("UPDATE audit_log SET actor = 'someone else'");
      },
      async tearDown() {
        await database.drop();
      },
    });
  });
});
