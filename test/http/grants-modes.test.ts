// GET /grants `matching` and `synonyms` on the embedded engine, over the fixture grants and a few
// written so that each answer is known by construction (test/support/modesCatalog.ts): what
// `last` and `frequency` give up and in which order grants come, totals, facets and cursors of a
// relaxed search, the validation, and the synonym list's spellings (multi-word, acronyms, French).
// Both engines alike: test/elasticsearch/modes-parity.test.ts.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestApi, tempDir, type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { expectValidation } from '../support/assertions.js';
import { MODE_GRANTS as M, modesCatalogGrants, seedFile } from '../support/modesCatalog.js';

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};
const idsOf = (res: TestResponse): string[] => ok(res).body.data.map((g: { id: string }) => g.id);

describe('GET /grants: matching and synonyms [sqlite]', function () {
  this.timeout(60_000);
  let api: TestApi;
  const dir = tempDir();
  const get = (search: string, more = '', invalidRequest = false) =>
    api.request(
      `${G}?search=${encodeURIComponent(search)}&fields=id${more.includes('limit=') ? '' : '&limit=100'}${more}`,
      { invalidRequest },
    );
  const total = async (search: string, more = '') => ok(await get(search, more)).body.pagination.total as number;

  before(async () => {
    api = await startTestApi({ SEED_FILE: seedFile(dir, modesCatalogGrants()) });
  });
  after(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('matching', () => {
    it('all (the default): every word, as before', async () => {
      expect(idsOf(await get('zorblax quintorp velmish'))).to.deep.equal([M.allThree]);
      expect(idsOf(await get('zorblax quintorp velmish', '&matching=all'))).to.deep.equal([M.allThree]);
    });

    it('last: words given up from the end, more kept words first, down to the first word', async () => {
      const res = await get('zorblax quintorp velmish', '&matching=last');
      const ids = idsOf(res);
      expect(res.body.pagination.total).to.equal(4);
      expect(ids.slice(0, 2)).to.deep.equal([M.allThree, M.firstTwo]);
      expect(ids.slice(2)).to.have.members([M.firstOnly, M.phrase]);
      // A grant without the first word is never found by `last`.
      expect(ids).to.not.include(M.lastTwo);
    });

    it('frequency: the word in the most grants given up first (velmish, then zorblax), down to the rarest', async () => {
      const res = await get('zorblax quintorp velmish', '&matching=frequency');
      expect(res.body.pagination.total).to.equal(3);
      expect(idsOf(res)).to.deep.equal([M.allThree, M.firstTwo, M.lastTwo]);
    });

    it('a phrase and an exclusion are never given up', async () => {
      expect(idsOf(await get('zorblax "frobnic plaster" velmish', '&matching=last'))).to.deep.equal([M.phrase]);
      expect(idsOf(await get('quintorp "frobnic plaster"', '&matching=frequency'))).to.deep.equal([]);
      const excluded = idsOf(await get('zorblax quintorp velmish -plaster', '&matching=last'));
      expect(excluded.slice(0, 2)).to.deep.equal([M.allThree, M.firstTwo]);
      expect(excluded).to.have.members([M.allThree, M.firstTwo, M.firstOnly]);
    });

    it('a quoted word is kept like a phrase', async () => {
      expect(idsOf(await get('"velmish" zorblax', '&matching=last'))).to.have.members([M.allThree, M.phrase]);
    });

    it('one word, or a sort other than relevance: the same matches, in that sort', async () => {
      expect(await total('velmish', '&matching=last')).to.equal(await total('velmish'));
      const byTitle = idsOf(await get('zorblax quintorp velmish', '&matching=last&sort=title'));
      expect(byTitle).to.have.members([M.allThree, M.firstTwo, M.firstOnly, M.phrase]);
    });

    it('facets count every match of the most relaxed step', async () => {
      const res = ok(await get('zorblax quintorp velmish', '&matching=frequency&facets=funderType&limit=0'));
      const counted = (res.body.facets.funderType as { count: number }[]).reduce((sum, v) => sum + v.count, 0);
      expect(counted).to.equal(res.body.pagination.total).and.to.equal(3);
    });

    it('a cursor walks the same order, page after page', async () => {
      const all = idsOf(await get('zorblax quintorp velmish', '&matching=last'));
      const walked: string[] = [];
      let cursor = '*';
      for (let i = 0; i < 10 && cursor !== null; i++) {
        const res = ok(
          await api.request(
            `${G}?search=zorblax+quintorp+velmish&matching=last&limit=1&fields=id&cursor=${encodeURIComponent(cursor)}`,
          ),
        );
        walked.push(...res.body.data.map((g: { id: string }) => g.id));
        cursor = res.body.pagination.nextCursor;
      }
      expect(walked).to.deep.equal(all);
      // A cursor of matching=last is not one of matching=all.
      const first = ok(await api.request(`${G}?search=zorblax+quintorp+velmish&matching=last&limit=1&cursor=*`)).body
        .pagination.nextCursor as string;
      const other = await api.request(
        `${G}?search=zorblax+quintorp+velmish&limit=1&cursor=${encodeURIComponent(first)}`,
        { invalidRequest: true },
      );
      expect(other.status).to.equal(400);
    });

    it('a 200-character search of common words relaxes within the search budget', async () => {
      const words = (
        'funding program grant community support business energy health research innovation training youth ' +
        'rural housing arts clean water export'
      ).split(' ');
      let text = '';
      for (let i = 0; text.length + words[i % words.length].length + 1 <= 200; i++)
        text += `${words[i % words.length]} `;
      for (const mode of ['last', 'frequency']) {
        const started = performance.now();
        const res = ok(await get(text.trim(), `&matching=${mode}&typos=auto&limit=5`));
        expect(performance.now() - started, `${mode} ms`).to.be.below(2000);
        expect(res.body.pagination.total).to.be.above(0);
      }
    });

    it('an export holds the same grants in the same order', async () => {
      for (const more of ['&matching=last', '&matching=frequency', '&matching=frequency&sort=title']) {
        const page = idsOf(await get('zorblax quintorp velmish', more));
        const exported = ok(await api.request(`${G}/export?search=zorblax+quintorp+velmish${more}&fields=id`));
        expect(exported.headers.get('x-export-count'), more).to.equal(String(page.length));
        expect(
          exported.text
            .split('\n')
            .slice(0, -1)
            .map((line) => (JSON.parse(line) as { id: string }).id),
          more,
        ).to.deep.equal(page);
      }
    });

    it('an unknown value is a 400 listing the allowed ones', async () => {
      const [detail] = expectValidation(await get('zorblax', '&matching=some', true), ['matching']);
      expect(detail.message).to.equal('"some" is not one of all, last, frequency');
    });
  });

  describe('synonyms', () => {
    it('nonprofit finds non-profit and not-for-profit; synonyms=false finds the word as typed', async () => {
      expect(idsOf(await get('nonprofit'))).to.include.members([M.nonprofit, M.notForProfit]);
      expect(idsOf(await get('nonprofit', '&synonyms=false')))
        .to.include(M.nonprofit)
        .and.not.include(M.notForProfit);
      expect(idsOf(await get('not-for-profit capacity'))).to.include.members([M.nonprofit, M.notForProfit]);
    });

    it('multi-word spellings: R&D finds research and development, electric vehicle finds EV, home buyer finds homebuyer', async () => {
      expect(idsOf(await get('R&D manufacturing'))).to.include(M.researchAndDevelopment);
      expect(idsOf(await get('R&D manufacturing', '&synonyms=false'))).to.not.include(M.researchAndDevelopment);
      expect(idsOf(await get('electric vehicle charging'))).to.include(M.evCharging);
      expect(idsOf(await get('EV'))).to.include.members([M.evCharging, M.electricVehicle]);
      expect(idsOf(await get('first-time homebuyer'))).to.include(M.homeBuyer);
    });

    it('acronyms and French: NSERC finds CRSNG, organisme sans but lucratif finds à but non lucratif', async () => {
      expect(idsOf(await get('NSERC'))).to.include(M.crsng);
      expect(idsOf(await get('NSERC', '&synonyms=false'))).to.not.include(M.crsng);
      expect(idsOf(await get('organisme sans but lucratif "soutien communautaire"'))).to.include(M.obnl);
      expect(idsOf(await get('organisme sans but lucratif "soutien communautaire"', '&synonyms=false'))).to.not.include(
        M.obnl,
      );
      expect(idsOf(await get('OBNL "soutien communautaire"'))).to.include(M.obnl);
    });

    it('a quoted word is searched as written', async () => {
      expect(idsOf(await get('"nonprofit"')))
        .to.include(M.nonprofit)
        .and.not.include(M.notForProfit);
    });

    it('synonyms=maybe is a 400', async () => {
      const [detail] = expectValidation(await get('nonprofit', '&synonyms=maybe', true), ['synonyms']);
      expect(detail.message).to.match(/true or false/);
    });
  });
});
