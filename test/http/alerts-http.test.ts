// Alerts over real HTTP: the endpoints on a real API (SQLite), a real receiver on a real port,
// catalog changes made by the indexer's own code, signatures verified by the standardwebhooks package.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { runAdmin } from '../../src/cli/admin.js';
import { runIndexer } from '../../indexer/cli.js';
import { startTestApi, tempDir, type TestApi } from '../support/api.js';
import { API_PREFIX, captureCli, grantRecord, writeNdjson, type GrantRecord } from '../support/catalog.js';
import { describeWithElasticsearch, elasticsearchEnv, dropAlias, uniqueAlias } from '../support/elasticsearch.js';
import { until as waitUntil } from '../support/processes.js';
import { webhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { ACCEPTED_TARGETS, REFUSED_TARGETS } from '../support/webhookTargets.js';

const ALERTS = `${API_PREFIX}/alerts`;

const until = (what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> =>
  waitUntil(what, check, timeoutMs);

const json = (body: unknown, extra: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...extra },
  body: JSON.stringify(body),
});

describe('alerts: the endpoints', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' });
  });
  after(async () => api.stop());

  const valid = {
    name: 'Ontario clean energy',
    query: { search: 'energy', eligibleProvinces: ['ONTARIO'], open: true },
    url: 'https://93.184.215.14/hooks',
  };

  it('creates an alert (201, the secret once), reads it without the secret, lists, patches and deletes it', async () => {
    const created = await api.request(ALERTS, json(valid));
    expect(created.status, created.text).to.equal(201);
    const alert = created.body.data;
    expect(alert.id).to.match(/^alt_/);
    expect(alert.secret).to.match(/^whsec_[A-Za-z0-9+/=]{44}$/);
    expect(alert).to.deep.include({ name: valid.name, url: valid.url, status: 'ACTIVE', disabledReason: null });
    expect(alert.events).to.deep.equal(['grant.matched', 'grant.updated', 'grant.unmatched', 'grant.opened']);
    const one = await api.request(`${ALERTS}/${alert.id}`);
    expect(one.status).to.equal(200);
    expect(one.body.data).to.not.have.property('secret');
    expect(one.body.data.query).to.deep.equal(valid.query);
    const list = await api.request(`${ALERTS}?limit=1`);
    expect(list.body.data.map((a: { id: string }) => a.id)).to.deep.equal([alert.id]);
    const patched = await api.request(`${ALERTS}/${alert.id}`, {
      ...json({ status: 'PAUSED', name: 'renamed' }),
      method: 'PATCH',
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.data).to.deep.include({ status: 'PAUSED', name: 'renamed' });
    const deleted = await api.request(`${ALERTS}/${alert.id}`, { method: 'DELETE' });
    expect(deleted.body.data).to.deep.equal({ id: alert.id, deleted: true });
    expect((await api.request(`${ALERTS}/${alert.id}`)).status).to.equal(404);
  });

  it('refuses bad bodies with every problem named: unknown fields, GET /grants validation inside query, paging in query', async () => {
    const bad = await api.request(ALERTS, {
      ...json({
        name: '',
        query: { eligibleProvinces: ['ATLANTIS'], amountMin: 5, amountMax: 1, page: 2 },
        url: valid.url,
        colour: 'red',
      }),
      invalidRequest: true,
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    const named = bad.body.error.details.map((d: { parameter: string }) => d.parameter);
    expect(named).to.include.members(['colour', 'name', 'query.eligibleProvinces', 'query.amountMin', 'query.page']);
    const wrongType = await api.request(ALERTS, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hi',
      invalidRequest: true,
    });
    expect(wrongType.status).to.equal(415);
    expect(wrongType.body.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    const tooLarge = await api.request(ALERTS, {
      ...json({ ...valid, name: 'x'.repeat(20_000) }),
      invalidRequest: true,
    });
    expect(tooLarge.status).to.equal(413);
    const notJson = await api.request(ALERTS, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":',
      invalidRequest: true,
    });
    expect(notJson.status).to.equal(400);
  });

  it('refuses targets a webhook must not reach (SSRF) and http:// unless allowed', async () => {
    const urls = [
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://10.0.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/x',
      'http://93.184.215.14/x',
      'https://user:pw@93.184.215.14/x',
    ];
    for (const url of [...urls, ...REFUSED_TARGETS]) {
      const answer = await api.request(ALERTS, json({ ...valid, url }));
      expect(answer.status, url).to.equal(400);
      expect(answer.body.error.details[0].parameter, url).to.equal('url');
    }
    // The refusal names the setting that would allow such a target on a development server.
    const plain = await api.request(ALERTS, json({ ...valid, url: 'http://93.184.215.14/x' }));
    expect(plain.body.error.details[0].message).to.contain('WEBHOOK_ALLOW_HTTP');
    for (const url of ['https://127.0.0.1/x', 'https://localhost/x']) {
      const refused = await api.request(ALERTS, json({ ...valid, url }));
      expect(refused.body.error.details[0].message, url).to.contain('WEBHOOK_ALLOW_PRIVATE');
    }
    for (const url of ACCEPTED_TARGETS) {
      const answer = await api.request(ALERTS, json({ ...valid, url }));
      expect(answer.status, url).to.equal(201);
      expect((await api.request(`${ALERTS}/${answer.body.data.id}`, { method: 'DELETE' })).status).to.equal(200);
    }
  });

  it("another subscription's alert is a 404; 405 names the methods; the limits report counts alerts", async () => {
    const created = await api.request(ALERTS, json(valid));
    const other = api.deps.subscriptions.create({ name: 'other', tier: 'STARTER' });
    const seen = await api.request(`${ALERTS}/${created.body.data.id}`, { key: other.apiKey });
    expect(seen.status).to.equal(404);
    const put = await api.request(`${ALERTS}/${created.body.data.id}`, { method: 'PUT', invalidRequest: true });
    expect(put.status).to.equal(405);
    expect(put.headers.get('allow')).to.equal('GET, HEAD, PATCH, DELETE');
    const limits = await api.request(`${API_PREFIX}/subscription/limits`);
    expect(limits.body.data.limits.alerts).to.deep.equal({ max: 1000, current: 1 });
    expect(limits.body.data.features.alerts).to.deep.equal({ manage: true });
    const starter = await api.request(`${API_PREFIX}/subscription/limits`, { key: other.apiKey });
    expect(starter.body.data.limits.alerts).to.deep.equal({ max: 5, current: 0 });
    for (let i = 0; i < 5; i++)
      expect((await api.request(ALERTS, { ...json(valid), key: other.apiKey })).status).to.equal(201);
    const sixth = await api.request(ALERTS, { ...json(valid), key: other.apiKey });
    expect(sixth.status).to.equal(403);
    expect(sixth.body.error.code).to.equal('ALERT_LIMIT_REACHED');
    expect(sixth.body.error.message).to.contain('5 alerts');
  });

  it('Idempotency-Key: the same key and body replay the first answer and create nothing; another body is a 409', async () => {
    const before = (await api.request(`${API_PREFIX}/subscription/limits`)).body.data.limits.alerts.current;
    const first = await api.request(ALERTS, json(valid, { 'Idempotency-Key': 'k-1' }));
    const again = await api.request(ALERTS, json(valid, { 'Idempotency-Key': 'k-1' }));
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.body.data.id).to.equal(first.body.data.id);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    const after = (await api.request(`${API_PREFIX}/subscription/limits`)).body.data.limits.alerts.current;
    expect(after).to.equal(before + 1);
    const reused = await api.request(ALERTS, json({ ...valid, name: 'another' }, { 'Idempotency-Key': 'k-1' }));
    expect(reused.status).to.equal(409);
    expect(reused.body.error.code).to.equal('IDEMPOTENCY_KEY_REUSED');
  });

  it('grants-admin alerts list, show and pause work on the same database (never printing a secret)', async () => {
    const created = await api.request(ALERTS, json({ ...valid, name: 'operator view' }));
    const id = created.body.data.id as string;
    const admin = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin(
        [...args, '--data-dir', api.dataDir],
        { ...process.env, DATABASE_URL: '' },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const list = await admin('alerts', 'list', '--subscription', api.subscriptionId);
    expect(list.code, list.err).to.equal(0);
    expect(list.out).to.contain(id).and.contain('operator view');
    const shown = await admin('alerts', 'show', id, '--json');
    expect(JSON.parse(shown.out)).to.deep.include({ id, status: 'ACTIVE' });
    expect(shown.out).to.not.contain('whsec_');
    expect((await admin('alerts', 'pause', id)).code).to.equal(0);
    expect((await api.request(`${ALERTS}/${id}`)).body.data.status).to.equal('PAUSED');
    expect((await admin('alerts', 'show', 'alt_nope')).code).to.equal(1);
  });

  it('alert calls are billed and named by route template in topEndpoints', async () => {
    const usage = await api.request(`${API_PREFIX}/subscription/usage`);
    const endpoints = usage.body.data.statistics.topEndpoints.map((e: { endpoint: string }) => e.endpoint);
    expect(endpoints).to.include.members(['/alerts', '/alerts/:id']);
  });
});

