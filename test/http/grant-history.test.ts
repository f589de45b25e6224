// A grant's history, GET /grants/{id}/history, on both engines: the same suite runs over the
// embedded catalog and over a real Elasticsearch alias, driving the real grants-indexer; the
// changes feed carries the same field changes.
import { expect } from 'chai';
import { syncFromSource } from '../../indexer/pipeline.js';
import { loadConfig } from '../../src/config.js';
import { createCatalogWriter } from '../../src/search/factory.js';
import type { TestApi } from '../support/api.js';
import {
  API_PREFIX,
  GRANTS_PATH,
  grantRecord,
  writeNdjson,
  startCatalogApi,
  stopCatalogApi,
} from '../support/catalog.js';
import { describeWithElasticsearch } from '../support/elasticsearch.js';
import { engineSetups, indexerRig, type EngineSetup } from '../support/indexerRig.js';

interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}
interface Version {
  changedAt: string;
  type: 'created' | 'updated' | 'deleted';
  changes: FieldChange[] | null;
}
interface HistoryAnswer {
  data: Version[];
  pagination: { limit: number; nextCursor: string | null };
}

const { sqlite: SQLITE, elasticsearch: ELASTICSEARCH } = engineSetups('history');

const at = (day: number) => `2026-02-${String(day).padStart(2, '0')}T00:00:00.000Z`;
const deadline = (month: number) => `2027-${String(month).padStart(2, '0')}-15T23:59:59.000Z`;

describe('grant history [sqlite]', function () {
  historySuite.call(this, SQLITE);
});
describeWithElasticsearch('grant history', function () {
  historySuite.call(this, ELASTICSEARCH);
});

