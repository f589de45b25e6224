// GET /grants `typos` and `suggestion` on the embedded engine, over the fixture grants and a few
// written for the typo rule's edges (test/support/typoCatalog.ts): what `typos=auto` finds and
// what it never does, exact matches ranked above typos, the "did you mean", the validation, and a
// 200-character query of words with hundreds of neighbours answered within the search budget.
// Both engines alike: test/elasticsearch/typos-parity.test.ts.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestApi, tempDir, type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { expectValidation } from '../support/assertions.js';
import {
  crowdedCatalogGrants,
  crowdedQuery,
  seedFile,
  TYPO_GRANTS as T,
  typoCatalogGrants,
} from '../support/typoCatalog.js';

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};
const idsOf = (res: TestResponse): string[] => ok(res).body.data.map((g: { id: string }) => g.id);

describe('GET /grants: typos and suggestion [sqlite]', function () {
  this.timeout(60_000);
  let api: TestApi;
  const dir = tempDir();
  const get = (search: string, more = '') =>
    api.request(`${G}?search=${encodeURIComponent(search)}&limit=100&fields=id${more}`);
  const total = async (search: string, more = '') => ok(await get(search, more)).body.pagination.total as number;

  before(async () => {
    api = await startTestApi({ SEED_FILE: seedFile(dir, typoCatalogGrants()) });
  });
  after(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('off by default: a misspelt word finds nothing, as before', async () => {
    expect(await total('brodband')).to.equal(0);
    expect(await total('brodband', '&typos=off')).to.equal(0);
    expect(await total('agricultre')).to.equal(0);
  });

  it('auto: brodband finds the broadband grants, agricultre the agriculture ones', async () => {
    expect(idsOf(await get('brodband', '&typos=auto'))).to.have.members([
      T.ruralBroadband,
      T.schoolBroadband,
      T.misspeltBroadband,
    ]);
    expect(await total('agricultre', '&typos=auto'))
      .to.equal(await total('agriculture'))
      .and.to.be.above(0);
  });

  it('a grant matching every word as typed ranks above one that needs a typo', async () => {
    const ids = idsOf(await get('broadband', '&typos=auto'));
    expect(ids).to.have.length(3);
    expect(ids[2]).to.equal(T.misspeltBroadband);
    // Without typos the misspelt grant is not found at all.
    expect(idsOf(await get('broadband'))).to.have.members([T.ruralBroadband, T.schoolBroadband]);
  });

  it('an adjacent transposition is one typo', async () => {
    expect(idsOf(await get('famring', '&typos=auto'))).to.include(T.farming);
    expect(idsOf(await get('grian', '&typos=auto'))).to.include(T.grain);
  });

  it('the first letter must match', async () => {
    expect(idsOf(await get('varming', '&typos=auto'))).to.not.include(T.farming);
    expect(await total('varming', '&typos=auto')).to.equal(0);
  });

  it('no typo under 5 letters, 1 from 5 to 8, 2 from 9', async () => {
    expect(await total('fatm', '&typos=auto')).to.equal(0); // farm, one typo, 4 letters
    expect(await total('grin', '&typos=auto')).to.equal(0); // grain, one typo, 4 letters
    expect(await total('brodbamd', '&typos=auto')).to.equal(0); // broadband, two typos, 8 letters
    expect(await total('agrycultre', '&typos=auto')).to.equal(await total('agriculture')); // two typos, 10 letters
  });

  it('never on numbers, words with digits, quoted words or phrases, or exclusions', async () => {
    expect(await total('4418', '&typos=auto')).to.equal(0);
    expect(await total('4417', '&typos=auto')).to.equal(1);
    expect(await total('covid18', '&typos=auto')).to.equal(0);
    expect(await total('"brodband access"', '&typos=auto')).to.equal(0);
    expect(await total('"brodband"', '&typos=auto')).to.equal(0);
    expect(idsOf(await get('broadband -rurla', '&typos=auto'))).to.include(T.ruralBroadband);
    expect(idsOf(await get('broadband -rural', '&typos=auto'))).to.not.include(T.ruralBroadband);
  });

  it('accents and case are folded before typos are counted', async () => {
    expect(await total('AGRICULTRÉ', '&typos=auto')).to.equal(await total('agriculture'));
  });

  it('suggestion: the respelled search and its total when the search finds fewer than 3 grants', async () => {
    const res = ok(await get('brodband'));
    expect(res.body.suggestion).to.deep.equal({ search: 'broadband', total: 2 });
    expect(ok(await get('brodband rural')).body.suggestion).to.deep.equal({ search: 'broadband rural', total: 1 });
    expect(ok(await get('agricultre')).body.suggestion).to.deep.equal({
      search: 'agriculture',
      total: await total('agriculture'),
    });
    // With typos the misspelling finds 3 already: no suggestion.
    expect(ok(await get('brodband', '&typos=auto')).body.suggestion).to.equal(null);
    // Found enough, or nothing better to offer: null.
    expect(ok(await get('agriculture')).body.suggestion).to.equal(null);
    expect(ok(await get('zzzzzzzz')).body.suggestion).to.equal(null);
    // Without a search, no suggestion field.
    expect(ok(await api.request(`${G}?limit=1`)).body).to.not.have.property('suggestion');
  });

  it('suggestion keeps the filters: its total is counted with them', async () => {
    const res = ok(await get('agricultre', '&fundingType=LOAN'));
    const filtered = await total('agriculture', '&fundingType=LOAN');
    expect(res.body.suggestion).to.deep.equal(filtered > 0 ? { search: 'agriculture', total: filtered } : null);
  });

  it('a cursor binds the typo mode', async () => {
    const first = ok(await api.request(`${G}?search=brodband&typos=auto&limit=1&cursor=*`));
    const next = first.body.pagination.nextCursor as string;
    expect(next).to.be.a('string');
    ok(await api.request(`${G}?search=brodband&typos=auto&limit=1&cursor=${encodeURIComponent(next)}`));
    const refused = await api.request(`${G}?search=brodband&limit=1&cursor=${encodeURIComponent(next)}`, {
      invalidRequest: true,
    });
    expect(refused.status).to.equal(400);
  });

  it('the export finds what the search finds', async () => {
    const res = await api.request(`${G}/export?search=brodband&typos=auto`);
    expect(res.status).to.equal(200);
    expect(
      res.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).to.deep.equal(idsOf(await get('brodband', '&typos=auto')));
  });

  it('an unknown value is a 400 listing the allowed ones', async () => {
    const res = await api.request(`${G}?search=x&typos=on`, { invalidRequest: true });
    expectValidation(res, ['typos']);
    expect(res.body.error.message).to.include('off, auto');
  });
});

describe('GET /grants: a hostile typo query [sqlite]', function () {
  this.timeout(120_000);
  let api: TestApi;
  const dir = tempDir();
  before(async () => {
    api = await startTestApi({ SEED_FILE: seedFile(dir, crowdedCatalogGrants()), SEARCH_TIMEOUT_MS: '2000' });
  });
  after(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('200 characters of words with hundreds of neighbours each answer within the search budget', async () => {
    const query = crowdedQuery();
    expect(query).to.have.length(200);
    // The build's word dictionary is read on its first use (once per build and search thread): a word first.
    ok(await api.request(`${G}?search=${query.slice(0, 9)}&typos=auto&limit=0`));
    const started = performance.now();
    const res = await api.request(`${G}?search=${encodeURIComponent(query)}&typos=auto&limit=5`);
    const ms = performance.now() - started;
    expect(res.status, res.text).to.equal(200);
    expect(ms, 'ms').to.be.below(2000);
    expect(res.body.pagination.total).to.equal(0);
    expect(res.body).to.have.property('suggestion');
  });
});
