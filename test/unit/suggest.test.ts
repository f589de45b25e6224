// Search as you type's rules (grants/suggest.ts): the typed text read into context and prefix,
// the typo rule on a prefix, the dictionary walk of completions (search/wordDictionary.ts)
// against a scan of every word with the rule, and the best words found with few counts equal to
// the best of every word counted.
import { expect } from 'chai';
import {
  bestCounted,
  completes,
  firstBatchSize,
  MAX_COUNT_BATCH,
  nameWords,
  suggestInput,
  topCounted,
  type Candidate,
  type Counted,
} from '../../src/grants/suggest.js';
import { emptyBits, hasBit, positionsOf, setBit } from '../../src/search/sqlite/index/bitset.js';
import {
  bestNamesAmong,
  countHeld,
  MatchedGrants,
  NameIndex,
  wordGrantsOf,
} from '../../src/search/sqlite/index/suggestIndex.js';
import { mostFrequentFirst, RankedNames, SuggestDictionary } from '../../src/search/suggestDictionary.js';
import { SortedWords } from '../../src/search/wordDictionary.js';

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The items of an iterator. */
function* iterate<T>(iterator: Iterator<T>): Generator<T> {
  for (let item = iterator.next(); item.done !== true; item = iterator.next()) yield item.value;
}

