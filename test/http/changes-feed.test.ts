// The changes feed, GET /grants/changes, on both engines: the same suite runs over
// the embedded catalog and over a real Elasticsearch alias, driving the real grants-indexer.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { syncFromSource } from '../../indexer/pipeline.js';
import { createCatalogWriter } from '../../src/search/factory.js';
import type { TestApi } from '../support/api.js';
import {
  API_PREFIX,
  GRANTS_PATH,
  grantRecord,
  writeNdjson,
  type GrantRecord,
  startCatalogApi,
  stopCatalogApi,
} from '../support/catalog.js';
import { describeWithElasticsearch } from '../support/elasticsearch.js';
import { engineSetups, indexerRig, type EngineSetup } from '../support/indexerRig.js';

const FEED = `${API_PREFIX}/grants/changes`;

interface Entry {
  id: string;
  deleted: boolean;
  changedAt: string;
  grant: Record<string, unknown> | null;
}

/** The sequence inside a token (the test knows the format; partners treat it as opaque). */
const seqOf = (token: string): number =>
  token === '0' ? 0 : (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { s: number }).s;

const { sqlite: SQLITE, elasticsearch: ELASTICSEARCH } = engineSetups('feed');

const at = (day: number) => `2026-02-${String(day).padStart(2, '0')}T00:00:00.000Z`;
const ids = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `g-${String(from + i).padStart(2, '0')}`);

describe('changes feed [sqlite]', function () {
  feedSuite.call(this, SQLITE);
});
describeWithElasticsearch('changes feed', function () {
  feedSuite.call(this, ELASTICSEARCH);
});

