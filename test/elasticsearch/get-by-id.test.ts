// /grants/:id on a real Elasticsearch through the engine: reads of one turn share an _mget, and
// each still gets its own grant (byte for byte), null for an unknown or refused id, and a 503
// (ServiceUnavailableError) for all of them when the alias is missing.
import { expect } from 'chai';
import type { Grant } from '../../src/grants/schema.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { createEsClient } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { fixtureGrants } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, uniqueAlias, reindexAlias } from '../support/elasticsearch.js';


describeWithElasticsearch('grants by id on Elasticsearch', function () {
  this.timeout(60_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  const grants: Grant[] = fixtureGrants().slice(0, 50);
  let engine: ElasticsearchSearchEngine;

  before(async () => {
    await reindexAlias(config, grants);
    engine = new ElasticsearchSearchEngine(createEsClient(config), alias);
  });

  after(async () => {
    await engine?.close();
    await dropAlias(alias);
  });

  it('answers many reads of one turn, each with its own grant or null', async () => {
    const ids = [...grants.map((g) => g.id), 'no-such-grant', '', 'é'.repeat(200), 'a/b?c', grants[3].id];
    const answers = await Promise.all(ids.map((id) => engine.getByIdJson(id)));
    expect(answers).to.deep.equal([...grants.map((g) => JSON.stringify(g)), null, null, null, null, JSON.stringify(grants[3])]);
  });

  it('a missing alias fails every read of the turn with ServiceUnavailableError', async () => {
    const missing = new ElasticsearchSearchEngine(createEsClient({ ...config, index: `${alias}-missing` }), `${alias}-missing`);
    try {
      const settled = await Promise.allSettled([missing.getByIdJson(grants[0].id), missing.getByIdJson('x')]);
      for (const r of settled) {
        expect(r.status).to.equal('rejected');
        expect((r as PromiseRejectedResult).reason).to.be.instanceOf(ServiceUnavailableError);
      }
    } finally {
      await missing.close();
    }
  });
});
