// GET /grants/suggest on the embedded engine over the fixture grants: each completion and its
// count checked against a model read from the fixture file itself (the grants holding a word in
// a text field, bearing a title, from a funder, under the filters), the order, the typo rule on
// the prefix, accents and case, the words typed before the last one, the kinds, the validation,
// the scope and the billing. Both engines alike: test/elasticsearch/suggest-parity.test.ts.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { FIXTURES, startTestApi, type TestApi, type TestResponse } from '../support/api.js';
import { GRANTS_PATH as G } from '../support/catalog.js';
import { expectError, expectValidation } from '../support/assertions.js';
import { completes, nameWords } from '../../src/grants/suggest.js';
import type { Grant } from '../../src/grants/schema.js';

interface Item {
  text: string;
  type: 'word' | 'title' | 'funder';
  count: number;
}

const GRANTS: Grant[] = readFileSync(FIXTURES, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Grant);
const wordsOf = (grant: Grant): Set<string> =>
  new Set(
    [grant.title, grant.funder, grant.description, grant.titleFr, grant.descriptionFr].flatMap((text) =>
      text ? nameWords(text) : [],
    ),
  );

/** The model: every completion of `prefix` among `grants` of each kind, counted, in the answer's order. */
function expected(grants: Grant[], prefix: string, before = ''): Item[] {
  const words = new Map<string, number>();
  const titles = new Map<string, number>();
  const funders = new Map<string, number>();
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const grant of grants) {
    for (const word of wordsOf(grant)) if (completes(prefix, word)) add(words, word);
    if (nameWords(grant.title).some((word) => completes(prefix, word))) add(titles, grant.title);
    if (nameWords(grant.funder).some((word) => completes(prefix, word))) add(funders, grant.funder);
  }
  const items: Item[] = [
    ...[...words].map(([text, count]) => ({ text: `${before}${text}`, type: 'word' as const, count })),
    ...[...titles].map(([text, count]) => ({ text, type: 'title' as const, count })),
    ...[...funders].map(([text, count]) => ({ text, type: 'funder' as const, count })),
  ];
  return items.sort((a, b) => b.count - a.count || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}

/** The best `limit` of each kind, merged: what the answer holds (ties across kinds by text). */
const answerOf = (all: Item[], limit: number): Item[] => all.slice(0, limit);