function feedSuite(this: Mocha.Suite, setup: EngineSetup): void {
  this.timeout(120_000);
  const rig = indexerRig(setup);
  const { indexer, start } = rig;

  const feed = async (query: string) => {
    const answer = await rig.api!.request(`${FEED}?${query}`);
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as { data: Entry[]; pagination: { limit: number; hasMore: boolean; nextSince: string } };
  };
  /** Reads the feed from `since` until hasMore is false: every entry in order, and the token to poll with next. */
  const drain = async (since: string, limit = 100) => {
    const entries: Entry[] = [];
    let next = since;
    for (;;) {
      const page = await feed(`since=${encodeURIComponent(next)}&limit=${limit}`);
      entries.push(...page.data);
      next = page.pagination.nextSince;
      if (!page.pagination.hasMore) return { entries, next };
    }
  };
  /** The catalog the API serves: id → the grant's JSON text. */
  const catalog = async (): Promise<Map<string, string>> => {
    const served = new Map<string, string>();
    for (let page = 1; ; page++) {
      const answer = await rig.api!.request(`${GRANTS_PATH}?limit=100&page=${page}`);
      for (const grant of answer.body.data as { id: string }[]) served.set(grant.id, JSON.stringify(grant));
      if (page >= answer.body.pagination.totalPages) return served;
    }
  };
  const apply = (copy: Map<string, string>, entries: Entry[]) => {
    for (const entry of entries) {
      if (entry.deleted) copy.delete(entry.id);
      else copy.set(entry.id, JSON.stringify(entry.grant));
    }
  };

  it('since=0 walks the whole catalog once, each grant as served; a poll with nothing new keeps nextSince', async () => {
    await indexer(
      ['reindex'],
      ids(1, 12).map((id) => grantRecord(id)),
    );
    await start();
    const first = await feed('since=0&limit=5');
    expect(first.data).to.have.length(5);
    expect(first.pagination).to.deep.include({ limit: 5, hasMore: true });
    const { entries, next } = await drain('0', 5);
    expect(entries.map((e) => e.id))
      .to.have.members(ids(1, 12))
      .and.have.length(12);
    for (const entry of entries) {
      expect(entry.deleted).to.equal(false);
      expect(entry.changedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const one = await rig.api!.request(`${GRANTS_PATH}/${entry.id}`);
      expect(JSON.stringify(entry.grant)).to.equal(JSON.stringify(one.body.data));
    }
    const again = await feed(`since=${next}`);
    expect(again.data).to.deep.equal([]);
    expect(again.pagination).to.deep.equal({ limit: 100, hasMore: false, nextSince: next });
    const empty = await feed('');
    expect(empty.pagination.limit).to.equal(100);
    expect(empty.data).to.have.length(12);
    // Above the maximum, the limit is clamped to it (as on GET /grants), and pagination.limit says so.
    for (const limit of [1001, 5000, 999999999999999]) {
      const clamped = await feed(`since=0&limit=${limit}`);
      expect(clamped.pagination, String(limit)).to.deep.include({ limit: 1000, hasMore: false });
      expect(clamped.data).to.have.length(12);
    }
  });

  it('a grant changed twice between two polls appears once, at its latest version; unchanged grants keep their sequence', async () => {
    await indexer(
      ['reindex'],
      ids(1, 5).map((id) => grantRecord(id)),
    );
    await start();
    const { next } = await drain('0');
    await indexer(['sync'], [grantRecord('g-02', { updatedAt: at(2), title: 'Second title' })]);
    await indexer(['sync'], [grantRecord('g-02', { updatedAt: at(3), title: 'Third title' })]);
    // A reindex of the same content gives no new sequence; only the grant whose content differs.
    const same = ids(1, 5).map((id) =>
      id === 'g-02' ? grantRecord(id, { updatedAt: at(3), title: 'Third title' }) : grantRecord(id),
    );
    await indexer(['reindex'], same);
    const { entries } = await drain(next);
    expect(entries.map((e) => e.id)).to.deep.equal(['g-02']);
    expect(entries[0].grant).to.include({ title: 'Third title', updatedAt: at(3) });
  });

  it('a reindex compares by content: a changed grant with the same updatedAt gets a new sequence', async () => {
    await indexer(
      ['reindex'],
      ids(1, 4).map((id) => grantRecord(id)),
    );
    await start();
    const { next } = await drain('0');
    await indexer(
      ['reindex'],
      ids(1, 4).map((id) => (id === 'g-03' ? grantRecord(id, { description: 'Now described' }) : grantRecord(id))),
    );
    const { entries } = await drain(next);
    expect(entries.map((e) => [e.id, e.deleted])).to.deep.equal([['g-03', false]]);
    expect(entries[0].grant).to.include({ description: 'Now described' });
  });

  it('leaves tombstones after sync --prune and after a reindex that drops grants; a re-added id comes back', async () => {
    await indexer(
      ['reindex'],
      ids(1, 6).map((id) => grantRecord(id)),
    );
    await start();
    let { next } = await drain('0');
    await indexer(
      ['sync', '--prune'],
      ids(2, 6).map((id) => grantRecord(id)),
    );
    let changes = await drain(next);
    expect(changes.entries).to.have.length(1);
    expect(changes.entries[0]).to.include({ id: 'g-01', deleted: true, grant: null });
    expect(seqOf(changes.next)).to.be.greaterThan(seqOf(next));
    next = changes.next;
    await indexer(
      ['reindex'],
      ids(2, 5).map((id) => grantRecord(id)),
    );
    changes = await drain(next);
    expect(changes.entries.map((e) => [e.id, e.deleted, e.grant])).to.deep.equal([['g-06', true, null]]);
    next = changes.next;
    await indexer(['sync'], [grantRecord('g-01', { updatedAt: at(9) })]);
    changes = await drain(next);
    expect(changes.entries.map((e) => [e.id, e.deleted])).to.deep.equal([['g-01', false]]);
    // From the beginning: the live grants once each, and the retained tombstone of g-06.
    const all = await drain('0');
    expect(all.entries.map((e) => `${e.id}:${e.deleted}`)).to.have.members([
      'g-02:false',
      'g-03:false',
      'g-04:false',
      'g-05:false',
      'g-06:true',
      'g-01:false',
    ]);
    expect(all.entries).to.have.length(6);
  });

  it('sequences never go backwards across a restart of the API and further runs', async () => {
    await indexer(
      ['reindex'],
      ids(1, 3).map((id) => grantRecord(id)),
    );
    await start();
    const before = await drain('0');
    await rig.stop();
    await indexer(['sync', '--prune', '--allow-shrink'], [grantRecord('g-01', { updatedAt: at(4) })]);
    await start();
    const after = await drain(before.next);
    expect(after.entries.map((e) => `${e.id}:${e.deleted}`)).to.have.members(['g-01:false', 'g-02:true', 'g-03:true']);
    expect(seqOf(after.next)).to.equal(seqOf(before.next) + 3);
    const afterStatus = await feed(`since=${after.next}`);
    expect(afterStatus.data).to.deep.equal([]);
  });

  if (setup.name === 'elasticsearch') {
    it('a rollback is itself a change: the grants it changes back get new, higher sequences', async () => {
      await indexer(
        ['reindex'],
        ids(1, 4).map((id) => grantRecord(id)),
      );
      await indexer(
        ['reindex'],
        [
          ...ids(1, 3).map((id) => (id === 'g-01' ? grantRecord(id, { title: 'Edited' }) : grantRecord(id))),
          grantRecord('g-05'),
        ],
      );
      await start();
      const before = await drain('0');
      expect(before.entries.map((e) => `${e.id}:${e.deleted}`)).to.have.members([
        'g-01:false',
        'g-02:false',
        'g-03:false',
        'g-04:true',
        'g-05:false',
      ]);
      await indexer(['rollback']);
      const after = await drain(before.next);
      expect(after.entries.map((e) => `${e.id}:${e.deleted}`)).to.have.members([
        'g-01:false',
        'g-04:false',
        'g-05:true',
      ]);
      expect(seqOf(after.next)).to.equal(seqOf(before.next) + 3);
      const copy = new Map<string, string>();
      apply(copy, (await drain('0')).entries);
      expect(copy).to.deep.equal(await catalog());
    });
  }

  it('answers 410 SYNC_EXPIRED for a since older than the tombstones kept, and 400 for malformed or unknown tokens', async () => {
    await indexer(
      ['reindex'],
      ids(1, 4).map((id) => grantRecord(id)),
    );
    await start();
    const old = (await drain('0')).next;
    await indexer(
      ['sync', '--prune'],
      ids(2, 4).map((id) => grantRecord(id)),
    );
    const afterTombstone = (await drain(old)).next;
    // A run a year and more later drops the tombstone (kept CHANGES_RETENTION_DAYS, here 30).
    const config = loadConfig({ ...rig.env, CHANGES_RETENTION_DAYS: '30' });
    const later = () => new Date(Date.now() + 31 * 86_400_000);
    await syncFromSource((hooks) => createCatalogWriter(config, hooks, { clock: later }), {
      source: writeNdjson(rig.env.DATA_DIR, 'later.ndjson', [grantRecord('g-02', { updatedAt: at(20) })]),
      prune: false,
      report: () => {},
    });
    const expired = await rig.api!.request(`${FEED}?since=${old}`);
    expect(expired.status).to.equal(410);
    expect(expired.body.error.code).to.equal('SYNC_EXPIRED');
    expect(expired.body.error.message).to.match(/since=0/);
    // A token at or after the dropped tombstone still reads on; since=0 always does.
    const fine = await feed(`since=${afterTombstone}`);
    expect(fine.data.map((e) => e.id)).to.deep.equal(['g-02']);
    expect((await drain('0')).entries.map((e) => e.id)).to.have.members(ids(2, 4));

    const bad = async (query: string, parameter: string) => {
      const answer = await rig.api!.request(`${FEED}?${query}`, { invalidRequest: true });
      expect(answer.status, `${query}: ${answer.text}`).to.equal(400);
      expect(answer.body.error.code).to.equal('VALIDATION_ERROR');
      expect(answer.body.error.details.map((d: { parameter: string }) => d.parameter)).to.include(parameter);
    };
    const forged = (structure: unknown) => Buffer.from(JSON.stringify(structure)).toString('base64url');
    const log = (JSON.parse(Buffer.from(old, 'base64url').toString('utf8')) as { l: string }).l;
    await bad('since=abc', 'since');
    await bad('since=-1', 'since');
    await bad('since=%25%00', 'since');
    await bad(`since=${'A'.repeat(201)}`, 'since');
    await bad(`since=${forged({ v: 2, l: log, s: 1 })}`, 'since');
    await bad(`since=${forged({ v: 1, l: log, s: 1.5 })}`, 'since');
    await bad(`since=${forged({ v: 1, l: log, s: 1, x: 1 })}`, 'since');
    await bad(`since=${forged({ v: 1, l: log, s: 999_999 })}`, 'since');
    await bad(`since=${old}&since=${old}`, 'since');
    await bad('limit=0', 'limit');
    await bad('page=2', 'page');
    // A token of another log (a catalog rebuilt from nothing) is expired, not an error of the partner's.
    const other = await rig.api!.request(`${FEED}?since=${forged({ v: 1, l: 'zzzzzz', s: 1 })}`);
    expect(other.status).to.equal(410);
  });

  it('a client polling while the indexer reindexes and syncs ends with a copy equal to the catalog, byte for byte', async () => {
    const base = ids(1, 40).map((id, i) => grantRecord(id, { amountMax: 1000 * (i + 1), description: `About ${id}` }));
    await indexer(['reindex'], base);
    await start();
    const copy = new Map<string, string>();
    let since = '0';
    let done = false;
    let polls = 0;
    const poller = (async () => {
      while (!done) {
        const page = await feed(`since=${encodeURIComponent(since)}&limit=7`);
        apply(copy, page.data);
        since = page.pagination.nextSince;
        polls += 1;
        if (!page.pagination.hasMore) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const edit = (records: GrantRecord[], id: string, overrides: GrantRecord) =>
      records.map((r) => (r.id === id ? { ...r, ...overrides } : r));
    try {
      let current = base;
      // sync: an edit and an addition
      current = edit(current, 'g-02', { updatedAt: at(2), title: 'Edited once' });
      current = [...current, grantRecord('g-41')];
      await indexer(['sync'], current);
      // sync --prune: two deletions
      current = current.filter((r) => r.id !== 'g-03' && r.id !== 'g-04');
      await indexer(['sync', '--prune'], current);
      // reindex: a content change without a new updatedAt, a drop, a re-add of a deleted id
      current = edit(current, 'g-06', { description: 'Changed in place' });
      current = current.filter((r) => r.id !== 'g-05');
      current = [...current, grantRecord('g-03', { updatedAt: at(5), title: 'Back again' })];
      await indexer(['reindex'], current);
      // two syncs of the same grant
      current = edit(current, 'g-07', { updatedAt: at(6), title: 'Seven a' });
      await indexer(['sync'], current);
      current = edit(current, 'g-07', { updatedAt: at(7), title: 'Seven b' });
      await indexer(['sync'], current);
      // a reindex of the same content, then one that re-adds g-04 and drops g-08
      await indexer(['reindex'], current);
      current = [...current.filter((r) => r.id !== 'g-08'), grantRecord('g-04', { updatedAt: at(8) })];
      await indexer(['reindex'], current);
    } finally {
      done = true;
      await poller;
    }
    apply(copy, (await drain(since)).entries);
    expect(polls).to.be.greaterThan(1);
    const served = await catalog();
    expect([...copy.keys()].sort()).to.deep.equal([...served.keys()].sort());
    for (const [id, json] of served) expect(copy.get(id), id).to.equal(json);
    for (const id of ['g-03', 'g-04', 'g-07']) {
      const one = await rig.api!.request(`${GRANTS_PATH}/${id}`);
      expect(copy.get(id)).to.equal(JSON.stringify(one.body.data));
    }
    expect(JSON.parse(copy.get('g-07')!)).to.include({ title: 'Seven b' });
    expect(copy.has('g-05')).to.equal(false);
  });
}

describe('changes feed: guard and billing', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startCatalogApi(
      ids(1, 3).map((id) => grantRecord(id)),
      { prefix: 'grants-feed-billing-' },
    );
  });
  after(async () => {
    await stopCatalogApi(api);
  });

  it('needs grants.search: 403 FEATURE_NOT_AVAILABLE when it is off, and answers again when it is back on', async () => {
    const sub = api.deps.subscriptions.create({ name: 'feed-guard', tier: 'STARTER' });
    api.deps.subscriptions.setFeature(sub.subscription.id, 'grants.search', false);
    const refused = await api.request(FEED, { key: sub.apiKey });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('FEATURE_NOT_AVAILABLE');
    expect(refused.body.error.message).to.contain('grants.search');
    api.deps.subscriptions.setFeature(sub.subscription.id, 'grants.read', false);
    api.deps.subscriptions.setFeature(sub.subscription.id, 'grants.search', true);
    expect((await api.request(FEED, { key: sub.apiKey })).status).to.equal(200);
  });

  it('is billable: one call per request whatever its status (200, 400, 410), under the template /grants/changes', async () => {
    const sub = api.deps.subscriptions.create({ name: 'feed-billing', tier: 'STARTER' });
    const calls = async () => (await api.request(`${API_PREFIX}/subscription/usage`, { key: sub.apiKey })).body.data;
    expect((await calls()).currentMonth.calls).to.equal(0);
    expect((await api.request(`${FEED}?since=0&limit=2`, { key: sub.apiKey })).status).to.equal(200);
    expect((await api.request(`${FEED}?since=nope`, { key: sub.apiKey })).status).to.equal(400);
    const otherLog = Buffer.from(JSON.stringify({ v: 1, l: 'zzzzzz', s: 1 })).toString('base64url');
    expect((await api.request(`${FEED}?since=${otherLog}`, { key: sub.apiKey })).status).to.equal(410);
    const usage = await calls();
    expect(usage.currentMonth.calls).to.equal(3);
    expect(usage.statistics.topEndpoints).to.deep.include({ endpoint: '/grants/changes', calls: 3 });
  });
});