describe('alerts: events delivered to a real receiver [sqlite]', function () {
  eventsSuite.call(this, () => ({ SEARCH_ENGINE: 'sqlite' }), false);
});
describeWithElasticsearch('alerts: events delivered to a real receiver', function () {
  eventsSuite.call(
    this,
    () => ({
      ...elasticsearchEnv(`alerts-${uniqueAlias()}`),
    }),
    true,
  );
});

function eventsSuite(this: Mocha.Suite, engineEnv: () => Record<string, string>, elasticsearch: boolean): void {
  this.timeout(90_000);
  let api: TestApi | undefined;
  let env: Record<string, string>;
  let step = 0;
  let hooks: WebhookReceiver;

  const indexer = async (args: string[], records: readonly GrantRecord[]) => {
    const source = ['--source', writeNdjson(env.DATA_DIR, `source-${++step}.ndjson`, records)];
    const run = await captureCli((io) =>
      runIndexer([...args, ...source], { ...process.env, ...env, LOG_LEVEL: 'silent' }, io),
    );
    expect(run.code, run.err.join('\n')).to.equal(0);
  };
  const ontario = (id: string, overrides: GrantRecord = {}) =>
    grantRecord(id, {
      title: `Clean energy ${id}`,
      eligibleProvinces: ['ONTARIO'],
      deadline: '2099-01-01T00:00:00.000Z',
      ...overrides,
    });
  const events = () =>
    hooks.got.map(
      (r) =>
        JSON.parse(r.body) as {
          type: string;
          data: {
            grant: { id: string; title?: string };
            reason: string | null;
            changes: unknown;
            links?: { similar: { href: string; title: string } };
          };
        },
    );

  beforeEach(async () => {
    env = {
      ...engineEnv(),
      DATA_DIR: tempDir('grants-alerts-'),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
      ALERTS_POLL_MS: '50',
    };
    step = 0;
  });
  afterEach(async () => {
    await api?.stop();
    api = undefined;
    await hooks?.close();
    if (elasticsearch) await dropAlias(env.ELASTICSEARCH_INDEX);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('matched, updated and unmatched (deleted, no longer matching), in change order, signed as Standard Webhooks says', async () => {
    hooks = await webhookReceiver();
    await indexer(['reindex'], [ontario('g-1'), grantRecord('g-2', { eligibleProvinces: ['QUEBEC'] })]);
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const created = await api.request(
      ALERTS,
      json({ name: 'ON energy', query: { search: 'energy', eligibleProvinces: ['ONTARIO'] }, url: hooks.url }),
    );
    expect(created.status, created.text).to.equal(201);
    const secret = created.body.data.secret as string;
    // Let the matcher take its first position before the changes come.
    await new Promise((r) => setTimeout(r, 300));
    // g-3 enters; g-1 changes within; g-2 (Quebec) changes but never matched: nothing.
    await indexer(
      ['sync'],
      [
        ontario('g-1', { title: 'Clean energy g-1 renewed', updatedAt: '2026-03-01T00:00:00.000Z' }),
        grantRecord('g-2', {
          eligibleProvinces: ['QUEBEC'],
          title: 'Quebec energy',
          updatedAt: '2026-03-01T00:00:00.000Z',
        }),
        ontario('g-3'),
      ],
    );
    await until('two events', () => hooks.got.length >= 2);
    // g-1 leaves (now Quebec only); g-3 changes within (updated).
    const g2 = grantRecord('g-2', {
      eligibleProvinces: ['QUEBEC'],
      title: 'Quebec energy',
      updatedAt: '2026-03-01T00:00:00.000Z',
    });
    const g1Quebec = ontario('g-1', { eligibleProvinces: ['QUEBEC'], updatedAt: '2026-03-02T00:00:00.000Z' });
    await indexer(['sync'], [g1Quebec, g2, ontario('g-3', { amountMax: 5000, updatedAt: '2026-03-02T00:00:00.000Z' })]);
    await until('four events', () => hooks.got.length >= 4);
    // g-3 deleted (pruned).
    await indexer(['sync', '--prune'], [g1Quebec, g2]);
    await until('five events', () => hooks.got.length >= 5);
    await new Promise((r) => setTimeout(r, 300));
    const seen = events().map((e) => `${e.type} ${e.data.grant.id} ${e.data.reason}`);
    expect(seen).to.have.length(5);
    // g-1 matched before the alert existed: its first change inside the results is news to the alert (matched), not an
    // update.
    expect(seen.filter((s) => s.includes('g-1'))).to.deep.equal([
      'grant.matched g-1 null',
      'grant.unmatched g-1 no_longer_matches',
    ]);
    expect(seen.filter((s) => s.includes('g-3'))).to.deep.equal([
      'grant.matched g-3 null',
      'grant.updated g-3 null',
      'grant.unmatched g-3 deleted',
    ]);
    expect(seen.some((s) => s.includes('g-2'))).to.equal(false);
    // Each event says what its change did: the update the fields it changed, as the grant's history says; an addition
    // or deletion none.
    const changesOf = (type: string, id: string) =>
      events().find((e) => e.type === type && e.data.grant.id === id)!.data.changes;
    const updated = changesOf('grant.updated', 'g-3');
    expect(updated).to.deep.equal([
      { field: 'amountMax', from: null, to: 5000 },
      { field: 'updatedAt', from: ontario('g-3').updatedAt, to: '2026-03-02T00:00:00.000Z' },
    ]);
    const history = await api.request(`${API_PREFIX}/grants/g-3/history`);
    expect(history.body.data.map((v: { type: string }) => v.type)).to.deep.equal(['deleted', 'updated', 'created']);
    expect(history.body.data[1].changes).to.deep.equal(updated);
    expect(changesOf('grant.matched', 'g-3')).to.equal(null);
    expect(changesOf('grant.unmatched', 'g-3')).to.equal(null);
    // A grant.matched links to the grant's similar grants, a path the API answers; the other events carry no links.
    const matchedG1 = events().find((e) => e.type === 'grant.matched' && e.data.grant.id === 'g-1')!;
    expect(matchedG1.data.links).to.deep.equal({
      similar: { href: `${API_PREFIX}/grants/g-1/similar`, title: 'The grants most like this one' },
    });
    const similar = await api.request(matchedG1.data.links!.similar.href);
    expect(similar.status, similar.text).to.equal(200);
    expect(similar.body.data.map((g: { id: string }) => g.id)).to.not.include('g-1');
    expect(events().filter((e) => e.type !== 'grant.matched' && 'links' in e.data)).to.deep.equal([]);
    const wh = new Webhook(secret);
    for (const r of hooks.got) {
      expect(() =>
        wh.verify(r.body, {
          'webhook-id': r.headers['webhook-id'] as string,
          'webhook-timestamp': r.headers['webhook-timestamp'] as string,
          'webhook-signature': r.headers['webhook-signature'] as string,
        }),
      ).to.not.throw();
    }
    const matched = events().find((e) => e.type === 'grant.matched' && e.data.grant.id === 'g-3')!;
    expect(matched.data.grant.title).to.equal('Clean energy g-3');
    const renewed = events().find((e) => e.data.grant.id === 'g-1')!;
    expect(renewed.data.grant.title).to.equal('Clean energy g-1 renewed');
    const log = await api.request(`${ALERTS}/${created.body.data.id}/deliveries`);
    expect(log.body.data).to.have.length(5);
    expect(log.body.data.every((d: { status: string }) => d.status === 'DELIVERED')).to.equal(true);
  });

  it('typos=auto in the query matches as GET /grants does: a misspelt search finds the grant, the same search without typos does not', async () => {
    hooks = await webhookReceiver();
    await indexer(
      ['reindex'],
      [ontario('g-1'), grantRecord('g-2', { title: 'Broadband for farms', eligibleProvinces: ['QUEBEC'] })],
    );
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const typo = await api.request(
      ALERTS,
      json({ name: 'typos', query: { search: 'brodband', typos: 'auto' }, url: hooks.url }),
    );
    expect(typo.status, typo.text).to.equal(201);
    expect(typo.body.data.query).to.deep.equal({ search: 'brodband', typos: 'auto' });
    const exact = await api.request(ALERTS, json({ name: 'as typed', query: { search: 'brodband' }, url: hooks.url }));
    expect(exact.status, exact.text).to.equal(201);
    const bad = await api.request(ALERTS, {
      ...json({ name: 'bad', query: { search: 'brodband', typos: 'sometimes' }, url: hooks.url }),
      invalidRequest: true,
    });
    expect(bad.status).to.equal(400);
    await new Promise((r) => setTimeout(r, 300));
    await indexer(
      ['sync'],
      [
        ontario('g-1'),
        grantRecord('g-2', { title: 'Broadband for farms', eligibleProvinces: ['QUEBEC'] }),
        grantRecord('g-3', { title: 'Rural broadband', eligibleProvinces: ['QUEBEC'] }),
      ],
    );
    await until('one event', () => hooks.got.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(events().map((e) => `${e.type} ${e.data.grant.id}`)).to.deep.equal(['grant.matched g-3']);
    const search = await api.request(`${API_PREFIX}/grants?search=brodband&typos=auto&fields=id`);
    expect(search.body.data.map((g: { id: string }) => g.id)).to.have.members(['g-2', 'g-3']);
    const deliveries = await api.request(`${ALERTS}/${typo.body.data.id}/deliveries`);
    expect(deliveries.body.data).to.have.length(1);
  });

  it('matching and synonyms in the query match as GET /grants does: relaxed from the end or by frequency, synonyms on unless turned off', async () => {
    hooks = await webhookReceiver();
    const capacity = (id: string, title: string) =>
      grantRecord(id, { title, description: 'Capacity building.', eligibleProvinces: ['QUEBEC'] });
    await indexer(
      ['reindex'],
      [ontario('g-1'), capacity('g-2', 'Capacity for charities'), capacity('g-3', 'Capacity for artists')],
    );
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const alerts: Record<string, Record<string, unknown>> = {
      // "capacity" in every grant of the change, "artists" in one: last keeps capacity, frequency keeps artists.
      last: { search: 'capacity artists', matching: 'last' },
      frequency: { search: 'capacity artists', matching: 'frequency' },
      all: { search: 'capacity artists' },
      synonyms: { search: 'nonprofit' },
      literal: { search: 'nonprofit', synonyms: false },
    };
    const ids: Record<string, string> = {};
    for (const [name, query] of Object.entries(alerts)) {
      const created = await api.request(ALERTS, json({ name, query, url: hooks.url }));
      expect(created.status, created.text).to.equal(201);
      expect(created.body.data.query).to.deep.equal(query);
      ids[created.body.data.id] = name;
    }
    const bad = await api.request(ALERTS, {
      ...json({ name: 'bad', query: { search: 'x', matching: 'some' }, url: hooks.url }),
      invalidRequest: true,
    });
    expect(bad.status).to.equal(400);
    await new Promise((r) => setTimeout(r, 300));
    await indexer(
      ['sync'],
      [
        ontario('g-1'),
        capacity('g-2', 'Capacity for charities'),
        capacity('g-3', 'Capacity for artists'),
        capacity('g-4', 'Capacity for not-for-profit groups'),
      ],
    );
    await until('two events', () => hooks.got.length >= 2);
    await new Promise((r) => setTimeout(r, 500));
    const got = hooks.got.map(
      (r) => JSON.parse(r.body) as { type: string; data: { alert: { id: string }; grant: { id: string } } },
    );
    expect(got.map((e) => `${ids[e.data.alert.id]} ${e.type} ${e.data.grant.id}`).sort()).to.deep.equal([
      'last grant.matched g-4',
      'synonyms grant.matched g-4',
    ]);
    // GET /grants says the same.
    const found = async (query: string) =>
      (await api!.request(`${API_PREFIX}/grants?${query}&fields=id`)).body.data.map((g: { id: string }) => g.id);
    expect(await found('search=capacity+artists&matching=last')).to.include('g-4');
    expect(await found('search=capacity+artists&matching=frequency')).to.deep.equal(['g-3']);
    expect(await found('search=nonprofit')).to.deep.equal(['g-4']);
    expect(await found('search=nonprofit&synonyms=false')).to.deep.equal([]);
  });

  it('a receiver that fails twice then succeeds gets three attempts with one webhook-id; rotation signs with both secrets', async () => {
    hooks = await webhookReceiver((n) => [500, 503][n - 1] ?? 200);
    await indexer(['reindex'], [ontario('g-1')]);
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const created = await api.request(ALERTS, json({ name: 'x', query: {}, url: hooks.url }));
    const id = created.body.data.id as string;
    const test = await api.request(`${ALERTS}/${id}/test`, { method: 'POST' });
    expect(test.status, test.text).to.equal(202);
    await until('three attempts', () => hooks.got.length >= 3);
    expect(new Set(hooks.got.map((r) => r.headers['webhook-id'])).size).to.equal(1);
    expect(hooks.got[0].headers['webhook-id']).to.equal(test.body.data.id);
    const log = await api.request(`${ALERTS}/${id}/deliveries`);
    expect(log.body.data[0]).to.deep.include({
      id: test.body.data.id,
      status: 'DELIVERED',
      attempts: 3,
      type: 'alert.test',
    });
    const oldSecret = created.body.data.secret as string;
    const rotated = await api.request(`${ALERTS}/${id}/secret`, { method: 'POST' });
    expect(rotated.status, rotated.text).to.equal(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).to.not.equal(oldSecret);
    await api.request(`${ALERTS}/${id}/test`, { method: 'POST' });
    await until('the test after rotation', () => hooks.got.length >= 4);
    const last = hooks.got[3];
    expect(String(last.headers['webhook-signature']).split(' ')).to.have.length(2);
    const headers = {
      'webhook-id': last.headers['webhook-id'] as string,
      'webhook-timestamp': last.headers['webhook-timestamp'] as string,
      'webhook-signature': last.headers['webhook-signature'] as string,
    };
    expect(() => new Webhook(oldSecret).verify(last.body, headers)).to.not.throw();
    expect(() => new Webhook(newSecret).verify(last.body, headers)).to.not.throw();
    // Redelivery of a delivered message: same webhook-id.
    const retried = await api.request(`${ALERTS}/${id}/deliveries/${test.body.data.id}/retry`, { method: 'POST' });
    expect(retried.status, retried.text).to.equal(202);
    await until('the redelivery', () => hooks.got.length >= 5);
    expect(hooks.got[4].headers['webhook-id']).to.equal(test.body.data.id);
  });
}
