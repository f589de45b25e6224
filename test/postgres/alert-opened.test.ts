// grant.opened, on both alert stores: a forecasted grant an alert follows reaches its opensAt and
// the alert is told once; a moved opensAt tells again when the new one comes; a grant already open
// when it matched, a grant that closed before anyone looked, and an alert that did not ask for the
// event are told nothing. The matcher runs for real over a change log given by the test, with a
// clock the test moves.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { generateGrants } from '../../fixtures/generate.js';
import { AlertMatcher } from '../../src/alerts/matcher.js';
import { PgAlertStore } from '../../src/alerts/postgres/alertStore.js';
import { newSecretsKey, SecretBox } from '../../src/alerts/secrets.js';
import { SqliteAlertStore } from '../../src/alerts/sqlite/alertStore.js';
import type { AlertStore } from '../../src/alerts/store.js';
import type { EventType } from '../../src/alerts/model.js';
import type { Grant } from '../../src/grants/schema.js';
import { compileAlertQuery } from '../../src/http/parameters/alertBody.js';
import { createLogger } from '../../src/log.js';
import type { ChangeEntryJson, ChangesPage } from '../../src/search/changes.js';
import { BatchTextMatcher } from '../../src/search/sqlite/query/batchTextMatcher.js';
import { openPgStore, type PgStore } from '../../src/subscriptions/postgres/store.js';
import { openSqliteStore, type SqliteStore } from '../../src/subscriptions/sqlite/store.js';
import type { SubscriptionsStore } from '../../src/subscriptions/port.js';
import { tempDir } from '../support/api.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';

const log = createLogger('silent');
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T15:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

interface Backend {
  open(box: SecretBox): Promise<{ subscriptions: SubscriptionsStore; alerts: AlertStore }>;
  tearDown(): Promise<void>;
}

