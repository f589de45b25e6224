// GET /grants/:id/similar on both engines alike: over the bundled fixtures and the real-program
// corpus, for grants taken across each catalog, with and without filters, the same grants in the
// same order and the same totals.
import { expect } from 'chai';
import type { Grant } from '../../src/grants/schema.js';
import { type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { describeWithElasticsearch } from '../support/elasticsearch.js';
import { bothEngines } from '../support/parity.js';
import { loadCorpus, REAL_PROGRAMS_DIR } from '../relevance/judgments.js';

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

/** The filters each grant's similar grants are asked with: none, open grants of two provinces, and the largest list. */
const VARIANTS = ['', '?open=true&eligibleProvinces=ONTARIO,QUEBEC', '?limit=50&fundingType=GRANT,LOAN'];

/** Every `every`-th id of the catalog, in id order. */
async function sampledIds(api: TestApi, every: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = '*';
  while (cursor !== null) {
    const res = ok(await api.request(`${G}?fields=id&sort=title&limit=100&cursor=${encodeURIComponent(cursor)}`));
    ids.push(...res.body.data.map((g: { id: string }) => g.id));
    cursor = res.body.pagination.nextCursor;
  }
  return ids.sort().filter((_, i) => i % every === 0);
}

/**
 * Waits until both engines find the same number of grants for a common word (the embedded engine's index of the new
 * catalog read).
 */
async function bothReady(es: TestApi, sqlite: TestApi): Promise<void> {
  const total = async (api: TestApi) =>
    ok(await api.request(`${G}?search=program&limit=0`)).body.pagination.total as number;
  const deadline = Date.now() + 120_000;
  while ((await total(es)) !== (await total(sqlite))) {
    if (Date.now() > deadline) throw new Error('the engines never held the same catalog');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function parityOver(title: string, grants: (() => readonly Grant[]) | undefined, every: number): void {
  describe(title, function () {
    const engines = bothEngines({ grants });
    before(() => bothReady(engines.es(), engines.sqlite()));

    it('gives the same similar grants in the same order, with the same totals, on both engines', async function () {
      const ids = await sampledIds(engines.sqlite(), every);
      expect(ids.length).to.be.greaterThan(40);
      let listed = 0;
      for (const id of ids) {
        for (const variant of VARIANTS) {
          const path = `${G}/${encodeURIComponent(id)}/similar${variant}${variant === '' ? '?' : '&'}fields=id`;
          const [fromSqlite, fromEs] = await engines.both(path);
          expect(ok(fromEs).body.data, `${path}`).to.deep.equal(ok(fromSqlite).body.data);
          expect(fromEs.body.pagination, path).to.deep.equal(fromSqlite.body.pagination);
          expect(fromEs.body.data.map((g: { id: string }) => g.id)).not.to.include(id);
          if (variant === '' && fromEs.body.data.length > 0) listed++;
        }
      }
      // Not vacuous: most grants have similar grants.
      expect(listed).to.be.greaterThan(ids.length * 0.8);
    });
  });
}

describeWithElasticsearch('similar grants: both engines alike', function () {
  this.timeout(600_000);

  parityOver('over the bundled fixtures', undefined, 12);
  parityOver('over the real-program corpus', () => loadCorpus(`${REAL_PROGRAMS_DIR}/programs-bilingual.ndjson.gz`), 62);
});
