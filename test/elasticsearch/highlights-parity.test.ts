// Highlights and crops byte-identical on both engines, through the HTTP API: over the catalog
// written for them (test/support/highlightCatalog.ts), over the bundled fixtures with every text
// search of the recorded contract cases (fixtures/queries), and over the real-program corpus
// (English and French) with every judged query, typo-tolerant. The embedded engine's own suite
// is test/http/grants-highlights.test.ts.
import { expect } from 'chai';
import { loadCases } from '../../scripts/replay.js';
import { fixtureGrants, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { describeWithElasticsearch } from '../support/elasticsearch.js';
import { bothEngines, type BothEngines } from '../support/parity.js';
import { validateGrant, type Grant } from '../../src/grants/schema.js';
import { HIGHLIGHT_GRANTS, HIGHLIGHT_SEARCHES } from '../support/highlightCatalog.js';
import { corpusFile, loadCorpus, loadJudgments } from '../relevance/judgments.js';

/** A record of the catalog as the indexer stores it. */
function canonical(record: unknown): Grant {
  const result = validateGrant(record);
  if (!result.ok) throw new Error(`not a grant: ${JSON.stringify(result.problems)}`);
  return result.grant;
}

const EVERY_FIELD = 'highlight=title,description,funder,titleFr,descriptionFr';

/** The page's highlights by grant id, and the ids in order. */
function highlightsOf(res: TestResponse): { ids: string[]; highlights: Record<string, unknown> } {
  expect(res.status, res.text.slice(0, 300)).to.equal(200);
  const data = res.body.data as { id: string; highlights: unknown }[];
  for (const grant of data) expect(grant.highlights, grant.id).to.be.an('object');
  const byId = [...data].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { ids: data.map((g) => g.id), highlights: Object.fromEntries(byId.map((g) => [g.id, g.highlights])) };
}

/** Sends one query to both engines and expects the same highlights of the same grants, byte for byte. */
async function expectSameHighlights(engines: BothEngines, query: string): Promise<number> {
  const [a, b] = await engines.both(`${G}?${query}`);
  const [onSqlite, onEs] = [highlightsOf(a), highlightsOf(b)];
  expect([...onEs.ids].sort(), `${query}: the same grants`).to.deep.equal([...onSqlite.ids].sort());
  expect(JSON.stringify(onEs.highlights), `${query}: elasticsearch (actual) vs sqlite (expected)`).to.equal(
    JSON.stringify(onSqlite.highlights),
  );
  return onSqlite.ids.length;
}

describeWithElasticsearch('highlights: both engines alike', function () {
  this.timeout(300_000);

  describe('the highlight catalog', () => {
    const engines = bothEngines({ grants: () => HIGHLIGHT_GRANTS.map(canonical) });
    for (const search of HIGHLIGHT_SEARCHES) {
      it(search, async () => {
        expect(
          await expectSameHighlights(engines, `${search}&fields=id&limit=100&${EVERY_FIELD}&crop=description:12`),
        ).to.be.above(0);
        await expectSameHighlights(
          engines,
          `${search}&fields=id&limit=100&highlight=title&highlightPreTag=%5B&highlightPostTag=%5D`,
        );
      });
    }
  });

  describe('the bundled fixtures: every text search of the recorded cases', () => {
    const engines = bothEngines({ grants: fixtureGrants });
    const searches = [
      ...new Set(
        loadCases()
          .filter((c) => c.expect.status === 200 && /[?&]search=/.test(c.request))
          .map((c) => c.request.replace(/^\/grants\?/, '')),
      ),
    ];
    it('covers the text cases', () => expect(searches.length).to.be.at.least(30));
    it('the same highlights for each', async () => {
      let found = 0;
      for (const request of searches) {
        const query =
          `${request.replace(/&?(limit|page|fields|facets)=[^&]*/g, '')}&limit=100&fields=id&${EVERY_FIELD}&` +
          `crop=description:20`;
        found += await expectSameHighlights(engines, query.replace(/^&/, ''));
      }
      expect(found).to.be.above(100);
    });
  });

  describe('the real-program corpus, English and French: every judged query', () => {
    const grants = loadCorpus(corpusFile({}).replace('programs.ndjson.gz', 'programs-bilingual.ndjson.gz'));
    const engines = bothEngines({ grants: () => grants });
    it('the same highlights for each, typos and synonyms on', async () => {
      const queries = loadJudgments(new Set(grants.map((g) => g.id)));
      let found = 0;
      for (const q of queries) {
        found += await expectSameHighlights(
          engines,
          `search=${encodeURIComponent(q.search)}&typos=auto&sort=title&limit=50&fields=id&${EVERY_FIELD}&` +
            `crop=description:40`,
        );
      }
      expect(found).to.be.above(queries.length);
    });
  });
});
