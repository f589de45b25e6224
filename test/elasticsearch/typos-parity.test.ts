// `typos` and `suggestion` on both engines alike, through the HTTP API, over the same catalog
// (test/support/typoCatalog.ts): for every search of TYPO_SEARCHES with typos off and auto, the
// same total, the same matches, the same suggestion, and the same typo order (grants needing
// fewer typos first); Elasticsearch's own answers to the typo rule's edges; one deadline for all
// of a search's requests to a slow node (the suggestion left out rather than late, a 503 at the
// budget); and the hostile 200-character query within the search budget, a generous one and a
// tight one. The embedded engine's own suite is test/http/grants-typos.test.ts.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestApi, tempDir, type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { expectError } from '../support/assertions.js';
import {
  ES_URL,
  describeWithElasticsearch,
  dropAlias,
  elasticsearchEnv,
  uniqueAlias,
} from '../support/elasticsearch.js';
import { startFaultyProxy, type FaultyProxy } from '../support/faultyProxy.js';
import { bothEngines } from '../support/parity.js';
import {
  crowdedCatalogGrants,
  crowdedQuery,
  seedFile,
  TYPO_GRANTS as T,
  TYPO_SEARCHES,
  typoCatalogGrants,
} from '../support/typoCatalog.js';

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

describeWithElasticsearch('typos and suggestion: both engines alike', function () {
  this.timeout(120_000);
  const engines = bothEngines({ grants: typoCatalogGrants });

  const search = (api: TestApi, text: string, more = '') =>
    api.request(`${G}?search=${encodeURIComponent(text)}&limit=100&fields=id${more}`);

  for (const typos of ['off', 'auto']) {
    for (const text of TYPO_SEARCHES) {
      it(`${text}  (typos=${typos})`, async () => {
        const [a, b] = await Promise.all([
          search(engines.sqlite(), text, `&typos=${typos}`),
          search(engines.es(), text, `&typos=${typos}`),
        ]);
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
    const ids = async (text: string) =>
      ok(await search(engines.es(), text, '&typos=auto')).body.data.map((g: { id: string }) => g.id) as string[];
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
    for (const api of [engines.sqlite(), engines.es()]) {
      const ids = ok(await search(api, 'broadband', '&typos=auto')).body.data.map((g: { id: string }) => g.id);
      expect(ids).to.have.length(3);
      expect(ids[2]).to.equal(T.misspeltBroadband);
    }
  });

  it('the dictionary holds the French title and description: found and suggested alike on both engines', async () => {
    for (const api of [engines.sqlite(), engines.es()]) {
      for (const text of ['deneigemnt', 'déglaçge']) {
        expect(
          ok(await search(api, text, '&typos=auto')).body.data.map((g: { id: string }) => g.id),
          text,
        ).to.deep.equal([T.frenchOnly]);
      }
      expect(ok(await search(api, 'deneigemnt')).body.suggestion).to.deep.equal({ search: 'deneigement', total: 1 });
    }
  });

  it('the same suggestion: brodband → broadband', async () => {
    for (const api of [engines.sqlite(), engines.es()])
      expect(ok(await search(api, 'brodband')).body.suggestion).to.deep.equal({ search: 'broadband', total: 2 });
  });
});

/** What a request to `api` answered, and in how many milliseconds. */
async function timed(api: TestApi, path: string): Promise<{ res: TestResponse; ms: number }> {
  const started = performance.now();
  const res = await api.request(path);
  return { res, ms: performance.now() - started };
}

/** A search past its budget: the 503 envelope, with Retry-After. */
function expectBudget503(res: TestResponse): void {
  expectError(res, 503, 'SERVICE_UNAVAILABLE');
  expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
}

/** Time past the budget allowed for what is not a request to Elasticsearch (the API's own work, the test's HTTP). */
const MARGIN_MS = 250;

describeWithElasticsearch("one deadline for all of a search's requests to Elasticsearch [elasticsearch]", function () {
  this.timeout(120_000);
  const alias = uniqueAlias();
  const dir = tempDir();
  const BUDGET_MS = 500;
  let proxy: FaultyProxy;
  let es: TestApi | undefined;
  before(async () => {
    proxy = await startFaultyProxy(ES_URL as string);
    es = await startTestApi({
      SEED_FILE: seedFile(dir, typoCatalogGrants()),
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: proxy.url,
      ELASTICSEARCH_INDEX: alias,
      SEARCH_TIMEOUT_MS: String(BUDGET_MS),
    });
  });
  afterEach(() => {
    proxy.delayMs = 0;
  });
  after(async () => {
    await es?.stop();
    await proxy?.close();
    await dropAlias(alias);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a node answering each request in 200 ms: the page within the budget, its suggestion (three more requests) left out rather than late', async () => {
    const path = `${G}?search=brodband&limit=5`;
    expect(ok(await es!.request(path)).body.suggestion, 'a quick node').to.deep.equal({
      search: 'broadband',
      total: 2,
    });
    proxy.delayMs = 200;
    const { res, ms } = await timed(es!, path);
    expect(ok(res).body.pagination.total).to.equal(0);
    expect(res.body.suggestion).to.equal(null);
    expect(ms, 'ms').to.be.below(BUDGET_MS + MARGIN_MS);
  });

  it('a node answering each request in 300 ms: the typo look-up and the page do not fit, a 503 at the budget', async () => {
    proxy.delayMs = 300;
    const { res, ms } = await timed(es!, `${G}?search=brodband&typos=auto&limit=5`);
    expectBudget503(res);
    expect(ms, 'ms').to.be.below(BUDGET_MS + MARGIN_MS);
    proxy.delayMs = 0;
    expect(
      ok(await es!.request(`${G}?search=brodband&typos=auto&limit=5`)).body.pagination.total,
      'a quick node again',
    ).to.equal(3);
  });
});

describeWithElasticsearch('a hostile typo query [elasticsearch]', function () {
  this.timeout(180_000);
  const engines = bothEngines({ grants: crowdedCatalogGrants, env: { SEARCH_TIMEOUT_MS: '2000' } });

  it('200 characters of words with hundreds of neighbours: answered within the budget (or its 503), alike on both engines', async () => {
    const query = crowdedQuery();
    const path = `${G}?search=${encodeURIComponent(query)}&typos=auto&limit=5`;
    // The code's first run on each engine comes first.
    for (const api of [engines.sqlite(), engines.es()])
      await api.request(`${G}?search=${query.slice(0, 9)}&typos=auto&limit=0`);
    const answers: TestResponse[] = [];
    for (const api of [engines.es(), engines.sqlite()]) {
      const { res, ms } = await timed(api, path);
      expect(ms, `${api.config.searchEngine}: ms`).to.be.below(2000 + MARGIN_MS);
      // A busy machine may spend the budget on the typo look-up: then the 503, never a late answer.
      if (res.status !== 200) expectBudget503(res);
      answers.push(res);
    }
    const [b, a] = answers;
    if (a.status === 200 && b.status === 200) expect(b.body.pagination.total).to.equal(a.body.pagination.total);
    // One word alone: more neighbours than the cap on both, the same matches.
    const one = `${G}?search=${query.slice(0, 9)}&typos=auto&limit=0`;
    expect(ok(await engines.es().request(one)).body.pagination.total).to.equal(
      ok(await engines.sqlite().request(one)).body.pagination.total,
    );
  });

  it("with a tight budget (300 ms): a 200 or the budget's 503 within it, on both engines, never a 500", async () => {
    const budgetMs = 300;
    const query = crowdedQuery();
    const tightApis: Record<string, string>[] = [
      elasticsearchEnv(engines.alias),
      { DATA_DIR: engines.sqlite().dataDir },
    ];
    for (const env of tightApis) {
      const api = await startTestApi({ ...env, SEED_CATALOG: 'false', SEARCH_TIMEOUT_MS: String(budgetMs) });
      try {
        // The dictionary's first use on this API, whatever it answers.
        await api.request(`${G}?search=${query.slice(0, 9)}&typos=auto&limit=0`);
        for (let i = 0; i < 3; i++) {
          const { res, ms } = await timed(api, `${G}?search=${encodeURIComponent(query)}&typos=auto&limit=5`);
          if (res.status !== 200) expectBudget503(res);
          // The margin: a machine as busy as its cores can be slow to hand the 503 over as well.
          expect(ms, `${api.config.searchEngine}: ms`).to.be.below(budgetMs + 2 * MARGIN_MS);
        }
      } finally {
        await api.stop();
      }
    }
  });
});
