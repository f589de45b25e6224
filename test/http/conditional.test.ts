// Conditional requests: ETag on /grants, /grants/filters and /grants/:id, If-None-Match
// → 304 with no body and the usual headers, a 304 not counted toward the monthly allowance (it
// spends the per-second rate), logged in the usage log but not in the statistics, a tag that
// changes when the catalog changes what an answer says and only then.
import { expect } from 'chai';
import { openSubscriptionsDb, subscriptionsPath } from '../../src/subscriptions/sqlite/database.js';
import type { TestApi, TestResponse } from '../support/api.js';
import { expectError, REQUEST_ID } from '../support/assertions.js';
import {
  API_PREFIX as P,
  indexOrThrow,
  PROGRAM_LABELS,
  recordMaker,
  startCatalogApi,
  stopCatalogApi,
  writeNdjson,
} from '../support/catalog.js';

const rec = recordMaker(PROGRAM_LABELS);
const CATALOG = Array.from({ length: 30 }, (_, i) =>
  rec(`c-${String(i).padStart(2, '0')}`, { description: `Grant number ${i} for testing conditional requests.` }),
);

const WEAK_TAG = /^W\/"[A-Za-z0-9_-]{10,}"$/;
const CONDITIONAL_PATHS = ['/grants?limit=20&sort=title', '/grants/filters', '/grants/c-01'];

function expectConditionalHeaders(res: TestResponse): void {
  expect(res.headers.get('etag'), 'ETag').to.match(WEAK_TAG);
  expect(res.headers.get('cache-control')).to.equal('private, no-cache');
  const vary = (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());
  expect(vary).to.include.members(['authorization', 'accept-encoding']);
}

