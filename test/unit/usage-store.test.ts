// The usage log's batched writes (50 rows to an INSERT, the rest one by one): every column of
// every row reads back as recorded, in order, whatever the batch size.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log.js';
import { openSubscriptionsDb } from '../../src/subscriptions/sqlite/database.js';
import type { UsageRow } from '../../src/subscriptions/port.js';
import { UsageStore } from '../../src/subscriptions/sqlite/usageStore.js';
import { tempDir } from '../support/api.js';

function row(i: number): UsageRow {
  return {
    // Several rows share a millisecond, others do not (the ISO text is remembered per millisecond).
    at: new Date(Date.UTC(2026, 10, 30, 23, 59, 59, 990) + Math.floor(i / 3)),
    subscriptionId: `sub_${i % 4}`,
    keyId: `key_${i % 7}`,
    keyPrefix: `gk_live_${String(i % 7).padStart(4, '0')}`,
    endpoint: [null, '/grants', '/grants/:id', '/subscription/usage'][i % 4],
    billable: i % 3 !== 0,
    status: [200, 400, 401, 404, 429, 503][i % 6],
    latencyMs: i / 7,
    requestId: `req_${String(i).padStart(24, '0')}`,
  };
}

describe('unit: UsageStore batched writes', () => {
  for (const count of [1, 49, 50, 123, 500]) {
    it(`${count} rows recorded, flushed, read back column by column`, () => {
      const dir = tempDir('usage-store');
      const db = openSubscriptionsDb(path.join(dir, 'subscriptions.sqlite'));
      try {
        const store = new UsageStore(db, createLogger('silent'));
        const rows = Array.from({ length: count }, (_, i) => row(i));
        for (const r of rows) void store.record(r);
        store.flush();
        expect(store.pending).to.equal(0);
        const stored = db
          .prepare(
            'SELECT at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms, ' +
              'request_id FROM usage_log ORDER BY id',
          )
          .all();
        expect(stored).to.deep.equal(
          rows.map((r) => ({
            at: r.at.toISOString(),
            day: r.at.toISOString().slice(0, 10),
            subscription_id: r.subscriptionId,
            key_id: r.keyId,
            key_prefix: r.keyPrefix,
            endpoint: r.endpoint,
            billable: r.billable ? 1 : 0,
            status: r.status,
            latency_ms: r.latencyMs,
            request_id: r.requestId,
          })),
        );
        store.close();
      } finally {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
