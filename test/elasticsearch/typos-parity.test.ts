// `typos` and `suggestion` on both engines alike, through the HTTP API, over the same catalog
// (test/support/typoCatalog.ts): for every search of TYPO_SEARCHES with typos off and auto, the
// same total, the same matches, the same suggestion, and the same typo order (grants needing
// fewer typos first); Elasticsearch's own answers to the typo rule's edges; and the hostile
// 200-character query within the search budget. The embedded engine's own suite is
// test/http/grants-typos.test.ts.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestApi, tempDir, type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { ES_URL, describeWithElasticsearch, dropAlias, uniqueAlias } from '../support/elasticsearch.js';
import { crowdedCatalogGrants, crowdedQuery, seedFile, TYPO_GRANTS as T, TYPO_SEARCHES, typoCatalogGrants } from '../support/typoCatalog.js';

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

describeWithElasticsearch('typos and suggestion: both engines alike', function () {
  this.timeout(120_000);
  const alias = uniqueAlias();
  const dir = tempDir();
  let es: TestApi | undefined;
  let sqlite: TestApi | undefined;
  before(async () => {
    const seed = seedFile(dir, typoCatalogGrants());
    es = await startTestApi({ SEED_FILE: seed, SEARCH_ENGINE: 'elasticsearch', ELASTICSEARCH_URL: ES_URL as string, ELASTICSEARCH_INDEX: alias });
    sqlite = await startTestApi({ SEED_FILE: seed });
  });
  after(async () => {
    await es?.stop();
    await sqlite?.stop();
    await dropAlias(alias);
    rmSync(dir, { recursive: true, force: true });
  });

  const search = (api: TestApi | undefined, text: string, more = '') => api!.request(`${G}?search=${encodeURIComponent(text)}&limit=100&fields=id${more}`);

  for (const typos of ['off', 'auto']) {
    for (const text of TYPO_SEARCHES) {
      it(`${text}  (typos=${typos})`, async () => {
        const [a, b] = await Promise.all([search(sqlite, text, `&typos=${typos}`), search(es, text, `&typos=${typos}`)]);
        const summary = (res: TestResponse) => ({
          total: ok(res).body.pagination.total,
          ids: res.body.data.map((g: { id: string }) => g.id).sort(),
          suggestion: res.body.suggestion,
        });
        expect(summary(b), 'elasticsearch (actual) vs sqlite (expected)').to.deep.equal(summary(a));
      });
    }
  }

  it('the typo rule on Elasticsearch: found, and never found', async () => {
    const ids = async (text: string) => ok(await search(es, text, '&typos=auto')).body.data.map((g: { id: string }) => g.id) as string[];
    expect(await ids('brodband')).to.have.members([T.ruralBroadband, T.schoolBroadband, T.misspeltBroadband]);
    expect(await ids('famring')).to.include(T.farming);
    expect(await ids('grian')).to.include(T.grain);
    expect(await ids('varming')).to.deep.equal([]);
    expect(await ids('fatm')).to.deep.equal([]);
    expect(await ids('brodbamd')).to.deep.equal([]);
    expect(await ids('4418')).to.deep.equal([]);
    expect(await ids('"brodband access"')).to.deep.equal([]);
    expect(await ids('broadband -rurla')).to.include(T.ruralBroadband);
  });

  it('the same typo order: exact matches first on both engines', async () => {
    for (const api of [sqlite, es]) {
      const ids = ok(await search(api, 'broadband', '&typos=auto')).body.data.map((g: { id: string }) => g.id);
      expect(ids).to.have.length(3);
      expect(ids[2]).to.equal(T.misspeltBroadband);
    }
  });

  it('the dictionary holds the French title and description: found and suggested alike on both engines', async () => {
    for (const api of [sqlite, es]) {
      for (const text of ['deneigemnt', 'déglaçge']) {
        expect(ok(await search(api, text, '&typos=auto')).body.data.map((g: { id: string }) => g.id), text).to.deep.equal([T.frenchOnly]);
      }
      expect(ok(await search(api, 'deneigemnt')).body.suggestion).to.deep.equal({ search: 'deneigement', total: 1 });
    }
  });

  it('the same suggestion: brodband → broadband', async () => {
    for (const api of [sqlite, es]) expect(ok(await search(api, 'brodband')).body.suggestion).to.deep.equal({ search: 'broadband', total: 2 });
  });
});

describeWithElasticsearch('a hostile typo query [elasticsearch]', function () {
  this.timeout(180_000);
  const alias = uniqueAlias();
  const dir = tempDir();
  let es: TestApi | undefined;
  let sqlite: TestApi | undefined;
  before(async () => {
    const seed = seedFile(dir, crowdedCatalogGrants());
    es = await startTestApi({ SEED_FILE: seed, SEARCH_ENGINE: 'elasticsearch', ELASTICSEARCH_URL: ES_URL as string, ELASTICSEARCH_INDEX: alias, SEARCH_TIMEOUT_MS: '2000' });
    sqlite = await startTestApi({ SEED_FILE: seed, SEARCH_TIMEOUT_MS: '2000' });
  });
  after(async () => {
    await es?.stop();
    await sqlite?.stop();
    await dropAlias(alias);
    rmSync(dir, { recursive: true, force: true });
  });

  it('200 characters of words with hundreds of neighbours: answered within the budget, alike on both engines', async () => {
    const query = crowdedQuery();
    const path = `${G}?search=${encodeURIComponent(query)}&typos=auto&limit=5`;
    // Each engine's first use of its dictionary (and the code's first run) comes first.
    for (const api of [sqlite!, es!]) ok(await api.request(`${G}?search=${query.slice(0, 9)}&typos=auto&limit=0`));
    const started = performance.now();
    const b = ok(await es!.request(path));
    expect(performance.now() - started, 'ms').to.be.below(2000);
    const a = ok(await sqlite!.request(path));
    expect({ total: b.body.pagination.total, suggestion: b.body.suggestion }).to.deep.equal({ total: a.body.pagination.total, suggestion: a.body.suggestion });
    // One word alone: more neighbours than the cap on both, the same matches.
    const one = `${G}?search=${query.slice(0, 9)}&typos=auto&limit=0`;
    expect(ok(await es!.request(one)).body.pagination.total).to.equal(ok(await sqlite!.request(one)).body.pagination.total);
  });
});
