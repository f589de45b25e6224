// The PostgreSQL usage log at volume: one partition per month, created by the writer when a batch
// needs it; retention drops whole months and never touches the per-day counts that
// /subscription/usage reads.
import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { openPgStore, type PgStore } from '../../src/subscriptions/postgres/store.js';
import { dropPartitionsBefore, partitionMonths } from '../../src/subscriptions/postgres/usageStore.js';
import type { UsageRow } from '../../src/subscriptions/port.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';

const usageRow = (at: string, i: number): UsageRow => ({
  at: new Date(at),
  subscriptionId: 'sub_p',
  keyId: 'key_p',
  keyPrefix: 'gk_p',
  endpoint: i % 4 === 0 ? '/grants/:id' : '/grants',
  billable: true,
  status: 200,
  latencyMs: 2,
  requestId: `req-${i}`,
});

describeWithPostgres('PostgreSQL usage log: monthly partitions and retention', () => {
  let database: TestDatabase;
  let store: PgStore;

  beforeEach(async () => {
    database = await createTestDatabase();
    store = await openPgStore(database.url, {
      log: createLogger('silent'),
      retentionDays: 400,
      listen: false,
      clock: () => new Date('2024-03-10T12:00:00Z'),
    });
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  it('rows of three months land in three partitions (made on demand); dropping the oldest month keeps its per-day counts', async () => {
    expect(await partitionMonths(store.pool)).to.deep.equal(['2024-03', '2024-04']);
    const at = ['2024-01-20T10:00:00Z', '2024-02-05T10:00:00Z', '2024-03-09T10:00:00Z'];
    // 1,200 rows a month: more than one batch each.
    for (let m = 0; m < 3; m += 1) for (let i = 0; i < 1200; i += 1) void store.usage.record(usageRow(at[m], i));
    await store.usage.flush();
    expect(await partitionMonths(store.pool)).to.deep.equal(['2024-01', '2024-02', '2024-03', '2024-04']);
    const perMonth = async () =>
      (
        await store.pool.query(
          "SELECT to_char(day, 'YYYY-MM') AS month, count(*)::int AS n FROM usage_log GROUP BY 1 ORDER BY 1",
        )
      ).rows;
    expect(await perMonth()).to.deep.equal([
      { month: '2024-01', n: 1200 },
      { month: '2024-02', n: 1200 },
      { month: '2024-03', n: 1200 },
    ]);
    const before = await store.usage.statistics('sub_p', '2024-01-01');
    expect(before).to.deep.equal({
      totalCalls: 3600,
      topEndpoints: [
        { endpoint: '/grants', calls: 2700 },
        { endpoint: '/grants/:id', calls: 900 },
      ],
    });

    // The first kept day in mid-February: January's month is wholly before it, February's is not.
    expect(await dropPartitionsBefore(store.pool, '2024-02-15')).to.deep.equal(['2024-01']);
    expect(await partitionMonths(store.pool)).to.deep.equal(['2024-02', '2024-03', '2024-04']);
    expect(await perMonth()).to.deep.equal([
      { month: '2024-02', n: 1200 },
      { month: '2024-03', n: 1200 },
    ]);
    expect(await store.usage.statistics('sub_p', '2024-01-01')).to.deep.equal(before);
    expect(await store.usage.dailyByEndpoint('sub_p', '2024-01-20')).to.deep.include({
      day: '2024-01-20',
      endpoint: '/grants',
      calls: 900,
    });
    expect(await dropPartitionsBefore(store.pool, '2024-02-15')).to.deep.equal([]);
  });
});
