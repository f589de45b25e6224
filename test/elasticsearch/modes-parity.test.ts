// `matching` and `synonyms` on both engines alike, through the HTTP API, over the same catalog
// (test/support/modesCatalog.ts): for every search of MODE_SEARCHES in every mode, the same
// total, the same facets, the same matches and the same order of buckets (grants keeping more
// words first; the text score orders within, each engine's own); and Elasticsearch's own answers
// to the cases the embedded suite (test/http/grants-modes.test.ts) knows by construction.
import { expect } from 'chai';
import { type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { describeWithElasticsearch } from '../support/elasticsearch.js';
import { MODE_GRANTS as M, MODE_SEARCHES, modesCatalogGrants } from '../support/modesCatalog.js';
import { bothEngines } from '../support/parity.js';
import { relaxationPlan, relaxableTerms } from '../../src/grants/relaxation.js';
import { parseSearch, type ParsedSearch, type SearchTerm } from '../../src/grants/searchSyntax.js';
import { withSynonyms } from '../../src/grants/synonyms.js';
import { loadSynonyms } from '../../src/search/synonymSearch.js';
import { REPO_ROOT } from '../support/api.js';

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};
const idsOf = (res: TestResponse): string[] => ok(res).body.data.map((g: { id: string }) => g.id);

/** The shipped synonyms, which the APIs under test read. */
const rules = loadSynonyms(`${REPO_ROOT}/mappings/synonyms.txt`);

const MODES = [
  'matching=all',
  'matching=last',
  'matching=frequency',
  'synonyms=false',
  'synonyms=false&matching=last',
  'matching=frequency&sort=title',
  'typos=auto&matching=frequency',
  'typos=auto&matching=last',
];

