// The synonyms file (src/grants/synonyms.ts): the Solr format as Elasticsearch's synonym_graph
// reads it, the errors naming their line, how a parsed search's words gain their other spellings,
// and the shipped default list (mappings/synonyms.txt) read whole.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseSearch } from '../../src/grants/searchSyntax.js';
import { MAX_SYNONYMS_BYTES, parseSynonyms, SynonymsFileError, withSynonyms } from '../../src/grants/synonyms.js';
import { REPO_ROOT } from '../support/api.js';

const alternativesOf = (text: string, word: string): string[] =>
  (parseSynonyms(text).alternatives.get(word) ?? []).map((words) => words.join(' '));

/** The line and problem of a file that does not parse. */
function failure(text: string): { line: number; problem: string } {
  try {
    parseSynonyms(text);
  } catch (error) {
    expect(error).to.be.instanceOf(SynonymsFileError);
    return { line: (error as SynonymsFileError).line, problem: (error as SynonymsFileError).problem };
  }
  throw new Error('expected the file to be refused');
}

describe('synonyms: the file', () => {
  it('an equivalence: each spelling finds every other, folded as search text is', () => {
    const text = 'Nonprofit, non-profit, Not-For-Profit';
    expect(alternativesOf(text, 'nonprofit')).to.deep.equal(['non profit', 'not for profit']);
    expect(alternativesOf(text, 'non profit')).to.deep.equal(['nonprofit', 'not for profit']);
    expect(alternativesOf('organisme à but non lucratif, OBNL', 'obnl')).to.deep.equal([
      'organisme a but non lucratif',
    ]);
  });

  it('a rewrite: the left side finds the right side, not the other way', () => {
    const text = 'R&D, R-D => research and development, recherche et développement';
    expect(alternativesOf(text, 'r d')).to.deep.equal(['research and development', 'recherche et developpement']);
    expect(alternativesOf(text, 'research and development')).to.deep.equal([]);
  });

  it('comments, blank lines and repeated rules say nothing more', () => {
    const rules = parseSynonyms('# a comment\n\n   # indented comment\nev, electric vehicle\r\nEV, Electric Vehicle\n');
    expect([...rules.alternatives.keys()]).to.deep.equal(['ev', 'electric vehicle']);
    expect(alternativesOf('ev, electric vehicle\nev, electric vehicle', 'ev')).to.deep.equal(['electric vehicle']);
    expect(rules.longest).to.equal(2);
  });

  it('an invalid line is refused with its number', () => {
    expect(failure('a, b\nfoo\n')).to.deep.include({ line: 2 });
    expect(failure('a, b\n\na => b => c')).to.deep.equal({ line: 3, problem: 'a rule has at most one "=>"' });
    expect(failure('a, , b').line).to.equal(1);
    expect(failure('ok, fine\n => b').line).to.equal(2);
    expect(failure('a, ***').problem).to.match(/no word/);
    expect(failure(`a, ${'w '.repeat(13)}`).problem).to.match(/at most 12 words/);
    expect(failure('x'.repeat(MAX_SYNONYMS_BYTES + 1))).to.deep.include({ line: 0 });
  });
});

describe('synonyms: a search given them', () => {
  const rules = parseSynonyms(
    'nonprofit, non-profit, not-for-profit\nEV, electric vehicle\nR&D => research and development\nhomebuyer, ' +
      'home buyer',
  );

  it('a word gains its other spellings as alternatives, with no typo', () => {
    expect(withSynonyms(parseSearch('nonprofit capacity'), rules)).to.deep.equal({
      clauses: [
        {
          must: [
            {
              words: ['nonprofit'],
              alternatives: [
                { words: ['non', 'profit'], typos: 0 },
                { words: ['not', 'for', 'profit'], typos: 0 },
              ],
            },
            { words: ['capacity'] },
          ],
          not: [],
        },
      ],
    });
  });

  it('a run of words the list names becomes one term, the longest first, left to right', () => {
    const search = withSynonyms(parseSearch('electric vehicle charging for a first-time home buyer'), rules);
    expect(
      search.clauses[0].must.map((t) => [t.words.join(' '), (t.alternatives ?? []).map((a) => a.words.join(' '))]),
    ).to.deep.equal([
      ['electric vehicle', ['ev']],
      ['charging', []],
      ['for', []],
      ['a', []],
      ['first', []],
      ['time', []],
      ['home buyer', ['homebuyer']],
    ]);
    expect(withSynonyms(parseSearch('R&D tax credit'), rules).clauses[0].must[0]).to.deep.equal({
      words: ['R', 'D'],
      loose: true,
      alternatives: [{ words: ['research', 'and', 'development'], typos: 0 }],
    });
  });

  it('a quoted word or phrase, an exclusion, and a search the list does not name stay as typed', () => {
    expect(withSynonyms(parseSearch('"nonprofit" -ev'), rules)).to.deep.equal(parseSearch('"nonprofit" -ev'));
    expect(withSynonyms(parseSearch('"electric vehicle"'), rules)).to.deep.equal(parseSearch('"electric vehicle"'));
    const plain = parseSearch('clean energy');
    expect(withSynonyms(plain, rules)).to.deep.equal(plain);
    // Each OR clause on its own.
    expect(withSynonyms(parseSearch('solar OR ev'), rules).clauses[1].must[0].alternatives).to.have.length(1);
  });
});

describe('synonyms: the shipped list', () => {
  const text = readFileSync(`${REPO_ROOT}/mappings/synonyms.txt`, 'utf8');

  it('parses, with at least 60 rules in English and French', () => {
    const rules = parseSynonyms(text);
    const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
    expect(lines.length).to.be.at.least(60);
    expect(rules.longest).to.be.at.most(12);
  });

  it('holds the equivalences grant seekers need, in both languages', () => {
    const finds = (word: string, other: string) => expect(alternativesOf(text, word), word).to.include(other);
    finds('nonprofit', 'not for profit');
    finds('organisme sans but lucratif', 'obnl');
    finds('sme', 'pme');
    finds('nserc', 'crsng');
    finds('sshrc', 'crsh');
    finds('cihr', 'irsc');
    finds('cnrc', 'national research council canada');
    finds('nih', 'national institutes of health');
    finds('usda', 'u s department of agriculture');
    finds('ev', 'electric vehicle');
    finds('r d', 'research and development');
    finds('sr ed', 'scientific research and experimental development');
    finds('homebuyer', 'home buyer');
    // An acronym naming two things in the catalog stays out.
    expect(alternativesOf(text, 'nrc')).to.deep.equal([]);
  });
});
