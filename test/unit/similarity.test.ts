// The method of GET /grants/:id/similar (src/grants/similarity.ts), pure: which terms of a grant
// are counted, which are chosen, and how each other grant scores and ranks.
import { expect } from 'chai';
import { foldText } from '../../src/grants/folding.js';
import {
  elide,
  foldedText,
  foldedWords,
  frenchLightStem,
  frenchTerms,
  termInitials,
  wordsBeginningWith,
} from '../../src/grants/french.js';
import type { Grant } from '../../src/grants/schema.js';
import {
  anyTermSearch,
  chooseTerms,
  COMMON_FLOOR,
  idf,
  MAX_COUNTED_TERMS,
  MAX_SCORED_GRANTS,
  MAX_SIMILAR_TERMS,
  rankSimilar,
  similarityScore,
  sourceTerms,
  type SimilarTerm,
  type SourceTerm,
} from '../../src/grants/similarity.js';

const frenchTermOfFoldedWord = (word: string): string => frenchTerms(word)[0];

const grant = (id: string, title: string, funder: string, description: string | null): Grant =>
  ({
    id,
    title,
    funder,
    description,
    funderType: 'FEDERAL_GRANT',
    fundingType: 'GRANT',
    currency: 'CAD',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  }) as Grant;

const term = (key: string, weight: number): SimilarTerm => ({ key, word: key, docs: 2, weight });

