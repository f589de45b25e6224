// Search as you type's rules (grants/suggest.ts): the typed text read into context and prefix,
// the typo rule on a prefix, the dictionary walk of completions (search/wordDictionary.ts)
// against a scan of every word with the rule, and the best words found with few counts equal to
// the best of every word counted.
import { expect } from 'chai';
import { completes, nameWords, suggestInput, topWords } from '../../src/grants/suggest.js';
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

  it('the best words from few counts are the best of every word counted, ties by word, none without a grant', async () => {
    const next = random(11);
    for (let round = 0; round < 50; round++) {
      const candidates = Array.from({ length: 200 }, (_, i) => ({
        word: `w${String(i).padStart(3, '0')}`,
        docs: 1 + Math.floor(next() * 100),
      }));
      const share = next();
      const counts = new Map(candidates.map((c) => [c.word, Math.floor(c.docs * share * next())]));
      let asked = 0;
      const best = await topWords(candidates, 7, async (words) => {
        asked += words.length;
        return words.map((w) => counts.get(w)!);
      });
      const all = [...counts]
        .filter(([, n]) => n > 0)
        .map(([word, count]) => ({ word, count }))
        .sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : 1));
      expect(best).to.deep.equal(all.slice(0, 7));
      expect(asked).to.be.at.most(candidates.length);
    }
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