function openedContract(setUp: () => Promise<Backend>): void {
  let backend: Backend;
  let subscriptions: SubscriptionsStore;
  let store: AlertStore;
  let now = T0;
  const entries: ChangeEntryJson[] = [];
  const current = new Map<string, Grant>();
  const engine = {
    async changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
      return {
        state: { log: 'log-1', counter: entries.at(-1)?.seq ?? 0, horizon: 0 },
        entries: entries.filter((e) => e.seq > afterSeq).slice(0, limit + 1),
      };
    },
    async getByIdJson(id: string) {
      const grant = current.get(id);
      return grant === undefined ? null : JSON.stringify(grant);
    },
    // Asked only for the counts of a matching=frequency alert, which this suite has none of.
    async searchJson(): Promise<never> {
      throw new Error('no search expected');
    },
  };
  /** The grant enters (or changes in) the catalog now. */
  const change = (grant: Grant): void => {
    current.set(grant.id, grant);
    entries.push({
      seq: entries.length + 1,
      id: grant.id,
      deleted: false,
      changedAt: iso(now),
      grantJson: JSON.stringify(grant),
      changesJson: null,
    });
  };
  const [template] = [...generateGrants(1, 11)];
  const grant = (id: string, opensAt: number | null, deadline: number): Grant => ({
    ...template,
    id,
    opensAt: opensAt === null ? null : iso(opensAt),
    deadline: iso(deadline),
    createdAt: iso(T0 - 100 * HOUR),
    updatedAt: iso(now),
  });
  let matcher: AlertMatcher;
  const sent = async (alertId: string) =>
    (await store.deliveries(alertId, null, 100)).reverse().map((d) => `${d.type} ${d.grantId}`);
  /** The grant.opened messages the matcher wrote, as their payloads. */
  let opened: {
    alertId: string;
    payload: { type: string; data: { grant: { id: string; status: string; opensAt: string }; change: unknown } };
  }[];
  const newAlert = async (name: string, events: EventType[]) => {
    const subscriptionId = (await subscriptions.subscriptions.create({ name, tier: 'ENTERPRISE' })).subscription.id;
    const alert = await store.create(
      subscriptionId,
      { name, query: {}, url: 'https://partner.example/hook', events, closingReminderDays: null },
      'whsec_x',
      new Date(now - 1000),
      10,
    );
    if (alert === null) throw new Error('the alert was not created');
    return alert;
  };

  beforeEach(async () => {
    backend = await setUp();
    const pair = await backend.open(SecretBox.fromKey(newSecretsKey()));
    subscriptions = pair.subscriptions;
    const real = pair.alerts;
    opened = [];
    // The store itself, the messages of each commitOpenings seen on their way in.
    store = Object.assign(Object.create(real) as AlertStore, {
      async commitOpenings(...args: Parameters<AlertStore['commitOpenings']>) {
        for (const m of args[0]) opened.push({ alertId: m.alertId, payload: JSON.parse(m.payload) });
        return real.commitOpenings(...args);
      },
    });
    entries.length = 0;
    current.clear();
    now = T0;
    matcher = new AlertMatcher({
      engine,
      store,
      compile: compileAlertQuery,
      text: new BatchTextMatcher(),
      clock: () => new Date(now),
      log,
    });
    await matcher.matchOnce(); // places the matcher at the head of the (empty) change log
  });
  afterEach(async () => {
    await subscriptions.close();
    await backend.tearDown();
  });

  it('a followed forecasted grant that reaches its opensAt is announced once, as OPEN; a moved opensAt is announced again', async () => {
    const alert = await newAlert('opened', ['grant.matched', 'grant.updated', 'grant.opened']);
    now += 1000;
    change(grant('g-forecast', T0 + 2 * HOUR, T0 + 300 * HOUR));
    await matcher.matchOnce();
    expect(await matcher.announceOpenings()).to.equal(0);
    now = T0 + 2 * HOUR - 1; // a millisecond before: still forecasted
    expect(await matcher.announceOpenings()).to.equal(0);
    now = T0 + 2 * HOUR; // at opensAt: open
    expect(await matcher.announceOpenings()).to.equal(1);
    now += 60_000;
    expect(await matcher.announceOpenings(), 'a second sweep').to.equal(0);
    expect(await sent(alert.id)).to.deep.equal(['grant.matched g-forecast', 'grant.opened g-forecast']);
    expect(opened).to.have.length(1);
    const { payload } = opened[0];
    expect(payload.type).to.equal('grant.opened');
    expect(payload.data.grant.id).to.equal('g-forecast');
    expect(payload.data.grant.status).to.equal('OPEN');
    expect(payload.data.grant.opensAt).to.equal(iso(T0 + 2 * HOUR));
    expect(payload.data.change).to.equal(null);

    // The funder postpones the opening: forecasted again, then announced again when the new date comes.
    change(grant('g-forecast', T0 + 10 * HOUR, T0 + 300 * HOUR));
    await matcher.matchOnce();
    expect(await matcher.announceOpenings()).to.equal(0);
    now = T0 + 10 * HOUR;
    expect(await matcher.announceOpenings()).to.equal(1);
    now += 60_000;
    expect(await matcher.announceOpenings()).to.equal(0);
    expect(await sent(alert.id)).to.deep.equal([
      'grant.matched g-forecast',
      'grant.opened g-forecast',
      'grant.updated g-forecast',
      'grant.opened g-forecast',
    ]);
  });

  it('nothing for a grant open when matched, one that closed before its sweep, or an alert without the event', async () => {
    const withEvent = await newAlert('with', ['grant.matched', 'grant.opened']);
    const without = await newAlert('without', ['grant.matched']);
    now += 1000;
    change(grant('g-open', T0 - HOUR, T0 + 300 * HOUR));
    change(grant('g-brief', T0 + HOUR, T0 + HOUR + 1000));
    change(grant('g-forecast', T0 + 2 * HOUR, T0 + 300 * HOUR));
    await matcher.matchOnce();
    now = T0 + 3 * HOUR; // g-brief opened and closed between two sweeps
    expect(await matcher.announceOpenings()).to.equal(1);
    now += 60_000;
    expect(await matcher.announceOpenings()).to.equal(0);
    expect((await sent(withEvent.id)).filter((s) => s.startsWith('grant.opened'))).to.deep.equal([
      'grant.opened g-forecast',
    ]);
    expect((await sent(without.id)).filter((s) => s.startsWith('grant.opened'))).to.deep.equal([]);
  });
}

describe('alerts: grant.opened', () => {
  describe('SQLite store', () => {
    openedContract(async () => {
      const dir = tempDir('alert-opened');
      return {
        async open(box) {
          const subscriptions = await openSqliteStore(dir, { log, retentionDays: 400 });
          return { subscriptions, alerts: new SqliteAlertStore((subscriptions as SqliteStore).db, box) };
        },
        async tearDown() {
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  });

  describeWithPostgres('PostgreSQL store', () => {
    openedContract(async () => {
      const database: TestDatabase = await createTestDatabase('opened');
      return {
        async open(box) {
          const subscriptions = await openPgStore(database.url, { log, retentionDays: 400, poolSize: 4 });
          return { subscriptions, alerts: new PgAlertStore((subscriptions as PgStore).pool, box) };
        },
        async tearDown() {
          await database.drop();
        },
      };
    });
  });
});