describe('similar grants: the shared method', function () {
  it('counts each term of the title, funder and description by key, with its field weight; short and digit-only words are no terms', function () {
    const terms = sourceTerms(grant('g', 'Kelp Forests', 'Ocean Trust', 'Forest kelp, kelp! 2024 of an élan'));
    // kelp: title 3 + description 1 + 1; forests/forest share the key "forest": 3 + 1; ocean, trust 2; élan folded;
    // "of", "an", "2024" dropped.
    expect(terms.map((t) => [t.word, t.key, t.frequency])).to.deep.equal([
      ['kelp', 'kelp', 5],
      ['forests', 'forest', 4],
      ['ocean', 'ocean', 2],
      ['trust', 'trust', 2],
      ['elan', 'elan', 1],
    ]);
  });

  it('keeps the MAX_COUNTED_TERMS most frequent terms, the earliest first on ties', function () {
    const words = Array.from(
      { length: MAX_COUNTED_TERMS + 5 },
      (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
    );
    const terms = sourceTerms(grant('g', 'Title', 'Funder', `${words.join(' ')} ${words.at(-1)}`));
    expect(terms).to.have.length(MAX_COUNTED_TERMS);
    expect(terms[0].word).to.equal('title');
    expect(terms.map((t) => t.word)).to.include(words.at(-1));
    expect(terms.map((t) => t.word)).not.to.include(words.at(-2));
  });

  it('words and their keys are those of the French analysis both engines match by', function () {
    const text = "L'Énergie des forêts, Œuvres: 3D-printing";
    expect(foldedWords(text).map((w) => frenchTerms(w)[0])).to.deep.equal(frenchTerms(text));
    expect(foldedWords('Plain ASCII text, with 2 numbers 10.5')).to.deep.equal([
      'plain',
      'ascii',
      'text',
      'with',
      '2',
      'numbers',
      '10',
      '5',
    ]);
  });

  /** Texts of random characters of U+0000–U+017F (the Latin text foldedWords folds a character at a time), seeded. */
  const latinTexts = (count: number): string[] => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pool = [..."abcdeéèêàçôœæß ’'-İıſĳŉªº½¹²"];
    return Array.from({ length: count }, (_, i) =>
      Array.from({ length: 1 + next(14) }, () =>
        i % 2 === 0 ? String.fromCharCode(next(0x180)) : pool[next(pool.length)],
      ).join(''),
    );
  };

  it('folds Latin text a character at a time to the same words as folding it whole', function () {
    const WORDS = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
    const whole = (text: string) => foldText(elide(text.normalize('NFC')).toLowerCase()).match(WORDS) ?? [];
    const singles = Array.from({ length: 0x180 }, (_, c) => `x${String.fromCharCode(c)}y ${String.fromCharCode(c)}`);
    for (const text of [...singles, ...latinTexts(4_000), "L'Œuvre d’İstanbul, ½ ﬁn"])
      expect(foldedWords(text), JSON.stringify(text)).to.deep.equal(whole(text));
  });

  it("a word's first character is among the initials of its French term", function () {
    for (const text of latinTexts(1_500)) {
      for (const word of foldedWords(text))
        expect(termInitials([frenchTermOfFoldedWord(word)]).has(word[0])).to.equal(true);
      // Unfolded words too: the stemmer drops some accents, the first character's included.
      for (const word of text
        .toLowerCase()
        .split(/[^\p{L}]+/u)
        .filter((w) => w !== ''))
        expect(termInitials([frenchLightStem(word)]).has(word[0]), word).to.equal(true);
    }
    expect(termInitials(['educ'])).to.deep.equal(new Set(['e', 'è', 'é', 'ê']));
  });

  it('finds the words of a folded text beginning with given initials as foldedWords less the others', function () {
    const texts = [...latinTexts(1_500), 'Ελληνικά κείμενα, 𝐁old ﬁnance', 'Œuvres d’art: programme', '𠀀a b𠀀 c'];
    for (const initials of [
      new Set(['a', 'é', 'c']),
      new Set(['ε', 'b', 'f']),
      new Set(['\ud840', 'a']),
      new Set<string>(),
    ]) {
      const find = wordsBeginningWith(initials);
      for (const text of texts)
        expect(find(foldedText(text)), JSON.stringify(text)).to.deep.equal(
          foldedWords(text).filter((word) => initials.has(word[0])),
        );
    }
  });

  it('chooses by frequency times idf, leaving out terms no other grant holds, too common terms, and terms past the count budget', function () {
    const source: SourceTerm[] = [
      { key: 'alone', word: 'alone', frequency: 9, first: 1 },
      { key: 'common', word: 'common', frequency: 9, first: 2 },
      { key: 'rare', word: 'rare', frequency: 1, first: 3 },
      { key: 'title', word: 'title', frequency: 3, first: 4 },
      { key: 'huge', word: 'huge', frequency: 1, first: 5 },
    ];
    const size = 10_000;
    const chosen = chooseTerms(source, [1, 1001, 2, 40, 280], size);
    // alone: only the grant itself; common: over 10 % of 10,000; huge fits the share but 2 + 40 + 280 passes the
    // budget.
    expect(MAX_SCORED_GRANTS).to.equal(300);
    expect(chosen.map((t) => t.word)).to.deep.equal(['title', 'rare']);
    expect(chosen[0].weight).to.equal(3 * idf(40, size));
    expect(chosen[1].weight).to.equal(idf(2, size));
    // In a small catalog a term held by up to COMMON_FLOOR grants is never too common.
    expect(chooseTerms([{ key: 'x', word: 'x', frequency: 1, first: 1 }], [COMMON_FLOOR], 20)).to.have.length(1);
    expect(chooseTerms([{ key: 'x', word: 'x', frequency: 1, first: 1 }], [COMMON_FLOOR + 1], 20)).to.have.length(0);
  });

  it('chooses at most MAX_SIMILAR_TERMS, ties of weight by key', function () {
    const source = Array.from({ length: MAX_SIMILAR_TERMS + 3 }, (_, i) => ({
      key: `k${String(99 - i)}`,
      word: `w${i}`,
      frequency: 1,
      first: i,
    }));
    const chosen = chooseTerms(
      source,
      source.map(() => 5),
      1000,
    );
    expect(chosen).to.have.length(MAX_SIMILAR_TERMS);
    expect(chosen.map((t) => t.key)).to.deep.equal([...source.map((t) => t.key)].sort().slice(0, MAX_SIMILAR_TERMS));
    expect(anyTermSearch(chosen).clauses.map((c) => c.must[0].words)).to.deep.equal(chosen.map((t) => [t.word]));
  });

  it('scores each held term by its weight times the heaviest field holding it; ranks best first, ties by id, without the grant itself or grants holding none', function () {
    const terms = [term('kelp', 10), term('forest', 1)];
    const inTitle = grant('b-title', 'Kelp', 'X', 'forest');
    const inFunder = grant('c-funder', 'X', 'Kelp', null);
    const inBoth = grant('a-both', 'Forests', 'Y', 'kelp and kelp');
    expect(similarityScore(inTitle, terms)).to.equal(10 * 3 + 1 * 1);
    expect(similarityScore(inFunder, terms)).to.equal(10 * 2);
    expect(similarityScore(inBoth, terms)).to.equal(10 * 1 + 1 * 3);
    const tie = grant('a-tie', 'Kelp', 'X', 'forest');
    const source = grant('s', 'Kelp', 'Forest', null);
    const none = grant('n', 'Other', 'Words', null);
    const ranked = rankSimilar(
      's',
      [inBoth, none, inTitle, source, inFunder, tie].map((g) => ({ grant: g, item: g.id })),
      terms,
    );
    expect(ranked.map((r) => r.item)).to.deep.equal(['a-tie', 'b-title', 'c-funder', 'a-both']);
  });
});
