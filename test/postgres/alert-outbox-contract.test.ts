// The alerts outbox contract: claims, releases and recorded attempts, the same cases against both
// adapters of src/alerts/store.ts (the SQLite file and a real PostgreSQL database created for the
// run). "Two deliverers" are two stores opened on one database, as two API processes would open it.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { PgAlertStore } from '../../src/alerts/postgres/alertStore.js';
import { newSecretsKey, SecretBox } from '../../src/alerts/secrets.js';
import { SqliteAlertStore } from '../../src/alerts/sqlite/alertStore.js';
import type { AlertStore, AttemptRecord, DueMessage } from '../../src/alerts/store.js';
import { FAILURES_BEFORE_DISABLE } from '../../src/alerts/model.js';
import { createLogger } from '../../src/log.js';
import { openPgStore, type PgStore } from '../../src/subscriptions/postgres/store.js';
import { openSqliteStore, type SqliteStore } from '../../src/subscriptions/sqlite/store.js';
import type { SubscriptionsStore } from '../../src/subscriptions/port.js';
import { tempDir } from '../support/api.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';

const log = createLogger('silent');
const CLAIM_MS = 30_000;

interface Backend {
  setUp(): Promise<void>;
  /** Opens the subscriptions store and an alert store on it (again: another instance on the same database). */
  open(box: SecretBox): Promise<{ subscriptions: SubscriptionsStore; alerts: AlertStore }>;
  tearDown(): Promise<void>;
}

const delivered = (messageId: string, at: Date): AttemptRecord => ({
  messageId,
  result: { at: at.toISOString(), ok: true, statusCode: 200, error: null, durationMs: 3 },
  next: { status: 'DELIVERED', nextAttemptAt: null },
});
const failed = (messageId: string, at: Date): AttemptRecord => ({
  messageId,
  result: { at: at.toISOString(), ok: false, statusCode: 500, error: null, durationMs: 3 },
  next: { status: 'FAILED', nextAttemptAt: null },
});
const ids = (messages: DueMessage[]) => messages.map((m) => m.id);