describe('GET /grants/suggest [sqlite]', function () {
  this.timeout(60_000);
  let api: TestApi;
  const ok = (res: TestResponse): Item[] => {
    expect(res.status, res.text).to.equal(200);
    return res.body.data as Item[];
  };
  const suggest = async (q: string, more = ''): Promise<Item[]> =>
    ok(await api.request(`${G}/suggest?q=${encodeURIComponent(q)}${more}`));

  before(async () => {
    api = await startTestApi({ SEED_FILE: FIXTURES });
  });
  after(async () => {
    await api.stop();
  });

  it('completes the last word from the words, titles and funders, the most grants first, each with its count', async () => {
    for (const prefix of ['agri', 'energ', 'q', 'rur', 'innov', 'ontar', 'entrepr']) {
      expect(await suggest(prefix, '&limit=20'), prefix).to.deep.equal(answerOf(expected(GRANTS, prefix), 20));
    }
    const five = await suggest('agri');
    expect(five).to.have.length(5);
    expect(five).to.deep.equal(answerOf(expected(GRANTS, 'agri'), 5));
  });

  it('counts under the filters of GET /grants', async () => {
    const ontario = GRANTS.filter((g) => g.eligibleProvinces.includes('ONTARIO'));
    expect(await suggest('energ', '&eligibleProvinces=ONTARIO&limit=20')).to.deep.equal(
      answerOf(expected(ontario, 'energ'), 20),
    );
    const rebates = GRANTS.filter((g) => g.fundingType === 'REBATE' && g.funderType === 'CORPORATE');
    expect(await suggest('ef', '&fundingType=REBATE&funderType=CORPORATE&limit=20')).to.deep.equal(
      answerOf(expected(rebates, 'ef'), 20),
    );
    // A filter no grant meets: nothing to suggest.
    expect(await suggest('energ', '&fundingType=EQUITY&eligibleProvinces=NUNAVUT')).to.deep.equal(
      answerOf(
        expected(
          GRANTS.filter((g) => g.fundingType === 'EQUITY' && g.eligibleProvinces.includes('NUNAVUT')),
          'energ',
        ),
        5,
      ),
    );
  });

  it('tolerates typos in a prefix of 5 letters or more, as typos=auto counts them, never in the first letter', async () => {
    const typed = await suggest('agricultre', '&type=words');
    expect(typed.map((i) => i.text)).to.include('agriculture');
    expect(await suggest('agricultre', '&limit=20')).to.deep.equal(answerOf(expected(GRANTS, 'agricultre'), 20));
    expect(await suggest('enrgy', '&limit=20')).to.deep.equal(answerOf(expected(GRANTS, 'enrgy'), 20));
    expect((await suggest('enrgy', '&type=words')).map((i) => i.text)).to.include('energy');
    // Under 5 letters, as typed only: "agrc" completes nothing agri…
    expect((await suggest('agrc', '&limit=20')).map((i) => i.text)).to.not.include('agriculture');
    // … and the first letter is never a typo.
    expect((await suggest('sgriculture', '&limit=20')).map((i) => i.text)).to.not.include('agriculture');
  });

  it('folds accents and case: Qué, QUE and que complete alike', async () => {
    const folded = await suggest('que', '&limit=20');
    expect(await suggest('Qué', '&limit=20')).to.deep.equal(folded);
    expect(await suggest('QUE', '&limit=20')).to.deep.equal(folded);
    expect(folded.map((i) => i.text)).to.include('quebec');
  });

  it('keeps the words typed before the last one, and counts among the grants a search of them finds', async () => {
    const found: string[] = [];
    for (let page = 1; ; page++) {
      const res = await api.request(`${G}?search=energy&typos=off&synonyms=false&fields=id&limit=100&page=${page}`);
      found.push(...res.body.data.map((g: { id: string }) => g.id));
      if (page >= res.body.pagination.totalPages) break;
    }
    const ids = new Set(found);
    const items = await suggest('Energy ef', '&limit=20');
    expect(items.length).to.be.above(0);
    expect(items).to.deep.equal(
      answerOf(
        expected(
          GRANTS.filter((g) => ids.has(g.id)),
          'ef',
          'Energy ',
        ),
        20,
      ),
    );
    for (const item of items.filter((i) => i.type === 'word')) expect(item.text.startsWith('Energy ')).to.equal(true);
    // Spaces or punctuation after the last word are left out: it is still the word completed.
    expect(await suggest('Energy ef, ')).to.deep.equal(await suggest('Energy ef'));
  });

  it('type keeps to the kinds asked; limit bounds the answer', async () => {
    const titles = await suggest('energ', '&type=titles&limit=20');
    expect(titles.length).to.be.above(0);
    expect(titles.every((i) => i.type === 'title')).to.equal(true);
    expect(titles).to.deep.equal(
      expected(GRANTS, 'energ')
        .filter((i) => i.type === 'title')
        .slice(0, 20),
    );
    const funders = await suggest('q', '&type=funders,words&limit=3');
    expect(funders).to.deep.equal(
      expected(GRANTS, 'q')
        .filter((i) => i.type !== 'title')
        .slice(0, 3),
    );
    expect(await suggest('a', '&limit=1')).to.have.length(1);
  });

  it('text with no word to complete, or a word nothing completes, suggests nothing', async () => {
    expect(await suggest('!!! ')).to.deep.equal([]);
    expect(await suggest('zzzzqqq')).to.deep.equal([]);
  });

  it('refuses a missing, empty or long q, a bad limit or type, with the parameter named', async () => {
    expectValidation(await api.request(`${G}/suggest`, { invalidRequest: true }), ['q']);
    expectValidation(await api.request(`${G}/suggest?q=`, { invalidRequest: true }), ['q']);
    expectValidation(await api.request(`${G}/suggest?q=${'a'.repeat(101)}`, { invalidRequest: true }), ['q']);
    // 100 characters is the longest q: answered (with no completion of a word that long), not refused.
    expect((await api.request(`${G}/suggest?q=${'a'.repeat(100)}`)).body.data).to.be.an('array').that.is.empty;
    expectValidation(await api.request(`${G}/suggest?q=a&limit=0`, { invalidRequest: true }), ['limit']);
    expectValidation(await api.request(`${G}/suggest?q=a&limit=21`, { invalidRequest: true }), ['limit']);
    expectValidation(await api.request(`${G}/suggest?q=a&limit=x`, { invalidRequest: true }), ['limit']);
    expectValidation(await api.request(`${G}/suggest?q=a&type=grants`, { invalidRequest: true }), ['type']);
    expectValidation(await api.request(`${G}/suggest?q=a&sort=title`, { invalidRequest: true }), ['sort']);
    expectValidation(await api.request(`${G}/suggest?q=a&eligibleProvinces=MARS`, { invalidRequest: true }), [
      'eligibleProvinces',
    ]);
  });

  it('needs the grants:search scope and is billed like a search', async () => {
    const created = await api.request(`${G.replace('/grants', '/keys')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'reader', scopes: ['grants:read'] }),
    });
    expect(created.status, created.text).to.equal(201);
    expectError(await api.request(`${G}/suggest?q=agri`, { key: created.body.data.apiKey }), 403, 'SCOPE_NOT_ALLOWED');
    const usage = async () => {
      const res = await api.request(`${G.replace('/grants', '/subscription/usage')}?days=1`);
      return res.body.data.currentMonth.calls as number;
    };
    const before = await usage();
    await suggest('agri');
    await suggest('energ');
    expect(await usage()).to.equal(before + 2);
  });
});
