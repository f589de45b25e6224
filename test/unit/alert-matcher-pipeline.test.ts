// The matcher decides a batch while the previous batch's commit is still running (matchNext):
// what that batch told and forgot must count for the next, committed or not, and a lost commit
// must discard the batch decided after it. A real SQLite alerts store whose commits are held back
// on demand, and a change log given by the test.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { generateGrants } from '../../fixtures/generate.js';
import { AlertMatcher } from '../../src/alerts/matcher.js';
import { newSecretsKey, SecretBox } from '../../src/alerts/secrets.js';
import { SqliteAlertStore } from '../../src/alerts/sqlite/alertStore.js';
import type { AlertStore, MatchedBatch } from '../../src/alerts/store.js';
import type { Grant } from '../../src/grants/schema.js';
import { compileAlertQuery } from '../../src/http/parameters/alertBody.js';
import { createLogger } from '../../src/log.js';
import type { ChangeEntryJson, ChangesPage } from '../../src/search/changes.js';
import { BatchTextMatcher } from '../../src/search/sqlite/query/batchTextMatcher.js';
import { openSqliteStore, type SqliteStore } from '../../src/subscriptions/sqlite/store.js';
import { tempDir } from '../support/api.js';

const log = createLogger('silent');

describe('alert matcher: a batch decided while the one before commits', () => {
  let dir: string;
  let opened: SqliteStore;
  let store: AlertStore;
  let release: (() => void) | null;
  let lose = false;
  const entries: ChangeEntryJson[] = [];
  const LOG = 'log-1';
  const engine = {
    async changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
      const after = entries.filter((e) => e.seq > afterSeq).slice(0, limit + 1);
      return { state: { log: LOG, counter: entries.at(-1)?.seq ?? 0, horizon: 0 }, entries: after };
    },
    async getByIdJson() {
      return null;
    },
    // Asked only for the counts of a matching=frequency alert, which this suite has none of.
    async searchJson(): Promise<never> {
      throw new Error('no search expected');
    },
  };
  const change = (grant: Grant | null, id: string): void => {
    entries.push({
      seq: entries.length + 1,
      id,
      deleted: grant === null,
      changedAt: new Date().toISOString(),
      grantJson: grant === null ? null : JSON.stringify(grant),
      changesJson: null,
    });
  };

  beforeEach(async () => {
    dir = tempDir('matcher-pipeline');
    opened = (await openSqliteStore(dir, { log, retentionDays: 400 })) as SqliteStore;
    const sqlite = new SqliteAlertStore(opened.db, SecretBox.fromKey(newSecretsKey()));
    release = null;
    lose = false;
    // Commits wait for the test's go when `hold` is set; a lost commit answers false as a moved position would.
    store = Object.assign(Object.create(sqlite) as AlertStore, {
      async commitBatch(batch: MatchedBatch, at: Date) {
        if (release === null) await new Promise<void>((resolve) => (release = resolve));
        if (lose) return false;
        return sqlite.commitBatch(batch, at);
      },
    });
    entries.length = 0;
  });
  afterEach(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const setUp = async () => {
    const subscriptionId = (await opened.subscriptions.create({ name: 'pipeline', tier: 'ENTERPRISE' })).subscription
      .id;
    const grant = [...generateGrants(1, 7)][0];
    const matcher = new AlertMatcher({
      engine,
      store,
      compile: compileAlertQuery,
      text: new BatchTextMatcher(),
      clock: () => new Date(),
      log,
      batchSize: 1,
    });
    // The first call only places the matcher at the head of the (empty) change log.
    release = () => undefined;
    await matcher.matchOnce();
    release = null;
    const alert = (await store.create(
      subscriptionId,
      {
        name: 'one grant',
        query: { eligibleProvinces: [...grant.eligibleProvinces] },
        url: 'https://partner.example/hook',
        events: ['grant.matched', 'grant.updated', 'grant.unmatched'],
        closingReminderDays: null,
      },
      'whsec_x',
      new Date(Date.now() - 1000),
      1000,
    ))!;
    return { matcher, grant, alert };
  };
  const types = async (alertId: string) => (await store.deliveries(alertId, null, 100)).reverse().map((d) => d.type);

  it('a grant matched in a batch whose commit is pending, then deleted in the next: unmatched follows matched', async () => {
    const { matcher, grant, alert } = await setUp();
    change(grant, grant.id);
    change(null, grant.id);
    const first = await matcher.matchNext();
    expect(first.events, 'grant.matched decided').to.equal(1);
    // Batch 2 is decided while batch 1 still waits for its commit; it commits once batch 1 has.
    const second = matcher.matchNext();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await types(alert.id), 'nothing written before the first commit').to.deep.equal([]);
    release!();
    expect((await second).events, 'grant.unmatched decided from the pending batch').to.equal(1);
    expect(await matcher.settle()).to.equal(true);
    expect(await types(alert.id)).to.deep.equal(['grant.matched', 'grant.unmatched']);
    expect((await store.matcherPosition()).seq).to.equal(2);
  });

  it('a lost commit discards the batch decided after it; the next call starts again from the stored position', async () => {
    const { matcher, grant, alert } = await setUp();
    change(grant, grant.id);
    change({ ...grant, title: `${grant.title} (revised)` }, grant.id);
    await matcher.matchNext();
    lose = true;
    const second = matcher.matchNext();
    release!();
    expect((await second).changes, 'discarded').to.equal(0);
    expect(await types(alert.id)).to.deep.equal([]);
    lose = false;
    const again = await matcher.matchOnce();
    expect(again.changes).to.equal(1);
    expect(await matcher.matchOnce()).to.include({ changes: 1, events: 1 });
    expect(await types(alert.id)).to.deep.equal(['grant.matched', 'grant.updated']);
  });
});
