// Bounded growth: usage rows of days past USAGE_RETENTION_DAYS are deleted in batches; the
// per-day counts (usage_daily) and so GET /subscription/usage's figures stay as they were.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { openSubscriptionsDb, subscriptionsPath, type Db } from '../../src/subscriptions/sqlite/database.js';
import { readUsageSizes, UsageRetention } from '../../src/subscriptions/sqlite/usageRetention.js';
import { firstKeptDay } from '../../src/subscriptions/usageRetention.js';
import type { UsageRow } from '../../src/subscriptions/port.js';
import { UsageStore } from '../../src/subscriptions/sqlite/usageStore.js';
import { startTestApi, tempDir } from '../support/api.js';
import { waitFor } from '../support/processes.js';

const NOW = new Date('2026-11-23T10:00:00Z');
const DAY = 24 * 3600 * 1000;

/** `perDay` billable /grants rows on each of `days` days ending `endDaysAgo` days before NOW, oldest first. */
function rowsOver(days: number, endDaysAgo: number, perDay: number): UsageRow[] {
  const rows: UsageRow[] = [];
  for (let d = endDaysAgo + days - 1; d >= endDaysAgo; d -= 1) {
    for (let i = 0; i < perDay; i += 1) {
      rows.push({
        at: new Date(NOW.getTime() - d * DAY + i),
        subscriptionId: 'sub_a',
        keyId: 'key_1',
        keyPrefix: 'gk_live_abcd',
        endpoint: '/grants',
        billable: true,
        status: 200,
        latencyMs: 1,
        requestId: `r${d}-${i}`,
      });
    }
  }
  return rows;
}

describe('usage retention', () => {
  let dir: string;
  let db: Db;
  let store: UsageStore;
  const log = createLogger('silent');

  beforeEach(() => {
    dir = tempDir();
    db = openSubscriptionsDb(subscriptionsPath(dir));
    store = new UsageStore(db, log);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('defaults to 400 days, never less than the 365-day statistics window', () => {
    expect(loadConfig({}).usageRetentionDays).to.equal(400);
    expect(loadConfig({ USAGE_RETENTION_DAYS: '500' }).usageRetentionDays).to.equal(500);
    expect(() => loadConfig({ USAGE_RETENTION_DAYS: '30' })).to.throw(
      /USAGE_RETENTION_DAYS must be an integer from 366/,
    );
    expect(firstKeptDay(NOW, 400)).to.equal('2025-10-19');
  });

  it('deletes the rows past the retention in batches, keeping usage_daily and the statistics', async () => {
    // 20 old days (410..429 days ago) and 10 recent days (0..9 days ago), 30 rows a day.
    for (const batch of [rowsOver(20, 410, 30), rowsOver(10, 0, 30)]) {
      batch.forEach((row) => store.record(row));
      store.flush();
    }
    const dailyBefore = db.prepare('SELECT * FROM usage_daily ORDER BY day').all();
    const everything = store.statistics('sub_a', '2000-01-01');
    expect(everything.totalCalls).to.equal(900);

    const retention = new UsageRetention(db, 400, () => NOW, log, 100);
    expect(retention.sweepOnce(), 'one batch at a time').to.equal(100);
    expect(await retention.sweep()).to.equal(500);
    expect(db.prepare('SELECT count(*) FROM usage_log').pluck().get()).to.equal(300);
    expect(db.prepare('SELECT min(day) FROM usage_log').pluck().get()).to.equal(firstKeptDay(NOW, 9));
    expect(retention.sweepOnce(), 'nothing left to delete').to.equal(0);

    expect(db.prepare('SELECT * FROM usage_daily ORDER BY day').all()).to.deep.equal(dailyBefore);
    expect(store.statistics('sub_a', '2000-01-01')).to.deep.equal(everything);
    expect(readUsageSizes(dir)).to.deep.equal({ usageLogRows: 300, usageDailyRows: 30 });
  });

  it('a deletion of rows inside the retention still decrements the counts', () => {
    rowsOver(2, 0, 10).forEach((row) => store.record(row));
    store.flush();
    new UsageRetention(db, 400, () => NOW, log).sweepOnce();
    db.prepare('DELETE FROM usage_log WHERE id IN (SELECT id FROM usage_log LIMIT 5)').run();
    expect(store.statistics('sub_a', '2000-01-01').totalCalls).to.equal(15);
  });

  it('the API sweeps in the background from its start: old rows go, their daily counts stay', async function () {
    this.timeout(30_000);
    // Rows of two years ago and of today, written before the API starts.
    const today = new Date();
    const old = rowsOver(3, 0, 10).map((row) => ({
      ...row,
      at: new Date(row.at.getTime() - NOW.getTime() + Date.parse('2024-06-01T12:00:00Z')),
    }));
    const recent = rowsOver(1, 0, 10).map((row) => ({ ...row, at: today }));
    [...old, ...recent].forEach((row) => store.record(row));
    store.flush();
    const dailyBefore = db.prepare('SELECT * FROM usage_daily ORDER BY day').all();
    db.close();
    const api = await startTestApi({ DATA_DIR: dir });
    try {
      expect(await waitFor(() => readUsageSizes(dir)?.usageLogRows === 10, 10_000), 'the old rows are swept').to.equal(
        true,
      );
      db = openSubscriptionsDb(subscriptionsPath(dir));
      expect(db.prepare('SELECT count(*) FROM usage_log').pluck().get()).to.equal(10);
      expect(db.prepare("SELECT * FROM usage_daily WHERE subscription_id = 'sub_a' ORDER BY day").all()).to.deep.equal(
        dailyBefore,
      );
    } finally {
      await api.stop();
    }
  });

  it('readUsageSizes is null for a data directory without a subscriptions database', () => {
    expect(readUsageSizes(path.join(dir, 'nothing-here'))).to.equal(null);
  });
});