describe('conditional requests: ETag, If-None-Match, 304', function () {
  let api: TestApi;

  before(async function () {
    api = await startCatalogApi(CATALOG, { prefix: 'grants-conditional-' });
  });
  after(async function () {
    await stopCatalogApi(api);
  });

  function fresh(over: { monthlyLimit?: number; rateLimit?: number } = {}) {
    const created = api.deps.subscriptions.create({ name: 'conditional', tier: 'PROFESSIONAL', ...over });
    const key = created.apiKey;
    return {
      id: created.subscription.id,
      get: (p: string, headers: Record<string, string> = {}, method = 'GET') =>
        api.request(`${P}${p}`, { key, headers, method }),
    };
  }

  for (const path of CONDITIONAL_PATHS) {
    it(`${path}: a 200 carries a weak ETag, Cache-Control: private, no-cache and Vary: Authorization, Accept-Encoding`, async function () {
      const res = await api.request(`${P}${path}`);
      expect(res.status, res.text).to.equal(200);
      expectConditionalHeaders(res);
    });

    it(`${path}: If-None-Match with that ETag → 304, no body, request id, rate-limit headers, the same ETag`, async function () {
      const first = await api.request(`${P}${path}`);
      const tag = first.headers.get('etag')!;
      const res = await api.request(`${P}${path}`, { headers: { 'If-None-Match': tag } });
      expect(res.status).to.equal(304);
      expect(res.text).to.equal('');
      expect(res.headers.get('content-type')).to.equal(null);
      expect(res.headers.get('content-encoding')).to.equal(null);
      expect(res.headers.get('x-request-id')).to.match(REQUEST_ID).and.not.equal(first.headers.get('x-request-id'));
      for (const name of [
        'ratelimit-policy',
        'ratelimit',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ]) {
        expect(res.headers.get(name), name).to.be.a('string');
      }
      expectConditionalHeaders(res);
      expect(res.headers.get('etag')).to.equal(tag);
    });
  }

  it('the tag is of the content: the same answer twice (new meta) has the same tag; another page has another', async function () {
    const a = await api.request(`${P}/grants?limit=5&sort=title`);
    const b = await api.request(`${P}/grants?sort=title&limit=5`);
    const c = await api.request(`${P}/grants?limit=5&sort=title&page=2`);
    expect(a.body.meta.requestId).to.not.equal(b.body.meta.requestId);
    expect(b.headers.get('etag')).to.equal(a.headers.get('etag'));
    expect(c.headers.get('etag')).to.not.equal(a.headers.get('etag'));
    const one = await api.request(`${P}/grants/c-01`);
    const two = await api.request(`${P}/grants/c-02`);
    expect(one.headers.get('etag')).to.not.equal(two.headers.get('etag'));
  });

  it('If-None-Match: a list naming the tag, the strong form of the tag and * give 304; another tag gives the 200', async function () {
    const path = `${P}/grants/c-03`;
    const tag = (await api.request(path)).headers.get('etag')!;
    const strong = tag.slice(2);
    for (const value of [`"x", ${tag}`, `W/"nope",${strong}`, strong, '*']) {
      const res = await api.request(path, { headers: { 'If-None-Match': value } });
      expect(res.status, value).to.equal(304);
    }
    const other = await api.request(path, { headers: { 'If-None-Match': 'W/"not-this-one"' } });
    expect(other.status).to.equal(200);
    expect(other.body.data.id).to.equal('c-03');
    expect(other.headers.get('etag')).to.equal(tag);
  });

  it('HEAD with If-None-Match answers 304 too; a HEAD 200 carries the ETag of the GET', async function () {
    const path = `${P}/grants/c-04`;
    const get = await api.request(path);
    const head = await api.request(path, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('etag')).to.equal(get.headers.get('etag'));
    const res = await api.request(path, { method: 'HEAD', headers: { 'If-None-Match': get.headers.get('etag')! } });
    expect(res.status).to.equal(304);
  });

  it('errors carry no ETag and are never 304: an unknown id with If-None-Match: * is a 404; a bad parameter a 400', async function () {
    const missing = await api.request(`${P}/grants/nope`, { headers: { 'If-None-Match': '*' } });
    expectError(missing, 404, 'NOT_FOUND');
    expect(missing.headers.get('etag')).to.equal(null);
    const bad = await api.request(`${P}/grants?limit=-1`, { headers: { 'If-None-Match': '*' }, invalidRequest: true });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.headers.get('etag')).to.equal(null);
  });

  it('the /subscription endpoints carry no ETag (their answers change with every call)', async function () {
    const res = await api.request(`${P}/subscription/limits`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('etag')).to.equal(null);
  });

  describe('billing: a 304 does not count toward the monthly allowance', function () {
    it('/subscription/usage before and after: 304s leave currentMonth.calls and the statistics alone; 200s count', async function () {
      const sub = fresh();
      const first = await sub.get('/grants/c-05');
      const tag = first.headers.get('etag')!;
      const before = await sub.get('/subscription/usage');
      expect(before.body.data.currentMonth.calls).to.equal(1);
      // (a report counts the calls logged before it, not itself)
      expect(before.body.data.statistics.topEndpoints).to.deep.equal([{ endpoint: '/grants/:id', calls: 1 }]);

      for (let i = 0; i < 3; i++)
        expect((await sub.get('/grants/c-05', { 'If-None-Match': tag })).status).to.equal(304);
      const after = await sub.get('/subscription/usage');
      expect(after.body.data.currentMonth).to.include({ calls: 1, remaining: 99_999 });
      expect(after.body.data.statistics.topEndpoints).to.deep.equal([
        { endpoint: '/grants/:id', calls: 1 },
        { endpoint: '/subscription/usage', calls: 1 },
      ]);

      // A conditional request that is not a 304 counts once, as any other.
      const changed = await sub.get('/grants/c-06', { 'If-None-Match': tag });
      expect(changed.status).to.equal(200);
      const last = await sub.get('/subscription/limits');
      expect(last.body.data.limits.monthly.current).to.equal(2);
    });

    it('the 304s are in the usage log (status 304, not billable), so an operator sees them', async function () {
      const sub = fresh();
      const tag = (await sub.get('/grants/filters')).headers.get('etag')!;
      const notModified = await sub.get('/grants/filters', { 'If-None-Match': tag });
      expect(notModified.status).to.equal(304);
      api.deps.usage.flush();
      const db = openSubscriptionsDb(subscriptionsPath(api.dataDir));
      try {
        const rows = db
          .prepare(
            'SELECT endpoint, billable, status, request_id AS requestId FROM usage_log WHERE subscription_id = ? ' +
              'ORDER BY id',
          )
          .all(sub.id) as Record<string, unknown>[];
        expect(rows.map(({ endpoint, billable, status }) => ({ endpoint, billable, status }))).to.deep.equal([
          { endpoint: '/grants/filters', billable: 1, status: 200 },
          { endpoint: '/grants/filters', billable: 0, status: 304 },
        ]);
        expect(rows[1].requestId).to.equal(notModified.headers.get('x-request-id'));
      } finally {
        db.close();
      }
    });

    it('a 304 spends the per-second rate: its rate-limit headers count it', async function () {
      const sub = fresh({ rateLimit: 1000 });
      const tag = (await sub.get('/grants/c-07')).headers.get('etag')!;
      const res = await sub.get('/grants/c-07', { 'If-None-Match': tag });
      expect(res.status).to.equal(304);
      // Two requests within one second leave 998 (or 999 if the second turned in between).
      expect(Number(res.headers.get('x-ratelimit-remaining')))
        .to.be.within(998, 999)
        .and.below(1000);
      expect(res.headers.get('x-ratelimit-limit')).to.equal('1000');
    });

    it('near the limit: 304s keep answering and the last call is still there for a 200', async function () {
      const sub = fresh({ monthlyLimit: 2 });
      const tag = (await sub.get('/grants/c-08')).headers.get('etag')!;
      for (let i = 0; i < 5; i++)
        expect((await sub.get('/grants/c-08', { 'If-None-Match': tag })).status).to.equal(304);
      const served = await sub.get('/grants/c-09', { 'If-None-Match': tag });
      expect(served.status).to.equal(200);
      expect(served.headers.get('ratelimit')).to.match(/"month";r=0;/);
      // Used up: even a conditional request is refused before any work, and counts nothing.
      expectError(await sub.get('/grants/c-08', { 'If-None-Match': tag }), 429, 'QUOTA_EXCEEDED');
      expect((await sub.get('/subscription/limits')).body.data.limits.monthly.current).to.equal(2);
    });
  });

  describe('the tag follows the catalog', function () {
    it('a reindex that changes a grant changes its tag (and the pages and filters that show it); an unchanged grant keeps its tag', async function () {
      const tagOf = async (path: string) => (await api.request(`${P}${path}`)).headers.get('etag')!;
      const before = {
        changed: await tagOf('/grants/c-10'),
        kept: await tagOf('/grants/c-11'),
        page: await tagOf('/grants?limit=50&sort=title'),
        filters: await tagOf('/grants/filters'),
      };
      const records = CATALOG.map((r) =>
        r.id === 'c-10'
          ? { ...r, title: 'Renamed grant', funderType: 'FOUNDATION', updatedAt: '2026-02-01T00:00:00.000Z' }
          : r,
      );
      await indexOrThrow(api.dataDir, ['reindex', '--source', writeNdjson(api.dataDir, 'reindex.ndjson', records)]);

      const changed = await api.request(`${P}/grants/c-10`, { headers: { 'If-None-Match': before.changed } });
      expect(changed.status).to.equal(200);
      expect(changed.body.data.title).to.equal('Renamed grant');
      expect(changed.headers.get('etag')).to.match(WEAK_TAG).and.not.equal(before.changed);
      expect((await api.request(`${P}/grants/c-11`, { headers: { 'If-None-Match': before.kept } })).status).to.equal(
        304,
      );
      const page = await api.request(`${P}/grants?limit=50&sort=title`, { headers: { 'If-None-Match': before.page } });
      expect(page.status).to.equal(200);
      const filters = await api.request(`${P}/grants/filters`, { headers: { 'If-None-Match': before.filters } });
      expect(filters.status).to.equal(200);
      expect(filters.body.data.funderTypes).to.include('FOUNDATION');
    });
  });
});
