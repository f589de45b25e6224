// LISTEN/NOTIFY and its safety net: an instance whose listening connection is cut keeps refusing a
// revoked key within a second (cached callers trusted one second while not listening), listens
// again by itself, and then hears changes at once again.
import { expect } from 'chai';
import pg from 'pg';
import { createLogger } from '../../src/log.js';
import { openPgStore, type PgStore } from '../../src/subscriptions/postgres/store.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';
import { waitFor } from '../support/processes.js';

describeWithPostgres('PostgreSQL store: LISTEN/NOTIFY and the cache TTL', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let api: PgStore;
  let admin: PgStore;
  let sql: pg.Client;

  beforeEach(async () => {
    database = await createTestDatabase();
    const log = createLogger('silent');
    api = await openPgStore(database.url, { log, retentionDays: 400, cacheTtlMs: 60_000 });
    admin = await openPgStore(database.url, { log, retentionDays: 400, listen: false });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });
  afterEach(async () => {
    await sql.end();
    await api.close();
    await admin.close();
    await database.drop();
  });

  const cutListener = () =>
    sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ` +
        `LIKE 'LISTEN %'`,
    );

  it('with a minute of cache TTL, a notification alone makes a revocation refused within a second', async () => {
    const { keyId, apiKey } = await admin.subscriptions.create({ name: 'n', tier: 'STARTER' });
    expect(api.subscriptions.isListening).to.equal(true);
    expect(await api.subscriptions.authenticate(apiKey)).to.not.equal(null);
    await admin.subscriptions.revokeKey(keyId);
    expect(await waitFor(async () => (await api.subscriptions.authenticate(apiKey)) === null, 1000, 10)).to.equal(true);
  });

  it('the listening connection cut: a revocation is still refused within a second, and listening resumes by itself', async () => {
    const first = await admin.subscriptions.create({ name: 'cut', tier: 'STARTER' });
    const second = await admin.subscriptions.createKey(first.subscription.id);
    await cutListener();
    expect(await waitFor(() => !api.subscriptions.isListening, 5000, 10)).to.equal(true);
    // Not listening: callers are cached for one second at most.
    const cachedAt = Date.now();
    expect(await api.subscriptions.authenticate(first.apiKey)).to.not.equal(null);
    await admin.subscriptions.revokeKey(first.keyId);
    // Refused once the cached caller's second is over (a little polling slack on a busy machine).
    expect(await waitFor(async () => (await api.subscriptions.authenticate(first.apiKey)) === null, 2000, 10)).to.equal(
      true,
    );
    expect(Date.now() - cachedAt).to.be.at.most(1300);
    // Back by itself; then a change is heard at once again, whatever the cache TTL.
    expect(await waitFor(() => api.subscriptions.isListening, 5000, 20)).to.equal(true);
    expect(await api.subscriptions.authenticate(second.apiKey)).to.not.equal(null);
    await admin.subscriptions.setStatus(first.subscription.id, 'SUSPENDED');
    expect(
      await waitFor(
        async () => (await api.subscriptions.authenticate(second.apiKey))?.subscription.status === 'SUSPENDED',
        1000,
        10,
      ),
    ).to.equal(true);
  });
});
