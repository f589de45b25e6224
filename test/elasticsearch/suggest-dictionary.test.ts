// The suggestion index of search as you type on Elasticsearch (words, titles, funder names): it
// follows the catalog, looked at again once a second at most; while a busy API's look is under way
// the index held serves (a reindex is seen within two seconds), and the first request after an
// idle moment waits for the look (a reindex is seen at once). Its read is the API's own, with a
// timeout of its own: a read slower than a search's timeout still completes, a request waits for
// it within its budget, and while the index of a catalog that moved is read the one held answers.
// An index of an earlier mapping (no word list) answers a 503 that says to reindex.
import { expect } from 'chai';
import { ServiceUnavailableError } from '../../src/failures.js';
import { createEsClient } from '../../src/search/elasticsearch/client.js';
import { Deadline, SearchBudgetExceeded } from '../../src/search/deadline.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { parseSuggestQuery } from '../../src/http/parameters/suggestParams.js';
import type { Grant } from '../../src/grants/schema.js';
import { IndexSuggest, suggestReader } from '../../src/search/elasticsearch/suggest.js';
import { suggestionsFrom } from '../../src/search/suggestSearch.js';
import { fixtureGrants } from '../support/api.js';
import {
  describeWithElasticsearch,
  dropAlias,
  ES_URL,
  reindexAlias,
  testClient,
  uniqueAlias,
} from '../support/elasticsearch.js';
import { startFaultyProxy } from '../support/faultyProxy.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const [model] = fixtureGrants();
const grant = (id: string, description: string): Grant => ({ ...model, id, title: `Program ${id}`, description });

describeWithElasticsearch('Elasticsearch suggestions follow the catalog', function () {
  this.timeout(60_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  const client = testClient();
  const suggest = new IndexSuggest(client, alias);
  const wordsOf = async (from: IndexSuggest, text: string, deadline?: Deadline) => {
    const request = parseSuggestQuery(parseQueryString(`q=${text}&type=words`))!;
    return (await suggestionsFrom(request, from.source(request.query, deadline))).map((item) => item.text);
  };
  const words = (text: string) => wordsOf(suggest, text);

  after(async () => {
    await client.close();
    await dropAlias(alias);
  });

  it('a busy API sees a reindex within two seconds, an idle one at once', async () => {
    const first = [grant('g-1', 'Vorpalwood rivers restored')];
    await reindexAlias(config, first);
    expect(await words('vorp')).to.deep.equal(['vorpalwood']);
    expect(await words('zeph')).to.deep.equal([]);

    const second = [...first, grant('g-2', 'Zephyrine meadows')];
    await reindexAlias(config, second);
    const reindexed = Date.now();
    while ((await words('zeph')).length === 0) {
      // Two seconds, and the time a look and the read of the new index take on a loaded machine.
      expect(Date.now() - reindexed, 'time to see the reindex while busy').to.be.below(4000);
      await sleep(100);
    }
    expect(await words('zeph')).to.deep.equal(['zephyrine']);

    await reindexAlias(config, [...second, grant('g-3', 'Quokkanest habitats')]);
    await sleep(2100);
    expect(await words('quok'), 'the first request after an idle moment').to.deep.equal(['quokkanest']);
  });

  it('a read slower than the client timeout completes at start; then a request waits within its budget, or the held index answers', async () => {
    const slow = uniqueAlias();
    const slowConfig = { ...config, index: slow };
    await reindexAlias(slowConfig, [grant('s-1', 'Vorpalwood rivers restored')]);
    const proxy = await startFaultyProxy(ES_URL as string);
    // The API's client: ELASTICSEARCH_TIMEOUT_MS's default, 3 s. Every search through the proxy takes
    // longer; the looks at the catalog (its alias, the change log's state) are not held.
    const proxied = createEsClient({ url: proxy.url, index: slow, requestTimeoutMs: 3000 });
    const reader = suggestReader({ url: proxy.url, index: slow, requestTimeoutMs: 3000 });
    proxy.delayWhen = /_search/;
    proxy.delayMs = 3500;
    try {
      const started = new IndexSuggest(proxied, slow, undefined, reader);
      await started.preload();
      const first = Date.now();
      expect(await wordsOf(started, 'vorp', Deadline.after(1000))).to.deep.equal(['vorpalwood']);
      expect(Date.now() - first, 'the first request after the start reads nothing').to.be.below(1000);

      // The catalog moves: the request waits a second for the new index, then the held one answers.
      await reindexAlias(slowConfig, [grant('s-1', 'Vorpalwood rivers restored'), grant('s-2', 'Zephyrine meadows')]);
      await sleep(2100);
      const moved = Date.now();
      expect(await wordsOf(started, 'zeph', Deadline.after(2000)), 'the held index').to.deep.equal([]);
      expect(Date.now() - moved).to.be.within(900, 1900);
      let seen: string[] = [];
      while (seen.length === 0 && Date.now() - moved < 15_000) {
        await sleep(250);
        seen = await wordsOf(started, 'zeph', Deadline.after(2000));
      }
      expect(seen, 'the new index once read').to.deep.equal(['zephyrine']);

      // Nothing held: a request waits for the read up to its budget, a 503 past it; the read goes on.
      const cold = new IndexSuggest(proxied, slow, undefined, reader);
      const asked = Date.now();
      const late = await wordsOf(cold, 'vorp', Deadline.after(1000)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(late).to.be.instanceOf(SearchBudgetExceeded);
      expect(Date.now() - asked).to.be.below(1900);
      let later: string[] | null = null;
      while (later === null && Date.now() - asked < 15_000) {
        await sleep(250);
        later = await wordsOf(cold, 'vorp', Deadline.after(1000)).catch(() => null);
      }
      expect(later, 'the read finished for the requests after').to.deep.equal(['vorpalwood']);
    } finally {
      await proxied.close();
      await reader.close();
      await proxy.close();
      await dropAlias(slow);
    }
  });

  it('an index of an earlier mapping, without the word list, answers a 503 that says to reindex', async () => {
    const earlier = uniqueAlias();
    await client.indices.create({
      index: `${earlier}-1`,
      mappings: { properties: { words: { type: 'text' } } },
      aliases: { [earlier]: {} },
    } as never);
    try {
      const old = new IndexSuggest(client, earlier);
      const request = parseSuggestQuery(parseQueryString('q=agri'))!;
      const failure = await suggestionsFrom(request, old.source(request.query)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(ServiceUnavailableError);
      expect((failure as Error).message).to.include('grants-indexer reindex');
    } finally {
      await client.indices.delete({ index: `${earlier}-1` });
    }
  });
});