function contract(backend: Backend): void {
  const box = SecretBox.fromKey(newSecretsKey());
  const opened: SubscriptionsStore[] = [];
  let alerts: AlertStore;
  let subscriptionId: string;
  let t0: Date;
  const open = async () => {
    const pair = await backend.open(box);
    opened.push(pair.subscriptions);
    return pair.alerts;
  };
  const newAlert = async (name: string) =>
    (await alerts.create(
      subscriptionId,
      { name, query: {}, url: 'https://partner.example/hook', events: ['grant.matched'], closingReminderDays: null },
      'whsec_secret',
      t0,
      1000,
    ))!;
  const enqueue = async (alertId: string, grantId: string | null, n = 1) => {
    const made: string[] = [];
    for (let i = 0; i < n; i++)
      made.push((await alerts.enqueue({ alertId, grantId, type: 'grant.matched', payload: `{"n":${i}}` }, t0)).id);
    return made;
  };
  const later = (ms: number) => new Date(t0.getTime() + ms);

  beforeEach(async () => {
    await backend.setUp();
    t0 = new Date(Date.now() - 60_000);
    alerts = await open();
    subscriptionId = (await opened[0].subscriptions.create({ name: 'outbox', tier: 'ENTERPRISE' })).subscription.id;
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await backend.tearDown();
  });

  it('claims the earliest due messages, one per alert and grant at a time, each once until it is recorded', async () => {
    const alert = await newAlert('a');
    const [g1first, g1second] = await enqueue(alert.id, 'g-1', 2);
    const [g2] = await enqueue(alert.id, 'g-2');
    const [test] = await enqueue(alert.id, null);
    const first = await alerts.claimDue(later(1000), 10, CLAIM_MS);
    // g-1's second message waits for its first; the others go, in the outbox's order.
    expect(ids(first)).to.deep.equal([g1first, g2, test]);
    expect(first[0].secrets).to.deep.equal(['whsec_secret']);
    expect(first[0].url).to.equal('https://partner.example/hook');
    expect(await alerts.claimDue(later(1000), 10, CLAIM_MS), 'claimed ones are not claimed again').to.deep.equal([]);
    await alerts.recordAttempts([delivered(g1first, later(1000))], FAILURES_BEFORE_DISABLE);
    expect(ids(await alerts.claimDue(later(1000), 10, CLAIM_MS))).to.deep.equal([g1second]);
    // A claim that ran out (its deliverer died) makes the message due again.
    expect(ids(await alerts.claimDue(later(1000 + CLAIM_MS + 1), 10, CLAIM_MS))).to.deep.equal([g1second, g2, test]);
  });

  it('a released claim is due again at once; a delivered message never is', async () => {
    const alert = await newAlert('a');
    const made = [
      ...(await enqueue(alert.id, 'g-1')),
      ...(await enqueue(alert.id, 'g-2')),
      ...(await enqueue(alert.id, 'g-3')),
    ];
    const claimed = await alerts.claimDue(later(1000), 10, CLAIM_MS);
    expect(ids(claimed)).to.deep.equal(made);
    await alerts.recordAttempts([delivered(made[0], later(1000))], FAILURES_BEFORE_DISABLE);
    await alerts.releaseClaims(made);
    expect(ids(await alerts.claimDue(later(1000), 10, CLAIM_MS))).to.deep.equal(made.slice(1));
  });

  it('finds what can go behind more messages than a claim looks at that cannot (a paused alert first in the outbox)', async () => {
    const paused = await newAlert('paused');
    await enqueue(paused.id, null, 300);
    await alerts.update(subscriptionId, paused.id, { status: 'PAUSED' }, t0);
    const active = await newAlert('active');
    const [waiting] = await enqueue(active.id, 'g-1');
    expect(ids(await alerts.claimDue(later(1000), 4, CLAIM_MS))).to.deep.equal([waiting]);
  });

  it('two deliverers claiming at once never hold the same message', async () => {
    const other = await open();
    const made: string[] = [];
    for (let a = 0; a < 4; a++) {
      const alert = await newAlert(`a${a}`);
      for (let g = 0; g < 25; g++) made.push(...(await enqueue(alert.id, `g-${g}`)));
    }
    const seen = new Map<string, number>();
    for (let round = 0; round < 20 && seen.size < made.length; round++) {
      const batches = await Promise.all(
        [alerts, other, alerts, other].map((s) => s.claimDue(later(1000), 8, CLAIM_MS)),
      );
      for (const m of batches.flat()) seen.set(m.id, (seen.get(m.id) ?? 0) + 1);
    }
    expect(
      [...seen.values()].filter((n) => n > 1),
      'messages claimed twice',
    ).to.deep.equal([]);
    expect([...seen.keys()].sort()).to.deep.equal([...made].sort());
  });

  it(`an alert whose last ${FAILURES_BEFORE_DISABLE} finished messages all failed is disabled; one delivery among them keeps it active`, async () => {
    const kept = await newAlert('kept');
    const lost = await newAlert('lost');
    const keptIds = await enqueue(kept.id, null, FAILURES_BEFORE_DISABLE);
    const lostIds = await enqueue(lost.id, null, FAILURES_BEFORE_DISABLE);
    await alerts.recordAttempts(
      [delivered(keptIds[0], later(1000)), ...keptIds.slice(1).map((id) => failed(id, later(2000)))],
      FAILURES_BEFORE_DISABLE,
    );
    await alerts.recordAttempts(
      lostIds.slice(0, -1).map((id) => failed(id, later(1000))),
      FAILURES_BEFORE_DISABLE,
    );
    expect((await alerts.get(subscriptionId, lost.id))!.status, 'one failure short').to.equal('ACTIVE');
    await alerts.recordAttempts([failed(lostIds.at(-1)!, later(3000))], FAILURES_BEFORE_DISABLE);
    const disabled = (await alerts.get(subscriptionId, lost.id))!;
    expect(disabled.status).to.equal('DISABLED');
    expect(disabled.disabledReason)
      .to.be.a('string')
      .and.match(new RegExp(String(FAILURES_BEFORE_DISABLE)));
    expect((await alerts.get(subscriptionId, kept.id))!.status).to.equal('ACTIVE');
    const log = await alerts.deliveries(lost.id, null, 100);
    expect(log.map((d) => d.status)).to.deep.equal(Array(FAILURES_BEFORE_DISABLE).fill('FAILED'));
    expect(log[0].attempts).to.equal(1);
  });
}

describe('contract: alerts outbox', () => {
  describe('SQLite adapter', () => {
    let dir: string;
    contract({
      async setUp() {
        dir = tempDir('outbox-contract');
      },
      async open(box) {
        const subscriptions = await openSqliteStore(dir, { log, retentionDays: 400 });
        return { subscriptions, alerts: new SqliteAlertStore((subscriptions as SqliteStore).db, box) };
      },
      async tearDown() {
        rmSync(dir, { recursive: true, force: true });
      },
    });
  });

  describeWithPostgres('PostgreSQL adapter', () => {
    let database: TestDatabase;
    contract({
      async setUp() {
        database = await createTestDatabase('outbox');
      },
      async open(box) {
        const subscriptions = await openPgStore(database.url, { log, retentionDays: 400, poolSize: 4 });
        return { subscriptions, alerts: new PgAlertStore((subscriptions as PgStore).pool, box) };
      },
      async tearDown() {
        await database.drop();
      },
    });
  });
});
