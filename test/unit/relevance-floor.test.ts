// The embedded engine's relevance on the real-program corpus stays at its committed floor
// (test/relevance/floor.json), and the judged set is well formed.
import { expect } from 'chai';
import type { Grant } from '../../src/grants/schema.js';
import { QUERY_CLASSES, type JudgedQuery } from '../relevance/judgments.js';
import { floorProblems, loadBenchData, loadFloor, measureAgainstFloor, FLOOR_TOLERANCE } from '../relevance/floor.js';
import { embeddedSystem, type SearchSystem } from '../relevance/systems.js';

describe('relevance floor on the real-program corpus (embedded engine)', function () {
  this.timeout(120_000);
  let grants: Grant[];
  let queries: JudgedQuery[];
  let system: SearchSystem | undefined;

  before(async () => {
    ({ grants, queries } = loadBenchData());
    system = await embeddedSystem(grants);
  });
  after(async () => {
    await system?.close();
  });

  it('judges at least 100 queries in every class, typo queries with the ids of the query they misspell', () => {
    expect(grants).to.have.length(3110);
    expect(queries.length).to.be.at.least(100);
    for (const cls of QUERY_CLASSES)
      expect(
        queries.filter((q) => q.class === cls),
        cls,
      ).to.not.be.empty;
    const byId = new Map(queries.map((q) => [q.id, q]));
    for (const q of queries.filter((q) => q.class === 'typo')) {
      const source = byId.get(q.typoOf ?? '');
      expect(source, `${q.id} misspells a judged query`).to.not.equal(undefined);
      expect([...q.relevant].sort(), q.id).to.deep.equal([...(source?.relevant ?? [])].sort());
      expect(q.search, q.id).to.not.equal(source?.search);
    }
    for (const q of queries) expect(q.relevant.size, q.id).to.be.within(1, 20);
  });

  it(`keeps nDCG@10 within ${FLOOR_TOLERANCE} of the committed floor in every matching mode`, async () => {
    const checks = await measureAgainstFloor(system as SearchSystem, queries, loadFloor());
    expect(floorProblems('embedded', checks)).to.deep.equal([]);
  });
});