describeWithElasticsearch('matching and synonyms: both engines alike', function () {
  this.timeout(180_000);
  const engines = bothEngines({ grants: modesCatalogGrants });

  const search = (api: TestApi, text: string, more: string) =>
    api.request(
      `${G}?search=${encodeURIComponent(text)}&limit=100&fields=id&facets=fundingType,eligibleProvinces&${more}`,
    );

  /**
   * Search text that parses back into these terms: a term with alternatives as its words (the synonyms join them
   * again), a quoted word or phrase quoted.
   */
  const termText = (term: SearchTerm): string =>
    (term.alternatives?.length ?? 0) > 0
      ? term.words.join(' ')
      : term.words.length > 1 || term.exact
        ? `"${term.words.join(' ')}"`
        : term.words[0];
  const searchText = (search: ParsedSearch): string =>
    search.clauses
      .map((clause) => [...clause.must.map(termText), ...clause.not.map((t) => `-"${t.words.join(' ')}"`)].join(' '))
      .join(' OR ');

  /** Every grant a search matches (a cursor walk). */
  async function allIds(api: TestApi, text: string, more: string): Promise<Set<string>> {
    const ids = new Set<string>();
    let cursor: string | null = '*';
    while (cursor !== null) {
      const res = ok(
        await api.request(
          `${G}?search=${encodeURIComponent(text)}&limit=100&fields=id&cursor=${encodeURIComponent(cursor)}${more}`,
        ),
      );
      for (const id of idsOf(res)) ids.add(id);
      cursor = res.body.pagination.nextCursor;
    }
    return ids;
  }

  /**
   * The buckets of a relevance answer: each grant's number of relaxation levels reached, read from
   * the answers of the levels' own searches (matching=all), so both engines are judged alike.
   */
  async function bucketsOf(api: TestApi, text: string, more: string, ids: string[]): Promise<number[]> {
    const mode = /matching=(last|frequency)/.exec(more)?.[1] as 'last' | 'frequency' | undefined;
    if (mode === undefined) return ids.map(() => 0);
    const off = more.includes('synonyms=false');
    const synonyms = (off ? '&synonyms=false' : '') + (more.includes('typos=auto') ? '&typos=auto' : '');
    const parsed = off ? parseSearch(text) : withSynonyms(parseSearch(text), rules);
    const counts = await Promise.all(
      relaxableTerms(parsed).map((terms) =>
        Promise.all(
          terms.map(
            async (term) =>
              ok(await api.request(`${G}?search=${encodeURIComponent(termText(term))}&limit=0${synonyms}`)).body
                .pagination.total as number,
          ),
        ),
      ),
    );
    const plan = relaxationPlan(parsed, mode, counts);
    if (plan === null) return ids.map(() => 0);
    const levelIds = await Promise.all(plan.levels.map((level) => allIds(api, searchText(level), synonyms)));
    return ids.map((id) => levelIds.filter((set) => set.has(id)).length);
  }

  for (const more of MODES) {
    for (const text of MODE_SEARCHES) {
      it(`${text}  (${more})`, async () => {
        const [a, b] = await Promise.all([search(engines.sqlite(), text, more), search(engines.es(), text, more)]);
        // The page's grants as a set when it holds every match (past 100, the text scores choose which grants of the
        // last bucket fill it).
        const summary = (res: TestResponse) => ({
          total: ok(res).body.pagination.total,
          ids: res.body.pagination.total <= 100 ? idsOf(res).sort() : null,
          facets: res.body.facets,
        });
        expect(summary(b), 'elasticsearch (actual) vs sqlite (expected)').to.deep.equal(summary(a));
        if (more.includes('sort=title')) {
          expect(idsOf(b), 'a sort other than relevance: the same order').to.deep.equal(idsOf(a));
          return;
        }
        // The same order of buckets: each engine's answer, bucket by bucket, never rises.
        for (const [api, res] of [
          [engines.sqlite(), a],
          [engines.es(), b],
        ] as const) {
          const buckets = await bucketsOf(api, text, more, idsOf(res));
          expect(
            buckets,
            `${api === engines.es() ? 'elasticsearch' : 'sqlite'}: levels reached, in answer order`,
          ).to.deep.equal([...buckets].sort((x, y) => y - x));
        }
      });
    }
  }

  it('Elasticsearch gives the answers known by construction', async () => {
    const ids = async (text: string, more = '') => idsOf(await search(engines.es(), text, more));
    expect(await ids('zorblax quintorp velmish')).to.deep.equal([M.allThree]);
    const last = await ids('zorblax quintorp velmish', 'matching=last');
    expect(last.slice(0, 2)).to.deep.equal([M.allThree, M.firstTwo]);
    expect(last.slice(2)).to.have.members([M.firstOnly, M.phrase]);
    expect(await ids('zorblax quintorp velmish', 'matching=frequency')).to.deep.equal([
      M.allThree,
      M.firstTwo,
      M.lastTwo,
    ]);
    expect(await ids('zorblax "frobnic plaster" velmish', 'matching=last')).to.deep.equal([M.phrase]);
    expect(await ids('nonprofit')).to.include.members([M.nonprofit, M.notForProfit]);
    expect(await ids('nonprofit', 'synonyms=false')).to.not.include(M.notForProfit);
    expect(await ids('R&D manufacturing')).to.include(M.researchAndDevelopment);
    expect(await ids('electric vehicle charging')).to.include(M.evCharging);
    expect(await ids('NSERC')).to.include(M.crsng);
    expect(await ids('organisme sans but lucratif "soutien communautaire"')).to.include(M.obnl);
  });

  it('an export holds what the search finds, in its order, on both engines', async () => {
    for (const api of [engines.sqlite(), engines.es()]) {
      for (const more of ['matching=last', 'typos=auto&matching=frequency', 'matching=frequency&sort=title']) {
        const page = idsOf(await api.request(`${G}?search=zorblax+quintorp+velmish&${more}&limit=100&fields=id`));
        const exported = ok(await api.request(`${G}/export?search=zorblax+quintorp+velmish&${more}&fields=id`));
        expect(
          exported.text
            .split('\n')
            .slice(0, -1)
            .map((line) => (JSON.parse(line) as { id: string }).id),
          `${api === engines.es() ? 'elasticsearch' : 'sqlite'} ${more}`,
        ).to.deep.equal(page);
      }
    }
  });

  it('a cursor walks the relaxed order on Elasticsearch as one page gives it', async () => {
    const all = idsOf(await search(engines.es(), 'zorblax quintorp velmish', 'matching=frequency'));
    const walked: string[] = [];
    let cursor: string | null = '*';
    for (let i = 0; i < 10 && cursor !== null; i++) {
      const res = ok(
        await engines
          .es()
          .request(
            `${G}?search=zorblax+quintorp+velmish&matching=frequency&limit=1&fields=id&` +
              `cursor=${encodeURIComponent(cursor)}`,
          ),
      );
      walked.push(...idsOf(res));
      cursor = res.body.pagination.nextCursor;
    }
    expect(walked).to.deep.equal(all);
  });
});
