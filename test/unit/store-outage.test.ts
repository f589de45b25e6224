// The outage policy for the shared subscriptions store (src/subscriptions/storeOutage.ts), on the
// real SQLite store with a switch in front of it that makes it fail or hang, and an injected clock:
// known callers are served for the grace period and no longer, unknown keys get the
// store-unavailable error, a hung call times out, deferred allowance counts and usage rows wait
// (bounded) and are written once the store answers, and a probe notices recovery by itself.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { createLogger } from '../../src/log.js';
import { SqliteAllowanceCounter } from '../../src/subscriptions/sqlite/allowanceCounter.js';
import { openSubscriptionsDb, type Db } from '../../src/subscriptions/sqlite/database.js';
import {
  BoundedUsageBuffer,
  DeferredServedCalls,
  GraceCallerDirectory,
  RecoveryProbe,
  StoreOutage,
} from '../../src/subscriptions/storeOutage.js';
import { SubscriptionStore } from '../../src/subscriptions/sqlite/subscriptionStore.js';
import { tempDir } from '../support/api.js';

const log = createLogger('silent');
const MONTH = '2026-11';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Mode = 'up' | 'down' | 'hung';

describe('unit: the store outage policy (grace, deferred counts, bounded usage, recovery)', () => {
  let dir: string;
  let db: Db;
  let store: SubscriptionStore;
  let mode: Mode;
  let now: number;
  let outage: StoreOutage;
  /** The real store behind a switch: down throws at once, hung never answers. */
  const switched = <T>(call: () => T): T | Promise<T> => {
    if (mode === 'down') throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    if (mode === 'hung') return new Promise<T>(() => {});
    return Promise.resolve().then(call);
  };

  beforeEach(() => {
    dir = tempDir('store-outage-');
    db = openSubscriptionsDb(path.join(dir, 'subscriptions.sqlite'));
    store = new SubscriptionStore(db, () => new Date());
    mode = 'up';
    now = Date.parse('2026-11-20T12:00:00Z');
    outage = new StoreOutage({ graceMs: 60_000, timeoutMs: 100, now: () => now });
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a caller confirmed before the outage for the grace period, then refuses it with 503', async () => {
    const { apiKey, subscription } = store.create({ name: 'Acme', tier: 'STARTER' });
    const directory = new GraceCallerDirectory(
      { authenticate: (key) => switched(() => store.authenticate(key)) },
      outage,
    );
    expect((await directory.authenticate(apiKey))?.subscription.id).to.equal(subscription.id);

    mode = 'down';
    expect((await directory.authenticate(apiKey))?.subscription.id).to.equal(subscription.id);
    expect(outage.status()).to.deep.equal({ state: 'grace', since: '2026-11-20T12:00:00.000Z', graceLeftSeconds: 60 });
    now += 59_999;
    expect((await directory.authenticate(apiKey))?.subscription.id).to.equal(subscription.id);
    now += 1;
    const refused = await directory.authenticate(apiKey).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(ServiceUnavailableError);
    expect((refused as ServiceUnavailableError).retryAfterSeconds).to.be.greaterThan(0);
    expect(outage.status().state).to.equal('unavailable');

    mode = 'up';
    // An answer to authentication may come from the store's cache: it ends no outage.
    expect(
      await directory.authenticate(apiKey).then(
        () => 'served',
        () => 'refused',
      ),
    ).to.equal('refused');
    await outage.guard(() => switched(() => 1)); // a real round trip (the probe's) ends it
    expect(outage.status()).to.deep.equal({ state: 'ok', since: null, graceLeftSeconds: null });
    expect((await directory.authenticate(apiKey))?.subscription.id).to.equal(subscription.id);
  });

  it('refuses unknown keys with 503 during the outage, and a key the store no longer knows is not revived', async () => {
    const { apiKey, keyId } = store.create({ name: 'Acme', tier: 'STARTER' });
    const directory = new GraceCallerDirectory(
      { authenticate: (key) => switched(() => store.authenticate(key)) },
      outage,
    );
    await directory.authenticate(apiKey);
    store.revokeKey(keyId);
    expect(await directory.authenticate(apiKey)).to.equal(null); // the store's answer replaces the remembered one
    mode = 'down';
    for (const key of [apiKey, 'gk_live_never-seen-before-key-000000000000']) {
      const error = await directory.authenticate(key).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, key).to.be.instanceOf(ServiceUnavailableError);
    }
  });

  it('times out a hung store call and serves the remembered caller meanwhile', async () => {
    const { apiKey, subscription } = store.create({ name: 'Acme', tier: 'STARTER' });
    const directory = new GraceCallerDirectory(
      { authenticate: (key) => switched(() => store.authenticate(key)) },
      outage,
    );
    await directory.authenticate(apiKey);
    mode = 'hung';
    const started = Date.now();
    expect((await directory.authenticate(apiKey))?.subscription.id).to.equal(subscription.id);
    expect(Date.now() - started).to.be.at.least(90); // waited for the timeout, not longer than the test allows
    expect(outage.failing).to.equal(true);
  });

  it('keeps the remembered callers bounded, dropping the least recently confirmed', async () => {
    const keys = [1, 2, 3].map((i) => store.create({ name: `S${i}`, tier: 'STARTER' }).apiKey);
    const directory = new GraceCallerDirectory(
      { authenticate: (key) => switched(() => store.authenticate(key)) },
      outage,
      2,
    );
    for (const key of keys) await directory.authenticate(key);
    expect(directory.rememberedCount).to.equal(2);
    mode = 'down';
    expect(
      await directory.authenticate(keys[0]).then(
        () => 'served',
        () => 'refused',
      ),
    ).to.equal('refused');
    expect(
      await directory.authenticate(keys[2]).then(
        () => 'served',
        () => 'refused',
      ),
    ).to.equal('served');
  });

  it('records deferred allowance counts once the store answers, losing none across a failed attempt', async () => {
    const record = new SqliteAllowanceCounter(db);
    let failing = true;
    const deferred = new DeferredServedCalls(
      (s, m) => (failing ? Promise.reject(new Error('down')) : record.recordServed(s, m)),
      log,
    );
    for (let i = 0; i < 7; i += 1) deferred.add('sub_a', MONTH);
    for (let i = 0; i < 3; i += 1) deferred.add('sub_b', MONTH);
    expect(deferred.pending).to.equal(10);
    await deferred.drain();
    expect(deferred.pending).to.equal(10);
    failing = false;
    await Promise.all([deferred.drain(), deferred.drain()]);
    expect(deferred.pending).to.equal(0);
    expect(await record.current('sub_a', MONTH)).to.equal(7);
    expect(await record.current('sub_b', MONTH)).to.equal(3);
    record.close();
  });

  it('holds usage rows up to the bound and counts the rows dropped past it', () => {
    const held: number[] = [];
    const buffer = new BoundedUsageBuffer<number>(
      {
        record: (row) => void held.push(row),
        get pending() {
          return held.length;
        },
      },
      5,
      log,
    );
    for (let i = 0; i < 8; i += 1) void buffer.record(i);
    expect(held).to.deep.equal([0, 1, 2, 3, 4]);
    expect(buffer.dropped).to.equal(3);
    held.length = 0; // written after recovery
    void buffer.record(8);
    expect(held).to.deep.equal([8]);
    expect(buffer.dropped).to.equal(3);
  });

  it('probes a failing store until it answers, then runs the recovery listeners (no request needed)', async () => {
    const real = new StoreOutage({ graceMs: 60_000, timeoutMs: 100 });
    let recovered = 0;
    real.onRecovery(() => {
      recovered += 1;
    });
    const probe = new RecoveryProbe(real, () => switched(() => 1), log, 20);
    mode = 'down';
    await real.guard(() => switched(() => 1)).catch(() => {});
    expect(real.failing).to.equal(true);
    await sleep(80);
    expect(real.failing).to.equal(true);
    mode = 'up';
    for (let i = 0; i < 50 && real.failing; i += 1) await sleep(20);
    expect(real.failing).to.equal(false);
    await sleep(0);
    expect(recovered).to.equal(1);
    probe.stop();
  });

  it('reads STORE_GRACE_SECONDS, STORE_TIMEOUT_MS and STORE_USAGE_BUFFER_ROWS with their defaults and bounds', () => {
    expect(loadConfig({}).storeOutage).to.deep.equal({ graceSeconds: 60, timeoutMs: 2000, usageBufferRows: 100_000 });
    expect(
      loadConfig({ STORE_GRACE_SECONDS: '0', STORE_TIMEOUT_MS: '500', STORE_USAGE_BUFFER_ROWS: '5000' }).storeOutage,
    ).to.deep.equal({ graceSeconds: 0, timeoutMs: 500, usageBufferRows: 5000 });
    expect(() => loadConfig({ STORE_GRACE_SECONDS: '3601', STORE_TIMEOUT_MS: 'x' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.has.length(2);
  });
});
