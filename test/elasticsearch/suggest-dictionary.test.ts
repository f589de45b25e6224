// The suggestion index of search as you type on Elasticsearch (words, titles, funder names): it
// follows the catalog, looked at again once a second at most; while a busy API's look is under way
// the index held serves (a reindex is seen within two seconds), and the first request after an
// idle moment waits for the look (a reindex is seen at once). An index of an earlier mapping (no
// word list) answers a 503 that says to reindex.
import { expect } from 'chai';
import { ServiceUnavailableError } from '../../src/failures.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { parseSuggestQuery } from '../../src/http/parameters/suggestParams.js';
import type { Grant } from '../../src/grants/schema.js';
import { IndexSuggest } from '../../src/search/elasticsearch/suggest.js';
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const [model] = fixtureGrants();
const grant = (id: string, description: string): Grant => ({ ...model, id, title: `Program ${id}`, description });

describeWithElasticsearch('Elasticsearch suggestions follow the catalog', function () {
  this.timeout(60_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  const client = testClient();
  const suggest = new IndexSuggest(client, alias);
  const words = async (text: string) => {
    const request = parseSuggestQuery(parseQueryString(`q=${text}&type=words`))!;
    return (await suggestionsFrom(request, suggest.source(request.query))).map((item) => item.text);
  };

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
