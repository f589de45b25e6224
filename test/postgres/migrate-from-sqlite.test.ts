// grants-admin migrate-from-sqlite --data-dir DIR: an embedded deployment's subscriptions, keys
// (hashed), monthly records, usage log and per-day counts copied into an empty PostgreSQL database;
// the same keys then work against PostgreSQL with the same usage figures, and a second run (a
// non-empty target) copies nothing and says why.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { FIXTURES, startTestApi, tempDir, type TestApi } from '../support/api.js';
import { startInstance } from '../support/fleet.js';
import { runBin } from '../support/bins.js';
import { createTestDatabase, describeWithPostgres, psql, type TestDatabase } from '../support/postgres.js';

const P = '/external/v1';

describeWithPostgres('grants-admin migrate-from-sqlite', function () {
  this.timeout(60_000);
  let dataDir: string;
  let target: TestDatabase;
  let apis: TestApi[] = [];

  beforeEach(async function () {
    dataDir = tempDir('grants-migrate-');
    target = await createTestDatabase('pgfleet_migrate');
  });
  afterEach(async function () {
    for (const api of apis) await api.stop();
    apis = [];
    await target.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const admin = (args: string[], env: Record<string, string> = {}) =>
    runBin('grants-admin', args, { env: { PATH: process.env.PATH, ...env } });

  it('copies everything into an empty database; the keys and usage figures are the same on PostgreSQL; a second run copies nothing', async function () {
    // An embedded deployment with traffic: the test subscription, a second one with a revoked key.
    const embedded = await startTestApi({ DATA_DIR: dataDir });
    apis.push(embedded);
    for (let i = 0; i < 7; i += 1) expect((await embedded.request(`${P}/grants?limit=1`)).status).to.equal(200);
    expect((await embedded.request(`${P}/grants/does-not-exist`)).status).to.equal(404);
    const second = await admin([
      'subscription',
      'create',
      '--name',
      'Second',
      '--tier',
      'STARTER',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(second.code, second.err).to.equal(0);
    const secondKey = JSON.parse(second.out) as { subscriptionId: string; keyId: string; apiKey: string };
    expect((await embedded.request(`${P}/grants?limit=1`, { key: secondKey.apiKey })).status).to.equal(200);
    expect((await admin(['key', 'revoke', secondKey.keyId, '--force', '--data-dir', dataDir])).code).to.equal(0);
    // A restricted key keeps its name and restrictions in PostgreSQL.
    const restricted = await admin([
      'key',
      'create',
      secondKey.subscriptionId,
      '--name',
      'widget',
      '--scopes',
      'grants:search',
      '--ips',
      '10.0.0.0/8',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(restricted.code, restricted.err).to.equal(0);
    const usageBefore = (await embedded.request(`${P}/subscription/usage`)).body.data;
    await embedded.stop();
    apis = [];

    const sqlite = new Database(path.join(dataDir, 'subscriptions.sqlite'), { readonly: true });
    const count = (table: string) => sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const expected = {
      subscriptions: count('subscriptions'),
      apiKeys: count('api_keys'),
      monthlyRecords: count('monthly_usage'),
      usageRows: count('usage_log'),
      dailyRows: sqlite.prepare('SELECT count(*) FROM usage_daily WHERE calls > 0').pluck().get() as number,
      demo: count('demo_subscription'),
      auditRows: count('audit_log'),
    };
    const hashes = sqlite.prepare('SELECT id, key_hash, revoked_at FROM api_keys ORDER BY id').all();
    sqlite.close();
    expect(expected.usageRows).to.be.at.least(9);

    const run = await admin(['migrate-from-sqlite', '--data-dir', dataDir, '--json'], { DATABASE_URL: target.url });
    expect(run.code, run.err).to.equal(0);
    expect(JSON.parse(run.out)).to.deep.equal(expected);
    const copiedHashes = await psql(
      target.url,
      "select id || '|' || key_hash || '|' || coalesce(revoked_at, '') from api_keys order by id",
    );
    expect(copiedHashes.split('\n')).to.deep.equal(
      hashes.map((h: any) => `${h.id}|${h.key_hash}|${h.revoked_at ?? ''}`),
    );
    expect(expected.auditRows).to.be.at.least(5);
    const copiedAudit = await psql(target.url, "select actor || '|' || action from audit_log order by id");
    expect(copiedAudit.split('\n').slice(-3)).to.deep.equal([
      'admin|key.create',
      'admin|key.revoke',
      'admin|key.create',
    ]);
    const widget = await psql(
      target.url,
      `select name || '|' || restrictions from api_keys where id = '${JSON.parse(restricted.out).keyId}'`,
    );
    expect(widget.split('|')[0]).to.equal('widget');
    expect(JSON.parse(widget.split('|')[1])).to.deep.include({ scopes: ['grants:search'], ips: ['10.0.0.0/8'] });

    // The same keys against PostgreSQL: served, the revoked one refused, the usage figures unchanged.
    const onPostgres = await startInstance('on-postgres', {
      env: { DATABASE_URL: target.url, SEED_FILE: FIXTURES },
      workDir: dataDir,
    });
    try {
      const usageAfter = await onPostgres.request(`${P}/subscription/usage`, embedded.key);
      expect(usageAfter.status).to.equal(200);
      // The same month and statistics, plus the one /subscription/usage call made on SQLite above.
      expect(usageAfter.body.data.currentMonth).to.deep.equal(usageBefore.currentMonth);
      expect(usageAfter.body.data.statistics.totalCalls).to.equal(usageBefore.statistics.totalCalls + 1);
      expect(usageAfter.body.data.statistics.topEndpoints).to.deep.include({
        endpoint: '/subscription/usage',
        calls: 1,
      });
      expect(usageAfter.body.data.statistics.topEndpoints).to.deep.include(usageBefore.statistics.topEndpoints[0]);
      expect((await onPostgres.request(`${P}/grants?limit=1`, secondKey.apiKey)).status).to.equal(401);
    } finally {
      await onPostgres.terminate();
    }

    const again = await admin(['migrate-from-sqlite', '--data-dir', dataDir], { DATABASE_URL: target.url });
    expect(again.code).to.equal(3);
    expect(again.err).to.match(/already holds \d+ subscription\(s\).*nothing was copied/);
    // + the usage call above
    expect(Number(await psql(target.url, 'select count(*) from usage_log'))).to.equal(expected.usageRows + 1);
  });

  it('refuses without DATABASE_URL, and says so when DIR has no subscriptions database', async function () {
    const noUrl = await admin(['migrate-from-sqlite', '--data-dir', dataDir]);
    expect(noUrl.code).to.equal(2);
    expect(noUrl.err).to.match(/needs DATABASE_URL/);
    const noFile = await admin(['migrate-from-sqlite', '--data-dir', path.join(dataDir, 'nothing-here')], {
      DATABASE_URL: target.url,
    });
    expect(noFile.code).to.equal(1);
    expect(noFile.err).to.match(/subscriptions\.sqlite/);
    expect(
      await psql(target.url, "select count(*) from information_schema.tables where table_name = 'subscriptions'"),
    ).to.equal('0');
  });
});
