// /grants/:id on a real Elasticsearch through the engine: reads of one turn share an _mget, and
// each still gets its own grant (byte for byte), null for an unknown or refused id, and a 503
// (ServiceUnavailableError) for all of them when the alias is missing. Grants whose text
// Elasticsearch writes otherwise than JSON.stringify are served as JSON.stringify writes them.
import { expect } from 'chai';
import type { Grant } from '../../src/grants/schema.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { createEsClient } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { fixtureGrants } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, uniqueAlias, reindexAlias } from '../support/elasticsearch.js';

describeWithElasticsearch('grants by id on Elasticsearch', function () {
  this.timeout(60_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  // The first few hold what Elasticsearch writes differently from JSON.stringify (control
  // characters, doubles Java writes with an exponent) and what it writes alike (quotes,
  // backslashes, slashes, U+2028, astral characters): served byte for byte all the same.
  const tricky = (g: Grant, i: number): Grant => ({
    ...g,
    title: `Tab\there, "quoted" \\ back/slash ${String.fromCodePoint(0x1f33f)} ${i}`,
    description: `bell \u0007, unit separator \u001f, line\nbreak, \u2028 and \u00e9`,
    amountMin: [12345678.5, 0.0001, 0.5, 1e-7, 9999999.99][i % 5],
    amountMax: 1e13,
  });
  const grants: Grant[] = fixtureGrants()
    .slice(0, 50)
    .map((g, i) => (i < 10 ? tricky(g, i) : g));
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
    expect(answers).to.deep.equal([
      ...grants.map((g) => JSON.stringify(g)),
      null,
      null,
      null,
      null,
      JSON.stringify(grants[3]),
    ]);
  });

  it('serves the grants a search finds byte for byte too', async () => {
    const found = await engine.searchJson({ ...parseGrantQuery(parseQueryString('limit=100')), offset: 0, size: 100 });
    expect(found.total).to.equal(grants.length);
    const byId = new Map(grants.map((g) => [g.id, JSON.stringify(g)]));
    for (const text of found.grantsJson) expect(text).to.equal(byId.get((JSON.parse(text) as Grant).id));
  });

  it('a missing alias fails every read of the turn with ServiceUnavailableError', async () => {
    const missing = new ElasticsearchSearchEngine(
      createEsClient({ ...config, index: `${alias}-missing` }),
      `${alias}-missing`,
    );
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