function historySuite(this: Mocha.Suite, setup: EngineSetup): void {
  this.timeout(120_000);
  const rig = indexerRig(setup);
  const { indexer, start } = rig;

  const historyOf = async (id: string, query = ''): Promise<HistoryAnswer> => {
    const answer = await rig.api!.request(
      `${GRANTS_PATH}/${encodeURIComponent(id)}/history${query === '' ? '' : `?${query}`}`,
    );
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as HistoryAnswer;
  };
  /** Every version, page by page. */
  const drain = async (id: string, limit: number): Promise<{ versions: Version[]; pages: number }> => {
    const versions: Version[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: HistoryAnswer = await historyOf(id, `limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
      pages += 1;
      expect(page.data.length).to.be.at.most(limit);
      versions.push(...page.data);
      cursor = page.pagination.nextCursor;
    } while (cursor !== null);
    return { versions, pages };
  };

  it('records created, then each update with the fields it changed (old and new values), newest first; the feed and the history say the same', async () => {
    await indexer(['reindex'], [grantRecord('g-01', { deadline: deadline(1) }), grantRecord('g-02')]);
    await indexer(['sync'], [grantRecord('g-01', { deadline: deadline(3), updatedAt: at(2) })]);
    await indexer(
      ['sync'],
      [grantRecord('g-01', { deadline: deadline(3), updatedAt: at(3), title: 'Renamed', amountMax: 5000 })],
    );
    // A sync where the grant is unchanged records nothing.
    await indexer(
      ['sync'],
      [grantRecord('g-01', { deadline: deadline(3), updatedAt: at(3), title: 'Renamed', amountMax: 5000 })],
    );
    await start();
    const { data, pagination } = await historyOf('g-01');
    expect(pagination).to.deep.equal({ limit: 20, nextCursor: null });
    expect(data.map((v) => v.type)).to.deep.equal(['updated', 'updated', 'created']);
    expect(data[0].changes).to.deep.equal([
      { field: 'title', from: 'Program g-01', to: 'Renamed' },
      { field: 'amountMax', from: null, to: 5000 },
      { field: 'updatedAt', from: at(2), to: at(3) },
    ]);
    expect(data[1].changes).to.deep.equal([
      { field: 'deadline', from: deadline(1), to: deadline(3) },
      { field: 'updatedAt', from: grantRecord('x').updatedAt, to: at(2) },
    ]);
    expect(data[2].changes).to.equal(null);
    for (const version of data) expect(version.changedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(data[0].changedAt)).to.be.at.least(Date.parse(data[1].changedAt));
    expect((await historyOf('g-02')).data.map((v) => v.type)).to.deep.equal(['created']);

    // The changes feed's entry for g-01 carries its latest change, the same diff; g-02's, added, none.
    const feed = await rig.api!.request(`${GRANTS_PATH}/changes?since=0`);
    const entries = feed.body.data as { id: string; changes: FieldChange[] | null }[];
    expect(entries.find((e) => e.id === 'g-01')!.changes).to.deep.equal(data[0].changes);
    expect(entries.find((e) => e.id === 'g-02')!.changes).to.equal(null);
  });

  it('a reindex that changes a grant records a version too, one that adds it a created one, one that drops it a deleted one', async () => {
    await indexer(['reindex'], [grantRecord('g-01'), grantRecord('g-02'), grantRecord('g-03')]);
    // Same content: no version. g-02 changed in place (same updatedAt), g-03 dropped, g-04 added.
    await indexer(['reindex'], [grantRecord('g-01'), grantRecord('g-02'), grantRecord('g-03')]);
    await indexer(
      ['reindex', '--allow-shrink'],
      [grantRecord('g-01'), grantRecord('g-02', { description: 'Now described' }), grantRecord('g-04')],
    );
    await start();
    expect((await historyOf('g-01')).data.map((v) => v.type)).to.deep.equal(['created']);
    const g2 = (await historyOf('g-02')).data;
    expect(g2.map((v) => v.type)).to.deep.equal(['updated', 'created']);
    expect(g2[0].changes).to.deep.equal([{ field: 'description', from: null, to: 'Now described' }]);
    expect((await historyOf('g-03')).data.map((v) => [v.type, v.changes])).to.deep.equal([
      ['deleted', null],
      ['created', null],
    ]);
    expect((await historyOf('g-04')).data.map((v) => v.type)).to.deep.equal(['created']);
  });

  it('a deletion is the last version and the history still answers; a re-added grant starts again with created; an unknown id is a 404', async () => {
    await indexer(['reindex'], [grantRecord('g-01'), grantRecord('g-02'), grantRecord('g-03')]);
    await indexer(['sync', '--prune'], [grantRecord('g-02'), grantRecord('g-03')]);
    await start();
    expect((await rig.api!.request(`${GRANTS_PATH}/g-01`)).status).to.equal(404);
    const deleted = await historyOf('g-01');
    expect(deleted.data.map((v) => v.type)).to.deep.equal(['deleted', 'created']);
    await indexer(['sync'], [grantRecord('g-01', { updatedAt: at(9) })]);
    expect((await historyOf('g-01')).data.map((v) => v.type)).to.deep.equal(['created', 'deleted', 'created']);

    for (const id of ['g-99', 'nothing here', 'x'.repeat(300)]) {
      const missing = await rig.api!.request(`${GRANTS_PATH}/${encodeURIComponent(id)}/history`);
      expect(missing.status, id).to.equal(404);
      expect(missing.body.error.code).to.equal('NOT_FOUND');
    }
  });

  it('pages newest first with limit and nextCursor, each version once; a bad cursor or limit is a 400 naming it', async () => {
    await indexer(['reindex'], [grantRecord('g-01'), grantRecord('g-02')]);
    for (let day = 2; day <= 8; day++)
      await indexer(['sync'], [grantRecord('g-01', { updatedAt: at(day), amountMax: day * 100 })]);
    await start();
    const all = (await historyOf('g-01', 'limit=100')).data;
    expect(all).to.have.length(8);
    expect(all.map((v) => v.type)).to.deep.equal([...Array(7).fill('updated'), 'created']);
    expect(all[0].changes).to.deep.include({ field: 'amountMax', from: 700, to: 800 });
    const paged = await drain('g-01', 3);
    expect(paged.pages).to.equal(3);
    expect(paged.versions).to.deep.equal(all);
    // Above the maximum the limit is served as 100, and pagination.limit says so.
    expect((await historyOf('g-01', 'limit=5000')).pagination.limit).to.equal(100);

    const bad = async (id: string, query: string, parameter: string) => {
      const answer = await rig.api!.request(`${GRANTS_PATH}/${id}/history?${query}`, { invalidRequest: true });
      expect(answer.status, `${query}: ${answer.text}`).to.equal(400);
      expect(answer.body.error.code).to.equal('VALIDATION_ERROR');
      expect(answer.body.error.details.map((d: { parameter: string }) => d.parameter)).to.include(parameter);
    };
    const cursor = (await historyOf('g-01', 'limit=2')).pagination.nextCursor!;
    const forged = (structure: unknown) => Buffer.from(JSON.stringify(structure)).toString('base64url');
    const digest = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { g: string }).g;
    await bad('g-01', 'cursor=abc', 'cursor');
    await bad('g-01', 'cursor=%25%00', 'cursor');
    await bad('g-01', `cursor=${'A'.repeat(201)}`, 'cursor');
    await bad('g-01', `cursor=${forged({ v: 1, g: digest, s: 0 })}`, 'cursor');
    await bad('g-01', `cursor=${forged({ v: 1, g: digest, s: 1.5 })}`, 'cursor');
    await bad('g-01', `cursor=${forged({ v: 2, g: digest, s: 3 })}`, 'cursor');
    await bad('g-01', `cursor=${forged({ v: 1, g: digest, s: 3, x: 1 })}`, 'cursor');
    await bad('g-02', `cursor=${cursor}`, 'cursor');
    await bad('g-01', `cursor=${cursor}&cursor=${cursor}`, 'cursor');
    await bad('g-01', 'limit=0', 'limit');
    await bad('g-01', 'page=2', 'page');
  });

  it('drops versions older than HISTORY_RETENTION_DAYS at the next run; a deleted grant with none left is a 404', async () => {
    await indexer(['reindex'], [grantRecord('g-01'), grantRecord('g-02'), grantRecord('g-03')]);
    await indexer(['sync', '--prune'], [grantRecord('g-01'), grantRecord('g-03')]);
    await start();
    expect((await historyOf('g-02')).data.map((v) => v.type)).to.deep.equal(['deleted', 'created']);
    // A run 31 days later, with a retention of 30 days: the versions before it are dropped.
    const config = loadConfig({ ...rig.env, HISTORY_RETENTION_DAYS: '30' });
    const later = () => new Date(Date.now() + 31 * 86_400_000);
    await syncFromSource((hooks) => createCatalogWriter(config, hooks, { clock: later }), {
      source: writeNdjson(rig.env.DATA_DIR, 'later.ndjson', [grantRecord('g-01', { updatedAt: at(20) })]),
      prune: false,
      report: () => {},
    });
    const kept = (await historyOf('g-01')).data;
    expect(kept.map((v) => v.type)).to.deep.equal(['updated']);
    expect(Date.parse(kept[0].changedAt)).to.be.greaterThan(Date.now() + 30 * 86_400_000);
    // A grant still in the catalog answers with what is kept (nothing); a deleted one with nothing kept is unknown.
    expect((await historyOf('g-03')).data).to.deep.equal([]);
    expect((await rig.api!.request(`${GRANTS_PATH}/g-02/history`)).status).to.equal(404);
  });
}

describe('grant history: guard and billing', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startCatalogApi([grantRecord('g-01')], { prefix: 'grants-history-billing-' });
  });
  after(async () => {
    await stopCatalogApi(api);
  });

  it('needs grants.read and the grants:read scope', async () => {
    const sub = api.deps.subscriptions.create({ name: 'history-guard', tier: 'STARTER' });
    api.deps.subscriptions.setFeature(sub.subscription.id, 'grants.read', false);
    const refused = await api.request(`${GRANTS_PATH}/g-01/history`, { key: sub.apiKey });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('FEATURE_NOT_AVAILABLE');
    api.deps.subscriptions.setFeature(sub.subscription.id, 'grants.read', true);
    api.deps.subscriptions.setFeature(sub.subscription.id, 'grants.search', false);
    expect((await api.request(`${GRANTS_PATH}/g-01/history`, { key: sub.apiKey })).status).to.equal(200);
    const searchOnly = await api.request(`${API_PREFIX}/keys`, {
      key: sub.apiKey,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'search only', scopes: ['grants:search'] }),
    });
    expect(searchOnly.status, searchOnly.text).to.equal(201);
    const scoped = await api.request(`${GRANTS_PATH}/g-01/history`, { key: searchOnly.body.data.apiKey as string });
    expect(scoped.status).to.equal(403);
    expect(scoped.body.error.code).to.equal('SCOPE_NOT_ALLOWED');
  });

  it('is billable as a read: one call per request whatever its status (200, 400, 404), under the template /grants/:id/history', async () => {
    const sub = api.deps.subscriptions.create({ name: 'history-billing', tier: 'STARTER' });
    const calls = async () => (await api.request(`${API_PREFIX}/subscription/usage`, { key: sub.apiKey })).body.data;
    expect((await api.request(`${GRANTS_PATH}/g-01/history`, { key: sub.apiKey })).status).to.equal(200);
    expect(
      (await api.request(`${GRANTS_PATH}/g-01/history?cursor=nope`, { key: sub.apiKey, invalidRequest: true })).status,
    ).to.equal(400);
    expect((await api.request(`${GRANTS_PATH}/g-99/history`, { key: sub.apiKey })).status).to.equal(404);
    const usage = await calls();
    expect(usage.currentMonth.calls).to.equal(3);
    expect(usage.statistics.topEndpoints).to.deep.include({ endpoint: '/grants/:id/history', calls: 3 });
  });
});
