// Elasticsearch failures of a grant read that are the node's, never the partner's: an answer that
// breaks after its headers (the node's connection lost in the middle of an answer, or an answer
// that stops coming) and the index behind the alias closed. The node is the real one; the broken
// answers come through a proxy that lets each answer's headers and first bytes through and then
// cuts or holds the rest. Every read (a search page, a grant by id, the filter options) is then a
// ServiceUnavailableError, and over HTTP a 503 SERVICE_UNAVAILABLE with Retry-After, never a 500;
// once the node answers whole again, it serves.
import { expect } from 'chai';
import { ServiceUnavailableError } from '../../src/failures.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { fixtureGrants, startTestApi, type TestApi } from '../support/api.js';
import {
  ES_URL,
  describeWithElasticsearch,
  dropAlias,
  reindexAlias,
  testClient,
  uniqueAlias,
} from '../support/elasticsearch.js';
import { startFaultyProxy, type FaultyProxy } from '../support/faultyProxy.js';

const G = '/external/v1/grants';

describeWithElasticsearch(
  'Elasticsearch read failures: answers cut or stalled after their headers, a closed index',
  function () {
    this.timeout(60_000);
    const alias = uniqueAlias();
    const grants = fixtureGrants().slice(0, 50);
    const query = parseGrantQuery(parseQueryString('search=program'), Date.now());
    let proxy: FaultyProxy;
    let engine: ElasticsearchSearchEngine;
    let api: TestApi | undefined;

    before(async () => {
      await reindexAlias({ url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 }, grants);
      proxy = await startFaultyProxy(ES_URL as string);
      engine = ElasticsearchSearchEngine.open(
        { url: proxy.url, index: alias, requestTimeoutMs: 1000 },
        { searchTimeoutMs: 1000 },
      );
    });
    afterEach(() => {
      proxy.mode = 'pass';
    });
    after(async () => {
      await api?.stop();
      await engine?.close();
      await proxy?.close();
      await dropAlias(alias);
    });

    /** What each read of the engine gives: 'ok', or the thrown error's class and message. */
    async function reads(): Promise<Record<string, string>> {
      const outcome = (work: Promise<unknown>) =>
        work.then(
          () => 'ok',
          (error: Error) =>
            error instanceof ServiceUnavailableError
              ? 'ServiceUnavailableError'
              : `${error.constructor.name}: ${error.message}`,
        );
      return {
        search: await outcome(engine.searchJson(query)),
        getById: await outcome(engine.getByIdJson(grants[0].id)),
        filterOptions: await outcome(engine.filterOptions()),
      };
    }

    it('the engine: every read is a ServiceUnavailableError when the answer is cut, or stalls past the timeout; whole answers read again', async () => {
      const unavailable = {
        search: 'ServiceUnavailableError',
        getById: 'ServiceUnavailableError',
        filterOptions: 'ServiceUnavailableError',
      };
      expect(await reads(), 'through the proxy, passing').to.deep.equal({
        search: 'ok',
        getById: 'ok',
        filterOptions: 'ok',
      });
      proxy.mode = 'cut';
      expect(await reads(), 'cut after the headers').to.deep.equal(unavailable);
      proxy.mode = 'stall';
      const started = Date.now();
      expect(await reads(), 'stalled after the headers').to.deep.equal(unavailable);
      // Three reads one after another, each given up after the 1 s timeout.
      expect(Date.now() - started).to.be.below(3 * 1000 + 2000);
      proxy.mode = 'pass';
      expect(await reads(), 'passing again').to.deep.equal({ search: 'ok', getById: 'ok', filterOptions: 'ok' });
    });

    const paths = [`${G}?search=program`, `${G}/${encodeURIComponent(grants[0].id)}`, `${G}/filters`];
    async function expectUnavailable(what: string): Promise<void> {
      for (const path of paths) {
        const res = await api!.request(path);
        expect(res.status, `${what} ${path}: ${res.text}`).to.equal(503);
        expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
        expect(Number(res.headers.get('retry-after')), `${what} ${path}`).to.be.greaterThan(0);
      }
    }

    it('over HTTP: 503 SERVICE_UNAVAILABLE with Retry-After on every grant endpoint, then 200 once answers come whole', async () => {
      api = await startTestApi({
        SEARCH_ENGINE: 'elasticsearch',
        ELASTICSEARCH_URL: proxy.url,
        ELASTICSEARCH_INDEX: alias,
        SEED_CATALOG: 'false',
        ELASTICSEARCH_TIMEOUT_MS: '1000',
        SEARCH_TIMEOUT_MS: '1000',
      });
      for (const mode of ['cut', 'stall'] as const) {
        proxy.mode = mode;
        await expectUnavailable(mode);
      }
      proxy.mode = 'pass';
      for (const path of paths) expect((await api.request(path)).status, path).to.equal(200);
    });

    it('the index behind the alias closed: every read is a ServiceUnavailableError, 503 over HTTP; reopened, it serves', async () => {
      const client = testClient();
      const [index] = Object.keys(await client.indices.getAlias({ name: alias }));
      try {
        await client.indices.close({ index });
        expect(await reads(), 'closed').to.deep.equal({
          search: 'ServiceUnavailableError',
          getById: 'ServiceUnavailableError',
          filterOptions: 'ServiceUnavailableError',
        });
        api ??= await startTestApi({
          SEARCH_ENGINE: 'elasticsearch',
          ELASTICSEARCH_URL: proxy.url,
          ELASTICSEARCH_INDEX: alias,
          SEED_CATALOG: 'false',
        });
        await expectUnavailable('closed');
      } finally {
        await client.indices.open({ index, wait_for_active_shards: 1 });
        await client.close();
      }
      expect(await reads(), 'reopened').to.deep.equal({ search: 'ok', getById: 'ok', filterOptions: 'ok' });
    });
  },
);
