// Alert delivery under failure: a suspended subscription, a receiver that hangs, order per grant
// under retries, the SSRF check of resolved names, and SIGKILL of the API mid-matching and
// mid-delivery (a real process, a real receiver): nothing lost, nothing sent twice but by its webhook-id.
import { expect } from 'chai';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { runAdmin } from '../../src/cli/admin.js';
import { checkTarget, TargetRefused } from '../../src/alerts/targets.js';
import { runIndexer } from '../../indexer/cli.js';
import { REPO_ROOT, startTestApi, tempDir, type TestApi } from '../support/api.js';
import { API_PREFIX, captureCli, grantRecord, writeNdjson, type GrantRecord } from '../support/catalog.js';
import { freePort, launch, until as waitUntil, type Launched } from '../support/processes.js';
import { webhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { checkedExchange } from '../support/checkedFetch.js';

const ALERTS = `${API_PREFIX}/alerts`;

const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> =>
  waitUntil(what, check, timeoutMs);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
const grant = (id: string, overrides: GrantRecord = {}) =>
  grantRecord(id, { title: `Clean energy ${id}`, eligibleProvinces: ['ONTARIO'], ...overrides });

describe('alerts: delivery under failure', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let api: TestApi | undefined;
  let hooks: WebhookReceiver | undefined;
  let step = 0;
  const indexer = async (args: string[], records: readonly GrantRecord[]) => {
    const source = ['--source', writeNdjson(env.DATA_DIR, `source-${++step}.ndjson`, records)];
    const run = await captureCli((io) =>
      runIndexer([...args, ...source], { ...process.env, ...env, LOG_LEVEL: 'silent' }, io),
    );
    expect(run.code, run.err.join('\n')).to.equal(0);
  };
  /** An API on a catalog of g-1, an alert on every grant, and the matcher past the catalog's history. */
  const setUp = async (extra: Record<string, string> = {}) => {
    await indexer(['reindex'], [grant('g-1')]);
    api = await startTestApi({ ...env, ...extra, SEED_CATALOG: 'false' });
    const created = await api.request(ALERTS, post({ name: 'all', query: {}, url: hooks!.url }));
    expect(created.status, created.text).to.equal(201);
    await sleep(300);
    return created.body.data.id as string;
  };

  beforeEach(() => {
    env = {
      SEARCH_ENGINE: 'sqlite',
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
    hooks = undefined;
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it("a suspended subscription's events wait, then arrive when it is active again", async () => {
    hooks = await webhookReceiver();
    await setUp();
    api!.deps.subscriptions.setStatus(api!.subscriptionId, 'SUSPENDED');
    await indexer(['sync'], [grant('g-1'), grant('g-2')]);
    await sleep(1000);
    expect(hooks.got).to.have.length(0);
    api!.deps.subscriptions.setStatus(api!.subscriptionId, 'ACTIVE');
    await until('the waiting event', () => hooks!.got.length === 1);
    expect(hooks.events()[0]).to.deep.include({ type: 'grant.matched' });
    expect(hooks.events()[0].data.grant!.id).to.equal('g-2');
  });

  it('a receiver that hangs: the attempt times out and is retried with the same webhook-id', async () => {
    hooks = await webhookReceiver((n) => (n === 1 ? 'hang' : 200));
    const alertId = await setUp({ WEBHOOK_TIMEOUT_MS: '300' });
    await indexer(['sync'], [grant('g-1'), grant('g-2')]);
    await until('the retry', () => hooks!.got.length === 2);
    expect(hooks.got[0].headers['webhook-id']).to.equal(hooks.got[1].headers['webhook-id']);
    await until(
      'delivered',
      async () => (await api!.request(`${ALERTS}/${alertId}/deliveries`)).body.data[0].status === 'DELIVERED',
    );
    const [delivery] = (await api!.request(`${ALERTS}/${alertId}/deliveries`)).body.data;
    expect(delivery.attempts).to.equal(2);
  });

  it("one grant's events arrive in change order while the first is retried; the delivery log shows each failure", async () => {
    hooks = await webhookReceiver((n) => (n <= 2 ? 500 : 200));
    const alertId = await setUp();
    await indexer(['sync'], [grant('g-1'), grant('g-2')]);
    await until('the first attempt', () => hooks!.got.length >= 1);
    await indexer(['sync'], [grant('g-1'), grant('g-2', { amountMax: 1000, updatedAt: '2026-03-01T00:00:00.000Z' })]);
    await until('both delivered', () => hooks!.got.length >= 4);
    await sleep(300);
    expect(hooks.events().map((e) => e.type)).to.deep.equal([
      'grant.matched',
      'grant.matched',
      'grant.matched',
      'grant.updated',
    ]);
    const log = (await api!.request(`${ALERTS}/${alertId}/deliveries`)).body.data as {
      type: string;
      attempts: number;
      status: string;
      lastAttempt: { statusCode: number };
    }[];
    expect(log.map((d) => [d.type, d.status, d.attempts])).to.deep.equal([
      ['grant.updated', 'DELIVERED', 1],
      ['grant.matched', 'DELIVERED', 3],
    ]);
  });

  it('grant.closing: once per grant and deadline when a followed grant comes within the reminder days; a moved deadline reminds again', async () => {
    hooks = await webhookReceiver();
    const soon = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '.000Z');
    await indexer(['reindex'], [grant('g-1')]);
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const created = await api.request(
      ALERTS,
      post({ name: 'closing', query: {}, url: hooks.url, closingReminderDays: 7 }),
    );
    expect(created.body.data.events).to.include('grant.closing');
    await sleep(300);
    // g-2 enters with a deadline 30 days away (no reminder yet); g-3 with one 3 days away.
    await indexer(['sync'], [grant('g-1'), grant('g-2', { deadline: soon(30) }), grant('g-3', { deadline: soon(3) })]);
    await until('the reminder of g-3', () => hooks!.events().some((e) => e.type === 'grant.closing'), 30_000);
    await sleep(3500); // more sweeps: no second reminder for the same deadline
    const closing = () =>
      hooks!
        .events()
        .filter((e) => e.type === 'grant.closing')
        .map((e) => e.data.grant!.id);
    expect(closing()).to.deep.equal(['g-3']);
    // g-3's deadline moves (still within 7 days): one more reminder.
    await indexer(
      ['sync'],
      [
        grant('g-1'),
        grant('g-2', { deadline: soon(30) }),
        grant('g-3', { deadline: soon(5), updatedAt: '2026-03-01T00:00:00.000Z' }),
      ],
    );
    await until('the second reminder', () => closing().length === 2, 30_000);
    expect(closing()).to.deep.equal(['g-3', 'g-3']);
  });

  it('an alert whose last 20 messages all FAILED is DISABLED with a reason; PATCH status=ACTIVE resumes it', async () => {
    hooks = await webhookReceiver(() => 500);
    const alertId = await setUp({ WEBHOOK_RETRY_SCHEDULE: '10ms', METRICS_PUBLIC: 'true' });
    await indexer(['sync'], [grant('g-1'), ...Array.from({ length: 20 }, (_, i) => grant(`n-${i}`))]);
    await until(
      'disabled',
      async () => (await api!.request(`${ALERTS}/${alertId}`)).body.data.status === 'DISABLED',
      60_000,
    );
    const alert = (await api!.request(`${ALERTS}/${alertId}`)).body.data;
    expect(alert.disabledReason).to.match(/20 messages/);
    const resumed = await api!.request(`${ALERTS}/${alertId}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'ACTIVE' }),
    });
    expect(resumed.body.data).to.deep.include({ status: 'ACTIVE', disabledReason: null });
    const metrics = (await api!.request('/metrics', { key: null })).text;
    expect(metrics).to.match(/grants_webhook_attempts_total\{outcome="failed"\} (\d+)/);
    expect(Number(/grants_webhook_attempts_total\{outcome="failed"\} (\d+)/.exec(metrics)![1])).to.be.at.least(20);
    expect(metrics).to.match(/grants_webhook_outbox_depth \d+/);
    expect(metrics).to.match(/grants_alert_matcher_lag_seconds \d+/);
    expect(metrics).to.not.contain(alertId);
  });

  it('secrets at rest: sealed in the database, key file 0600; grants-admin secrets rotate re-seals them and the running API still signs with the same secret', async () => {
    hooks = await webhookReceiver();
    await indexer(['reindex'], [grant('g-1')]);
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const created = await api.request(ALERTS, post({ name: 'sealed', query: {}, url: hooks.url }));
    const { id, secret } = created.body.data as { id: string; secret: string };
    const keyFile = path.join(env.DATA_DIR, 'secrets.key');
    expect(statSync(keyFile).mode & 0o777).to.equal(0o600);
    const stored = () => api!.deps.store.db.prepare('SELECT secret FROM alerts WHERE id = ?').pluck().get(id) as string;
    const before = stored();
    expect(before).to.match(/^v1\./);
    expect(before).to.not.contain(secret.slice(6));
    const out: string[] = [];
    const code = await runAdmin(
      ['secrets', 'rotate', '--data-dir', env.DATA_DIR],
      { ...process.env, DATABASE_URL: '' },
      { out: (l) => out.push(l), err: (l) => out.push(l) },
    );
    expect(code, out.join('\n')).to.equal(0);
    expect(out.join('\n'))
      .to.match(/re-sealed the signing secrets of 1 alert/)
      .and.not.contain('whsec_');
    expect(stored()).to.not.equal(before);
    expect(existsSync(`${keyFile}.previous`)).to.equal(true);
    expect(readFileSync(keyFile, 'utf8')).to.not.equal(readFileSync(`${keyFile}.previous`, 'utf8'));
    await api!.request(`${ALERTS}/${id}/test`, { method: 'POST' });
    await until('the test event', () => hooks!.got.length === 1);
    const r = hooks.got[0];
    expect(() =>
      new Webhook(secret).verify(r.body, {
        'webhook-id': r.headers['webhook-id'] as string,
        'webhook-timestamp': r.headers['webhook-timestamp'] as string,
        'webhook-signature': r.headers['webhook-signature'] as string,
      }),
    ).to.not.throw();
  });

  it('a host that resolves to a private address: every attempt refused, the delivery log says why and names no address', async () => {
    await indexer(['reindex'], [grant('g-1')]);
    const internal = async () => [{ address: '10.0.3.7', family: 4 }];
    api = await startTestApi(
      {
        ...env,
        WEBHOOK_ALLOW_HTTP: 'false',
        WEBHOOK_ALLOW_PRIVATE: 'false',
        WEBHOOK_RETRY_SCHEDULE: '50ms',
        SEED_CATALOG: 'false',
      },
      { resolve: internal },
    );
    const created = await api.request(
      ALERTS,
      post({ name: 'internal', query: {}, url: 'https://hooks.partner.example/x' }),
    );
    expect(created.status, created.text).to.equal(201);
    const alertId = created.body.data.id as string;
    await sleep(300);
    await indexer(['sync'], [grant('g-1'), grant('g-2')]);
    await until(
      'failed',
      async () => (await api!.request(`${ALERTS}/${alertId}/deliveries`)).body.data[0]?.status === 'FAILED',
    );
    const log = await api.request(`${ALERTS}/${alertId}/deliveries`);
    expect(log.body.data[0]).to.deep.include({ attempts: 2 });
    expect(log.body.data[0].lastAttempt).to.deep.include({
      statusCode: null,
      error: 'refused: the host "hooks.partner.example" resolves to a private address, which webhooks may not reach',
    });
    expect(log.text).to.not.contain('10.0.3.7');
    const shown = await captureCli((io) =>
      runAdmin(
        ['alerts', 'show', alertId, '--json', '--data-dir', env.DATA_DIR],
        { ...process.env, DATABASE_URL: '' },
        io,
      ),
    );
    expect(shown.code, shown.err.join('\n')).to.equal(0);
    expect(shown.out.join('\n')).to.contain('resolves to a private address').and.not.contain('10.0.3.7');
  });

  it('after the last retry a message is FAILED, with the status code of each attempt logged', async () => {
    hooks = await webhookReceiver(() => 500);
    const alertId = await setUp({ WEBHOOK_RETRY_SCHEDULE: '50ms' });
    await indexer(['sync'], [grant('g-1'), grant('g-2')]);
    await until(
      'failed',
      async () => (await api!.request(`${ALERTS}/${alertId}/deliveries`)).body.data[0]?.status === 'FAILED',
    );
    const [delivery] = (await api!.request(`${ALERTS}/${alertId}/deliveries`)).body.data;
    expect(delivery).to.deep.include({ attempts: 2, nextAttemptAt: null });
    expect(delivery.lastAttempt).to.deep.include({ statusCode: 500, error: 'answered 500' });
  });
});

describe('alerts: targets a webhook may not reach, after resolution', () => {
  const policy = { allowHttp: false, allowPrivate: false };
  const resolvesTo = (address: string) => async () => [{ address, family: address.includes(':') ? 6 : 4 }];
  it('a name that resolves to loopback, private, link-local or mapped addresses is refused; a public one is kept as the address to connect to', async () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '::1',
      '::ffff:127.0.0.1',
      'fd00::1',
      '0.0.0.0',
    ]) {
      let refused: unknown = null;
      await checkTarget('https://hooks.partner.example/x', policy, resolvesTo(address)).catch((e) => (refused = e));
      expect(refused, address).to.be.instanceOf(TargetRefused);
    }
    const ok = await checkTarget('https://hooks.partner.example/x', policy, resolvesTo('93.184.215.14'));
    expect(ok.address).to.equal('93.184.215.14');
  });
  it('any one private answer among several refuses the name (no second lookup can pick it)', async () => {
    const mixed = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ];
    let refused: unknown = null;
    await checkTarget('https://hooks.partner.example/x', policy, mixed).catch((e) => (refused = e));
    expect(refused).to.be.instanceOf(TargetRefused);
  });
});

describe('alerts: SIGKILL of the API mid-matching and mid-delivery [process]', function () {
  this.timeout(180_000);
  const DEMO_KEY = 'gk_test_alerts_sigkill_0123456789abcdefghij';
  let dataDir: string;
  let server: Launched | undefined;
  let hooks: WebhookReceiver;
  afterEach(async () => {
    server?.kill();
    await hooks?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every expected event arrives; none twice except by the same webhook-id', async () => {
    dataDir = tempDir('grants-alerts-kill-');
    hooks = await webhookReceiver(() => ({ delayMs: 40 }));
    const port = await freePort();
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SEED_CATALOG: 'false',
      DEMO_API_KEY: DEMO_KEY,
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ALERTS_POLL_MS: '50',
      WEBHOOK_CONCURRENCY: '4',
    };
    const index = async (args: string[], records: GrantRecord[], n: number) => {
      const run = await captureCli((io) =>
        runIndexer(
          [...args, '--source', writeNdjson(dataDir, `s${n}.ndjson`, records)],
          { ...env, LOG_LEVEL: 'silent' },
          io,
        ),
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
    };
    const start = async () => {
      server = launch(process.execPath, ['dist/src/main.js'], { cwd: REPO_ROOT, env });
      await server.waitFor('stdout', /grants API listening/, 60_000);
    };
    await index(['reindex'], [grant('g-0')], 0);
    await start();
    const created = await checkedExchange(`http://127.0.0.1:${port}${ALERTS}`, {
      ...post({ name: 'all', query: {}, url: hooks.url }),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${DEMO_KEY}` },
    });
    expect(created.status).to.equal(201);
    await sleep(500);
    const ids = Array.from({ length: 120 }, (_, i) => `g-${i + 1}`);
    // Mid-matching: killed right after a sync of 60 new grants.
    await index(['sync'], [grant('g-0'), ...ids.slice(0, 60).map((id) => grant(id))], 1);
    await sleep(30);
    server!.child.kill('SIGKILL');
    await server!.exited;
    await start();
    // Mid-delivery: killed while the receiver is still being called.
    await index(['sync'], [grant('g-0'), ...ids.map((id) => grant(id))], 2);
    await until(
      'some deliveries of the second sync',
      () => hooks.events().some((e) => ids.slice(60).includes(e.data.grant?.id ?? '')),
      60_000,
    );
    server!.child.kill('SIGKILL');
    await server!.exited;
    await start();
    await until(
      'every grant told once',
      () => new Set(hooks.events().map((e) => e.data.grant?.id)).size === ids.length,
      90_000,
    );
    await sleep(1000);
    const events = hooks.events();
    expect(events.every((e) => e.type === 'grant.matched')).to.equal(true);
    const idsByGrant = new Map<string, Set<string>>();
    for (const e of events) idsByGrant.set(e.data.grant!.id, (idsByGrant.get(e.data.grant!.id) ?? new Set()).add(e.id));
    expect([...idsByGrant.keys()].sort()).to.deep.equal([...ids].sort());
    for (const [grantId, messageIds] of idsByGrant)
      expect(messageIds.size, `${grantId}: one message, resent only under its webhook-id`).to.equal(1);
  });
});
