// GET /subscription/usage reads usage_daily (kept by triggers on usage_log) instead of scanning the
// log: its figures must equal the counting rule applied to the log itself, for rows written by the
// store, rows written by anyone else, and a database that had a log before usage_daily existed.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log.js';
import { openSubscriptionsDb, type Db } from '../../src/subscriptions/sqlite/database.js';
import type { UsageRow } from '../../src/subscriptions/port.js';
import { UsageStore } from '../../src/subscriptions/sqlite/usageStore.js';
import { tempDir } from '../support/api.js';

const COUNTED = `subscription_id = ? AND day >= ? AND status NOT IN (401, 429) AND endpoint IS NOT NULL
                 AND (billable = 1 OR endpoint LIKE '/subscription/%')`;

/** The statistics computed from usage_log directly (the rule of docs/partners.md, "Your usage and limits"). */
function fromLog(db: Db, subscriptionId: string, fromDay: string) {
  return {
    totalCalls: db
      .prepare(`SELECT count(*) FROM usage_log WHERE ${COUNTED}`)
      .pluck()
      .get(subscriptionId, fromDay) as number,
    topEndpoints: db
      .prepare(
        `SELECT endpoint, count(*) AS calls FROM usage_log WHERE ${COUNTED} GROUP BY endpoint ORDER BY ` +
          `calls DESC, endpoint ASC LIMIT 10`,
      )
      .all(subscriptionId, fromDay),
  };
}

const ENDPOINTS = [null, '/grants', '/grants/:id', '/grants/filters', '/subscription/usage', '/subscription/limits'];
const STATUSES = [200, 200, 200, 400, 401, 403, 404, 429, 500, 503];

function rows(count: number, seed: number): UsageRow[] {
  let s = seed;
  const next = (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % n;
  };
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(Date.UTC(2026, 9, 1 + next(60), next(24))),
    subscriptionId: ['sub_a', 'sub_b'][next(2)],
    keyId: 'key_1',
    keyPrefix: 'gk_live_abcd',
    endpoint: ENDPOINTS[next(ENDPOINTS.length)],
    billable: next(3) !== 0,
    status: STATUSES[next(STATUSES.length)],
    latencyMs: 1,
    requestId: `req_${i}`,
  }));
}

describe('usage statistics from usage_daily', () => {
  const dir = tempDir('grants-usage-daily-');
  const file = path.join(dir, 'subscriptions.sqlite');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('match the log, for rows the store writes and rows written directly, updated and deleted', () => {
    const db = openSubscriptionsDb(file);
    const usage = new UsageStore(db, createLogger('silent'));
    for (const row of rows(3000, 7)) void usage.record(row);
    usage.flush();
    // Someone else writing the log (an operator's import, another tool): the triggers count it too.
    db.prepare(
      `INSERT INTO usage_log (at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms,
        request_id)
       VALUES ('2026-11-05T10:00:00.000Z', '2026-11-05', 'sub_a', 'key_1', 'gk', '/grants', 1, 200, 1, 'req_x')`,
    ).run();
    db.prepare(
      "DELETE FROM usage_log WHERE id IN (SELECT id FROM usage_log WHERE subscription_id = 'sub_b' LIMIT 200)",
    ).run();
    db.prepare(
      'UPDATE usage_log SET status = 429 WHERE id IN (SELECT id FROM usage_log WHERE subscription_id = ' +
        "'sub_a' AND status = 200 LIMIT 100)",
    ).run();
    db.prepare(
      "UPDATE usage_log SET endpoint = '/subscription/limits', billable = 0 WHERE id IN (SELECT id FROM " +
        'usage_log WHERE status = 404 LIMIT 50)',
    ).run();
    for (const subscription of ['sub_a', 'sub_b', 'sub_none']) {
      for (const fromDay of ['2026-01-01', '2026-10-15', '2026-11-20', '2027-01-01']) {
        expect(usage.statistics(subscription, fromDay), `${subscription} from ${fromDay}`).to.deep.equal(
          fromLog(db, subscription, fromDay),
        );
        expect(usage.dailyByEndpoint(subscription, fromDay), `daily: ${subscription} from ${fromDay}`).to.deep.equal(
          db
            .prepare(
              `SELECT day, endpoint, count(*) AS calls FROM usage_log WHERE ${COUNTED} GROUP BY day, ` +
                `endpoint ORDER BY day, endpoint`,
            )
            .all(subscription, fromDay),
        );
      }
    }
    usage.close();
    db.close();
  });

  it('a database whose log predates usage_daily is counted in full by the migrations (and loses the log index)', () => {
    // Back to schema version 1 with a log already written, as a database of the previous release.
    let db = openSubscriptionsDb(file);
    db.exec(`DROP TRIGGER usage_log_counted_insert; DROP TRIGGER usage_log_counted_delete; DROP TRIGGER
      usage_log_counted_update;
             DROP TABLE usage_daily; DROP TABLE demo_subscription; DROP TABLE usage_retention; ALTER TABLE
               subscriptions DROP COLUMN feature_grants_export;
             DROP TABLE idempotency_keys; DROP TABLE alert_matcher; DROP TABLE alert_messages; DROP TABLE
               alert_grants; DROP TABLE alerts;
             ALTER TABLE subscriptions DROP COLUMN feature_alerts_manage; ALTER TABLE subscriptions DROP COLUMN
               alert_limit;
             DROP TABLE audit_log; ALTER TABLE api_keys DROP COLUMN name; ALTER TABLE api_keys DROP COLUMN restrictions;
             DELETE FROM schema_migrations WHERE version >= 2;
             CREATE INDEX usage_log_subscription_day ON usage_log (subscription_id, day);`);
    const insert = db.prepare(
      `INSERT INTO usage_log (at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms,
        request_id)
       VALUES (?, ?, ?, 'key_1', 'gk', ?, ?, ?, 1, ?)`,
    );
    for (const r of rows(1500, 11))
      insert.run(
        r.at.toISOString(),
        r.at.toISOString().slice(0, 10),
        r.subscriptionId,
        r.endpoint,
        r.billable ? 1 : 0,
        r.status,
        r.requestId,
      );
    db.close();
    db = openSubscriptionsDb(file);
    expect(
      db
        .prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'usage_log_subscription_day'")
        .pluck()
        .get(),
    ).to.equal(0);
    const usage = new UsageStore(db, createLogger('silent'));
    for (const subscription of ['sub_a', 'sub_b']) {
      expect(usage.statistics(subscription, '2026-01-01')).to.deep.equal(fromLog(db, subscription, '2026-01-01'));
      expect(usage.statistics(subscription, '2026-11-01')).to.deep.equal(fromLog(db, subscription, '2026-11-01'));
    }
    usage.close();
    db.close();
  });
});
