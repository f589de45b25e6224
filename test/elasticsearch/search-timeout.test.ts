// SEARCH_TIMEOUT_MS on Elasticsearch: each search carries it as its request timeout, so a search
// that cannot answer in time is a ServiceUnavailableError (503); reads by id keep the client's own.
// The slow node is made, not hoped for: a proxy before Elasticsearch holds every `_search` answer
// well past the budget, and lets reads by id through at once.
import { expect } from 'chai';
import { ServiceUnavailableError } from '../../src/failures.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { fixtureGrants, startTestApi, type TestApi } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, reindexAlias, uniqueAlias } from '../support/elasticsearch.js';
import { startFaultyProxy, type FaultyProxy } from '../support/faultyProxy.js';

/** The search budget under test, and how long the proxy holds each search's answer (well past it). */
const BUDGET_MS = 200;
const HELD_MS = 1500;

describeWithElasticsearch('SEARCH_TIMEOUT_MS on Elasticsearch', function () {
  this.timeout(60_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  const grants = fixtureGrants().slice(0, 100);
  const query = parseGrantQuery(parseQueryString('search=program&facets=funderType,currency'), Date.now());
  let api: TestApi | undefined;
  let proxy: FaultyProxy;

  before(async () => {
    await reindexAlias(config, grants);
    proxy = await startFaultyProxy(ES_URL as string);
    proxy.delayMs = HELD_MS;
  });
  after(async () => {
    await api?.stop();
    await proxy.close();
    await dropAlias(alias);
  });

  it('a search past its budget is a ServiceUnavailableError; the same engine still reads by id; a generous budget answers', async () => {
    proxy.delayWhen = /_search/;
    const hurried = ElasticsearchSearchEngine.open({ ...config, url: proxy.url }, { searchTimeoutMs: BUDGET_MS });
    const patient = ElasticsearchSearchEngine.open(config, { searchTimeoutMs: 30_000 });
    try {
      const started = Date.now();
      const late = await hurried.searchJson(query).then(
        () => null,
        (error: unknown) => error,
      );
      expect(late).to.be.instanceOf(ServiceUnavailableError);
      expect(Date.now() - started, 'answered at its budget, not when Elasticsearch answers').to.be.below(HELD_MS);
      expect(await hurried.getByIdJson(grants[0].id)).to.equal(JSON.stringify(grants[0]));
      expect((await patient.searchJson(query)).total).to.be.greaterThan(0);
    } finally {
      await hurried.close();
      await patient.close();
    }
  });

  it('over HTTP the partner gets 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    // The API starts (and reads its suggestion index) through the proxy at full speed; then every search is held.
    proxy.delayWhen = null;
    proxy.delayMs = 0;
    api = await startTestApi({
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: proxy.url,
      ELASTICSEARCH_INDEX: alias,
      SEED_CATALOG: 'false',
      SEARCH_TIMEOUT_MS: String(BUDGET_MS),
    });
    proxy.delayWhen = /_search/;
    proxy.delayMs = HELD_MS;
    const res = await api.request('/external/v1/grants?search=program&facets=funderType,currency');
    expect(res.status, res.text).to.equal(503);
    expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    const one = await api.request(`/external/v1/grants/${encodeURIComponent(grants[0].id)}`);
    expect(one.status).to.equal(200);
  });
});
