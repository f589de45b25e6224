// The store port's promise about the SQLite path: the embedded adapter answers synchronously, so
// the hot path (auth, the Redis counter's floor, the statistics) pays no promise on SQLite.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { createLogger } from '../../src/log.js';
import { openSqliteStore, type SqliteStore } from '../../src/subscriptions/sqlite/store.js';
import { isPromise } from '../../src/subscriptions/port.js';
import { tempDir } from '../support/api.js';

describe('unit: the SQLite adapter of the store port answers synchronously', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(() => {
    dir = tempDir('store-port');
    store = openSqliteStore(dir, { log: createLogger('silent'), retentionDays: 400 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authenticate, floor, statistics, per-day counts and the admin reads are plain values, not promises', () => {
    const created = store.subscriptions.create({ name: 'sync', tier: 'STARTER' });
    const answers = [
      store.subscriptions.authenticate(created.apiKey),
      store.subscriptions.authenticate('unknown-key'),
      store.allowance.floor(created.subscription.id, '2026-11'),
      store.usage.statistics(created.subscription.id, '2026-11-01'),
      store.usage.dailyByEndpoint(created.subscription.id, '2026-11-01'),
      store.subscriptions.get(created.subscription.id),
      store.demo.keyNeverShown(),
      store.schemaVersion(),
    ];
    for (const answer of answers) expect(isPromise(answer)).to.equal(false);
    expect((answers[0] as { keyId: string }).keyId).to.equal(created.keyId);
    expect(answers[1]).to.equal(null);
    expect(isPromise(Promise.resolve(1))).to.equal(true);
  });
});