describe('unit: search as you type', () => {
  it('reads the last word (folded, lower case) and the text before it as typed', () => {
    expect(suggestInput('Rural Broad')).to.deep.equal({ before: 'Rural ', prefix: 'broad' });
    expect(suggestInput('énergie PROPRE, ')).to.deep.equal({ before: 'énergie ', prefix: 'propre' });
    expect(suggestInput('Qué')).to.deep.equal({ before: '', prefix: 'que' });
    expect(suggestInput('cœur')).to.deep.equal({ before: '', prefix: 'coeur' });
    expect(suggestInput('!!! ')).to.equal(null);
    expect(suggestInput('')).to.equal(null);
  });

  it('the typo rule on a prefix: none under 5 letters, 1 from 5, 2 from 9, the first letter as typed, none with digits', () => {
    expect(completes('agri', 'agriculture')).to.equal(true);
    expect(completes('agrc', 'agriculture')).to.equal(false);
    expect(completes('agric', 'agriculture')).to.equal(true);
    expect(completes('agrci', 'agriculture')).to.equal(true); // a transposition
    expect(completes('agxcu', 'agriculture')).to.equal(false); // two typos at 5 letters
    expect(completes('agricultre', 'agriculture')).to.equal(true);
    expect(completes('agrxcultxre', 'agriculture')).to.equal(true); // two at 11 letters
    expect(completes('sgriculture', 'agriculture')).to.equal(false);
    expect(completes('covid1', 'covid19')).to.equal(true);
    expect(completes('covid2', 'covid19')).to.equal(false);
  });

  it('the dictionary walk finds exactly the words the rule completes', () => {
    const next = random(7);
    const letters = 'abcdeé';
    const word = (length: number) =>
      Array.from({ length }, () => letters[Math.floor(next() * letters.length)]).join('');
    const entries = new Map<string, number>();
    while (entries.size < 3000) entries.set(word(1 + Math.floor(next() * 10)), 1 + Math.floor(next() * 50));
    const dictionary = SortedWords.of([...entries]);
    for (let i = 0; i < 300; i++) {
      const prefix = word(1 + Math.floor(next() * 11));
      const budget = [...prefix].length < 5 ? 0 : [...prefix].length < 9 ? 1 : 2;
      const walked = dictionary
        .completions(prefix, budget)
        .map((c) => c.word)
        .sort();
      const scanned = [...entries.keys()].filter((w) => completes(prefix, w)).sort();
      expect(walked, prefix).to.deep.equal(scanned);
    }
  });

  it('the best of each kind from few counts are the best of every candidate counted, ties by text, none without a grant', async () => {
    const next = random(11);
    for (let round = 0; round < 50; round++) {
      const candidates = (kind: string): Candidate[] =>
        Array.from({ length: 200 }, (_, i) => ({
          text: `${kind}${String(i).padStart(3, '0')}`,
          docs: 1 + Math.floor(next() * 100),
          id: i,
        }));
      const words = candidates('w');
      const titles = candidates('t');
      const share = next();
      const counts = new Map([...words, ...titles].map((c) => [c.text, Math.floor(c.docs * share * next())]));
      let asked = 0;
      let rounds = 0;
      const best = await topCounted(
        { words: mostFrequentFirst(words), titles: mostFrequentFirst(titles) },
        7,
        async (batches) => {
          rounds++;
          asked += batches.words.length + batches.titles.length;
          return {
            words: batches.words.map((c) => counts.get(c.text)!),
            titles: batches.titles.map((c) => counts.get(c.text)!),
          };
        },
      );
      const all = (kind: string) =>
        [...counts]
          .filter(([text, n]) => text.startsWith(kind) && n > 0)
          .map(([text, count]) => ({ text, count }))
          .sort((a, b) => b.count - a.count || (a.text < b.text ? -1 : 1));
      expect(best.words).to.deep.equal(all('w').slice(0, 7));
      expect(best.titles).to.deep.equal(all('t').slice(0, 7));
      expect(asked).to.be.at.most(words.length + titles.length);
      // Both kinds are counted in the same rounds: 32, 64, 128 at most (200 candidates each).
      expect(rounds).to.be.at.most(3);
    }
  });

  it("with the first round's counts given, the same best from one request fewer", async () => {
    const next = random(29);
    for (let round = 0; round < 30; round++) {
      const words: Candidate[] = Array.from({ length: 300 }, (_, i) => ({
        text: `w${String(i).padStart(3, '0')}`,
        docs: 1 + Math.floor(next() * 100),
        id: i,
      }));
      const share = next();
      const counts = new Map(words.map((c) => [c.text, Math.floor(c.docs * share * next())]));
      const asked: number[] = [];
      const count = async (batches: { words: Candidate[] }) => {
        asked.push(batches.words.length);
        return { words: batches.words.map((c) => counts.get(c.text)!) };
      };
      const limit = 1 + Math.floor(next() * 10);
      const whole = await topCounted({ words: mostFrequentFirst(words) }, limit, count);
      const rounds = asked.length;
      asked.length = 0;
      const first = [...iterate(mostFrequentFirst(words))].slice(0, firstBatchSize(limit));
      const given = await topCounted({ words: mostFrequentFirst(words) }, limit, count, 32, MAX_COUNT_BATCH, {
        words: first.map((c) => counts.get(c.text)!),
      });
      expect(given).to.deep.equal(whole);
      expect(asked.length).to.equal(rounds - 1);
    }
  });

  it('the best counted in one pass are those of a whole sort: the most grants first, ties by text, none of 0', () => {
    const next = random(5);
    for (let round = 0; round < 200; round++) {
      const counted: Counted[] = Array.from({ length: Math.floor(next() * 60) }, () => ({
        text: `n${Math.floor(next() * 40)}`,
        count: Math.floor(next() * 4),
      }));
      const limit = Math.floor(next() * 12);
      const sorted = counted
        .filter(({ count }) => count > 0)
        .sort((a, b) => b.count - a.count || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
      expect(bestCounted(counted, limit)).to.deep.equal(sorted.slice(0, limit));
    }
  });

  it('candidates come the most grants first, ties by text; names holding a word each once, by rank', () => {
    const next = random(5);
    const candidates: Candidate[] = Array.from({ length: 300 }, (_, i) => ({
      text: `w${i}`,
      docs: Math.floor(next() * 20),
      id: -1,
    }));
    const sorted = [...candidates].sort((a, b) => b.docs - a.docs || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    expect([...mostFrequentFirst(candidates)]).to.deep.equal(sorted);

    const names = RankedNames.of([
      ['Rural Broadband Fund', 3],
      ['Clean Energy Fund', 7],
      ['Rural Energy Grant', 3],
      ['Arts Council', 0],
      ['Énergie rurale', 5],
    ]);
    expect(names.names).to.deep.equal([
      'Clean Energy Fund',
      'Énergie rurale',
      'Rural Broadband Fund',
      'Rural Energy Grant',
    ]);
    expect([...names.holding(['rural', 'rurale', 'energy', 'fund'])].map((c) => [c.text, c.docs, c.id])).to.deep.equal([
      ['Clean Energy Fund', 7, 0],
      ['Énergie rurale', 5, 1],
      ['Rural Broadband Fund', 3, 2],
      ['Rural Energy Grant', 3, 3],
    ]);
    expect([...names.holding(['energie', 'arts'])].map((c) => c.text)).to.deep.equal(['Énergie rurale']);
    expect([...names.holding([])]).to.deep.equal([]);
  });

  it('the candidates of a prefix: its completions the most grants first, and the names holding one by rank', () => {
    const next = random(13);
    const letters = 'abcdeé';
    const word = (length: number) =>
      Array.from({ length }, () => letters[Math.floor(next() * letters.length)]).join('');
    const entries = new Map<string, number>();
    while (entries.size < 2000) entries.set(word(1 + Math.floor(next() * 8)), 1 + Math.floor(next() * 30));
    const known = [...entries.keys()];
    // Names of 1 to 4 words, some not in the dictionary (a name's words need not all be).
    const name = () =>
      Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        next() < 0.8 ? known[Math.floor(next() * known.length)] : `${word(3)}z`,
      ).join(' ');
    const titles = new Map<string, number>();
    while (titles.size < 1500) titles.set(name(), Math.floor(next() * 6));
    const funders = new Map<string, number>();
    while (funders.size < 40) funders.set(name(), 1 + Math.floor(next() * 60));
    const dictionary = new SuggestDictionary(
      SortedWords.of([...entries]),
      RankedNames.of(titles),
      RankedNames.of(funders),
    );
    const prefixes = new Set<string>(['z', 'éz', 'abcdeabc']);
    for (const a of letters) {
      prefixes.add(a);
      for (const b of letters) {
        prefixes.add(a + b);
        for (const c of letters) prefixes.add(a + b + c);
      }
    }
    for (let i = 0; i < 200; i++) prefixes.add(word(4 + Math.floor(next() * 5)));
    let found = 0;
    for (const prefix of prefixes) {
      const budget = [...prefix].length < 5 ? 0 : [...prefix].length < 9 ? 1 : 2;
      const completions = dictionary.completions(prefix, budget);
      const candidates = dictionary.candidates(prefix, budget);
      if (completions.length === 0) {
        expect(candidates, prefix).to.equal(null);
        continue;
      }
      found++;
      const texts = completions.map((c) => c.text);
      expect([...iterate(candidates!.words())], prefix).to.deep.equal([...mostFrequentFirst(completions)]);
      expect(candidates!.completing, prefix).to.deep.equal(budget === 0 ? { prefix } : { words: texts });
      for (const kind of ['title', 'funder'] as const) {
        const holding = [...dictionary.names(kind).holding(texts)];
        expect([...iterate(candidates!.names(kind))], `${kind}s of ${prefix}`).to.deep.equal(holding);
        const ranks = new Set(holding.map((c) => c.id));
        const ranked = dictionary.names(kind).names;
        for (let rank = prefix.length % 4; rank < ranked.length; rank += 4)
          expect(candidates!.nameCompletes(kind, rank), `${ranked[rank]} completes ${prefix}`).to.equal(
            ranks.has(rank),
          );
      }
    }
    expect(found, 'prefixes completed').to.be.greaterThan(200);
  });

  it("a word's grants read from its rowids: positions for a rare word, a bit set past one grant in 32", () => {
    // Rowids 10, 20, … 640 at positions 0 … 63; rowid 15 is not in the columns.
    const columns = { size: 64, positionOf: (rowid: number) => (rowid % 10 === 0 ? rowid / 10 - 1 : -1) };
    expect(wordGrantsOf('', columns)).to.deep.equal({ positions: new Int32Array(0) });
    expect(wordGrantsOf('20,15,640', columns)).to.deep.equal({ positions: Int32Array.from([1, 63]) });
    const frequent = wordGrantsOf('10,15,30,50', columns);
    expect(frequent.bits, 'three of 64 grants: a bit set').to.not.equal(undefined);
    expect(frequent.bits === undefined ? [] : [...positionsOf(frequent.bits)]).to.deep.equal([0, 2, 4]);
    expect(frequent).to.include({ count: 3 });
  });

  it("a word's grants under the conditions, counted from either side, are those a scan finds", () => {
    const next = random(23);
    const size = 4000;
    let sides = 0;
    for (const wordShare of [0.001, 0.01, 0.05, 0.3]) {
      for (const matchShare of [0, 0.0005, 0.003, 0.03, 0.5, 1]) {
        const held = emptyBits(size);
        const matches = emptyBits(size);
        for (let p = 0; p < size; p++) {
          if (next() < wordShare) setBit(held, p);
          if (next() < matchShare) setBit(matches, p);
        }
        let expected = 0;
        for (let p = 0; p < size; p++) if (hasBit(held, p) && hasBit(matches, p)) expected++;
        const positions = positionsOf(held);
        const matched = new MatchedGrants(matches);
        // The same grants as a list and as a bit set (the index keeps one or the other).
        expect(countHeld({ positions }, matched), `list ${wordShare} × ${matchShare}`).to.equal(expected);
        expect(
          countHeld({ bits: held, count: positions.length }, matched),
          `bits ${wordShare} × ${matchShare}`,
        ).to.equal(expected);
        if (matched.count * 16 < positions.length || matched.count * 2 < held.length) sides++;
      }
    }
    expect(sides, "counts made from the matches' side").to.be.greaterThan(5);
  });

  it('the best names among few grants, each grant read once, are the best of the candidates counted', async () => {
    const next = random(17);
    const letters = 'abcdé';
    const word = (length: number) =>
      Array.from({ length }, () => letters[Math.floor(next() * letters.length)]).join('');
    const entries = new Map<string, number>();
    while (entries.size < 600) entries.set(word(1 + Math.floor(next() * 6)), 1);
    const known = [...entries.keys()];
    const name = () =>
      Array.from({ length: 1 + Math.floor(next() * 3) }, () => known[Math.floor(next() * known.length)]).join(' ');
    // 3,000 grants over 400 titles and 30 funders: a name borne by many grants, or by one.
    const titles = Array.from({ length: 400 }, name);
    const funders = Array.from({ length: 30 }, name);
    const grants = 3000;
    const titleOf = Array.from({ length: grants }, () => titles[Math.floor(next() ** 2 * titles.length)]);
    const funderOf = Array.from({ length: grants }, () => funders[Math.floor(next() * funders.length)]);
    const index = { title: NameIndex.of(titleOf), funder: NameIndex.of(funderOf) };
    const dictionary = new SuggestDictionary(SortedWords.of([...entries]), index.title.ranked, index.funder.ranked);
    let compared = 0;
    for (const prefix of ['a', 'b', 'é', 'ab', 'cd', 'abc', 'dabca', 'abcdea', ...known.slice(0, 40)]) {
      const budget = [...prefix].length < 5 ? 0 : 1;
      const candidates = dictionary.candidates(prefix, budget);
      if (candidates === null) continue;
      for (const share of [0.002, 0.02, 0.2]) {
        const matches = emptyBits(grants);
        for (let p = 0; p < grants; p++) if (next() < share) setBit(matches, p);
        const positions = positionsOf(matches);
        for (const kind of ['title', 'funder'] as const) {
          const counted = await topCounted({ names: candidates.names(kind) }, 5, async ({ names }) => ({
            names: names.map(({ id }) => index[kind].count(id, matches)),
          }));
          const among = bestNamesAmong(index[kind], kind, candidates, positions, 5);
          expect(among, `${kind}s of ${prefix} among ${positions.length}`).to.deep.equal(counted.names);
          if (among.length > 0) compared++;
        }
      }
    }
    expect(compared, 'comparisons with an answer').to.be.greaterThan(40);
  });

  it('a kind still open when its next batch would pass the last one is left to the caller', async () => {
    const words: Candidate[] = Array.from({ length: 500 }, (_, i) => ({ text: `w${i}`, docs: 500 - i, id: -1 }));
    const titles: Candidate[] = [{ text: 'Fund', docs: 9, id: 0 }];
    const rounds: number[] = [];
    const best = await topCounted(
      { words: mostFrequentFirst(words), titles: mostFrequentFirst(titles) },
      5,
      async (batches) => {
        rounds.push(batches.words.length);
        // Few grants: every word counts one or none, so no round closes the words.
        return { words: batches.words.map((_, i) => (i % 7 === 0 ? 1 : 0)), titles: batches.titles.map(() => 4) };
      },
      32,
      64,
    );
    expect(rounds).to.deep.equal([32, 64]);
    expect(best).to.deep.equal({ titles: [{ text: 'Fund', count: 4 }] });
  });

  it('the words of a title or funder name, folded and in lower case', () => {
    expect(nameWords("Ministère de l'Économie du Québec")).to.deep.equal([
      'ministere',
      'de',
      'l',
      'economie',
      'du',
      'quebec',
    ]);
  });
});
