// Alerts in a fleet: two API instances sharing PostgreSQL (alerts, outbox, the matcher's position
// and lease), Elasticsearch (the catalog and its change log) and Redis. One instance matches at a
// time; both deliver. The matching instance is killed (SIGKILL) under a stream of changes: the
// other takes the lease over, and every expected event arrives, none twice but by its webhook-id.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runIndexer } from '../../indexer/cli.js';
import { captureCli, grantRecord, writeNdjson, writeTinyCatalog } from '../support/catalog.js';
import { ES_URL, uniqueAlias } from '../support/elasticsearch.js';
import {
  createSubscription,
  describeWithFleetServices,
  startInstance,
  tearDownFleet,
  type FleetInstance,
} from '../support/fleet.js';
import { createTestDatabase, psql, type TestDatabase } from '../support/postgres.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithFleetServices('fleet: alerts on PostgreSQL with two instances', function () {
  this.timeout(180_000);
  let workDir: string;
  let database: TestDatabase;
  let prefix: string;
  let alias: string;
  let env: Record<string, string>;
  const fleet: FleetInstance[] = [];
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      setTimeout(() => res.end('ok'), 20);
    });
  });

  before(async function () {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    workDir = mkdtempSync(path.join(tmpdir(), 'grants-alerts-fleet-'));
    database = await createTestDatabase('pgalerts');
    prefix = uniquePrefix();
    alias = uniqueAlias();
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_URL as string,
      REDIS_KEY_PREFIX: prefix,
      API_INSTANCES: '2',
      REDIS_COMMAND_TIMEOUT_MS: '2000',
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: ES_URL as string,
      ELASTICSEARCH_INDEX: alias,
      SEED_FILE: writeTinyCatalog(workDir),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ALERTS_POLL_MS: '100',
      WEBHOOK_CONCURRENCY: '4',
    };
    fleet.push(await startInstance('api-1', { env, workDir }));
    fleet.push(await startInstance('api-2', { env, workDir }));
  });

  after(async function () {
    await tearDownFleet({ fleet, database, prefix, alias, workDir });
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('the matching instance killed under a stream of changes: the other takes over; every event arrives once (by webhook-id)', async function () {
    const { apiKey } = await createSubscription(env, workDir, ['--name', 'alerts', '--tier', 'ENTERPRISE']);
    const { port } = receiver.address() as AddressInfo;
    const created = await fleet[0].request('/external/v1/alerts', apiKey, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'every grant', query: {}, url: `http://127.0.0.1:${port}/hook` }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    // Seen from the other instance: one store.
    expect((await fleet[1].request(`/external/v1/alerts/${created.body.data.id}`, apiKey)).status).to.equal(200);
    await sleep(1500);
    const records = [grantRecord('g-1'), grantRecord('g-2'), grantRecord('g-3')];
    const added: string[] = [];
    const sync = async (round: number) => {
      for (let i = 0; i < 5; i++) {
        const id = `s${round}-${i}`;
        added.push(id);
        records.push(grantRecord(id));
      }
      const run = await captureCli((io) =>
        runIndexer(
          ['sync', '--source', writeNdjson(workDir, `round-${round}.ndjson`, records)],
          { ...process.env, ...env, DATA_DIR: workDir, LOG_LEVEL: 'silent' },
          io,
        ),
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
    };
    for (let round = 1; round <= 4; round++) await sync(round);
    // Who matches: the lease holder's name carries its process id.
    const holder = (await psql(database.url, 'SELECT holder FROM alert_matcher WHERE id = 1')).trim();
    const matching = fleet.find((f) => holder.includes(`-${f.process.pid}-`));
    expect(matching, `the lease holder "${holder}" is one of the instances`).to.not.equal(undefined);
    matching!.process.child.kill('SIGKILL');
    await matching!.process.exited;
    for (let round = 5; round <= 10; round++) await sync(round);
    const survivor = fleet.find((f) => f !== matching)!;
    const deadline = Date.now() + 60_000;
    const grantsTold = () =>
      new Set(got.map((r) => (JSON.parse(r.body) as { data: { grant: { id: string } } }).data.grant.id));
    while (added.some((id) => !grantsTold().has(id)) && Date.now() < deadline) await sleep(200);
    await sleep(1500);
    expect(
      added.filter((id) => !grantsTold().has(id)),
      'events never delivered',
    ).to.deep.equal([]);
    const byGrant = new Map<string, Set<string>>();
    for (const r of got) {
      const event = JSON.parse(r.body) as { type: string; data: { grant: { id: string } } };
      expect(event.type).to.equal('grant.matched');
      byGrant.set(
        event.data.grant.id,
        (byGrant.get(event.data.grant.id) ?? new Set()).add(r.headers['webhook-id'] as string),
      );
    }
    for (const [grantId, ids] of byGrant) expect(ids.size, `${grantId}: one message`).to.equal(1);
    expect([...byGrant.keys()].sort()).to.deep.equal([...added].sort());
    const newHolder = (await psql(database.url, 'SELECT holder FROM alert_matcher WHERE id = 1')).trim();
    expect(newHolder).to.include(`-${survivor.process.pid}-`);
  });
});
