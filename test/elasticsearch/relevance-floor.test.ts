// The Elasticsearch engine's relevance on the real-program corpus stays at its committed floor
// (test/relevance/floor.json).
import { expect } from 'chai';
import { ES_URL, describeWithElasticsearch } from '../support/elasticsearch.js';
import { floorProblems, loadBenchData, loadFloor, measureAgainstFloor, FLOOR_TOLERANCE } from '../relevance/floor.js';
import type { JudgedQuery } from '../relevance/judgments.js';
import { elasticsearchSystem, type SearchSystem } from '../relevance/systems.js';

describeWithElasticsearch('relevance floor on the real-program corpus', function () {
  this.timeout(180_000);
  let queries: JudgedQuery[];
  let system: SearchSystem | undefined;

  before(async () => {
    const data = loadBenchData();
    queries = data.queries;
    system = await elasticsearchSystem(ES_URL as string, data.grants);
  });
  after(async () => {
    await system?.close();
  });

  it(`keeps nDCG@10 within ${FLOOR_TOLERANCE} of the committed floor in every matching mode`, async () => {
    const checks = await measureAgainstFloor(system as SearchSystem, queries, loadFloor());
    expect(floorProblems('elasticsearch', checks)).to.deep.equal([]);
  });
});
