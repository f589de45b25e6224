// parseSearch: the web-search syntax of `search` (grants/searchSyntax.ts), case by case.
import { expect } from 'chai';
import { searchWords } from '../../src/grants/query.js';
import {
  isPlainSearch,
  parseSearch,
  plainSearch,
  positiveWords,
  type ParsedSearch,
} from '../../src/grants/searchSyntax.js';

/** A search written compactly: clauses as [must, not], a term as its words joined by spaces. */
const clauses = (...cs: [string[], string[]?][]): ParsedSearch => ({
  clauses: cs.map(([must, not = []]) => ({
    must: must.map((t) => ({ words: t.split(' ') })),
    not: not.map((t) => ({ words: t.split(' ') })),
  })),
});

describe('parseSearch', () => {
  it('plain text is one clause of its words, one term each, as searchWords splits it', () => {
    for (const text of [
      'clean energy',
      'Québec  ÉNERGIE',
      'small-business',
      'clean* quebec:montreal',
      'e.g. 2026 œuvre',
      'a or b',
      'NEAR(clean energy)',
    ]) {
      const parsed = parseSearch(text);
      expect(parsed, text).to.deep.equal(plainSearch(searchWords(text)));
      expect(isPlainSearch(parsed), text).to.equal(true);
      expect(positiveWords(parsed), text).to.deep.equal(searchWords(text));
    }
  });

  it('a quoted phrase is one term of its words, in order', () => {
    expect(parseSearch('"clean tech" water')).to.deep.equal(clauses([['clean tech', 'water']]));
    expect(parseSearch('"Clean-Tech, inc."')).to.deep.equal(clauses([['Clean Tech inc']]));
    expect(parseSearch('a"b c"d')).to.deep.equal(clauses([['a', 'b c', 'd']]));
    expect(isPlainSearch(parseSearch('"clean tech"'))).to.equal(false);
  });

  it('a quoted single word is that word; an empty or wordless phrase is nothing', () => {
    // A quoted word is marked exact (typo tolerance leaves it as written); it is found as the word is.
    expect(parseSearch('"arts" x')).to.deep.equal({
      clauses: [{ must: [{ words: ['arts'], exact: true }, { words: ['x'] }], not: [] }],
    });
    expect(parseSearch('"" x "🌲"')).to.deep.equal(plainSearch(['x']));
  });

  it('an unclosed quote is plain text', () => {
    expect(parseSearch('"women in tech')).to.deep.equal(plainSearch(['women', 'in', 'tech']));
    expect(parseSearch('"a b" "c d')).to.deep.equal(clauses([['a b', 'c', 'd']]));
  });

  it('a leading minus excludes a word or a phrase; a chunk of several words is excluded as a phrase', () => {
    expect(parseSearch('export -loan')).to.deep.equal(clauses([['export'], ['loan']]));
    expect(parseSearch('export -"tax credit" -e-commerce')).to.deep.equal(
      clauses([['export'], ['tax credit', 'e commerce']]),
    );
    expect(parseSearch('--loan export')).to.deep.equal(clauses([['export'], ['loan']]));
  });

  it('a minus that does not lead (inside a word, after a quote, alone) is plain text', () => {
    expect(parseSearch('small-business')).to.deep.equal(plainSearch(['small', 'business']));
    expect(parseSearch('"a b"-c')).to.deep.equal(clauses([['a b', 'c']]));
    expect(parseSearch('x - loan')).to.deep.equal(plainSearch(['x', 'loan']));
  });

  it('OR between two terms splits clauses; AND binds tighter', () => {
    expect(parseSearch('a b OR c')).to.deep.equal(clauses([['a', 'b']], [['c']]));
    expect(parseSearch('"clean tech" OR water')).to.deep.equal(clauses([['clean tech']], [['water']]));
    expect(parseSearch('a OR b OR "c d"')).to.deep.equal(clauses([['a']], [['b']], [['c d']]));
    expect(parseSearch('a -x OR b')).to.deep.equal(clauses([['a'], ['x']], [['b']]));
  });

  it('OR at either end, next to another OR, in lower case or quoted is a plain word', () => {
    expect(parseSearch('OR a')).to.deep.equal(plainSearch(['OR', 'a']));
    expect(parseSearch('a OR')).to.deep.equal(plainSearch(['a', 'OR']));
    expect(parseSearch('a OR OR b')).to.deep.equal(plainSearch(['a', 'OR', 'OR', 'b']));
    expect(parseSearch('a or b')).to.deep.equal(plainSearch(['a', 'or', 'b']));
    expect(parseSearch('a "OR" b')).to.deep.equal({
      clauses: [{ must: [{ words: ['a'] }, { words: ['OR'], exact: true }, { words: ['b'] }], not: [] }],
    });
  });

  it('symbols are nothing: OR across them still joins the terms around them', () => {
    expect(parseSearch('a OR 🌲 b')).to.deep.equal(clauses([['a']], [['b']]));
    expect(parseSearch('(quebec OR montreal)')).to.deep.equal(clauses([['quebec']], [['montreal']]));
  });

  it('a clause with nothing to find is dropped; a search of none matches nothing', () => {
    expect(parseSearch('-loan')).to.deep.equal({ clauses: [] });
    expect(parseSearch('🌲 * :')).to.deep.equal({ clauses: [] });
    expect(parseSearch('a OR -b')).to.deep.equal(clauses([['a']]));
    expect(positiveWords(parseSearch('-loan -"tax credit"'))).to.deep.equal([]);
  });

  it('positiveWords lists every word to find, in order, phrases included, exclusions not', () => {
    expect(positiveWords(parseSearch('"clean tech" -loan OR water'))).to.deep.equal(['clean', 'tech', 'water']);
  });

  it('never throws, whatever the text', () => {
    const alphabet = ['"', '-', ' ', 'OR', 'or', 'a', 'é', '(', ')', '*', ':', '🌲', '\u0301', 'NEAR', '\t'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      let text = '';
      for (let n = next() % 30; n > 0; n--) text += alphabet[next() % alphabet.length];
      const parsed = parseSearch(text);
      for (const clause of parsed.clauses) {
        expect(clause.must.length, text).to.be.greaterThan(0);
        for (const term of [...clause.must, ...clause.not]) expect(term.words.length, text).to.be.greaterThan(0);
      }
    }
  });
});
