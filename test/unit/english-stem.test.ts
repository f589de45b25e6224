// The English term outside SQLite (src/grants/englishStem.ts) against FTS5's own porter tokenizer
// (the catalog's TEXT_TOKENIZER, run by QueryTerms): the same term for every word of the bundled
// fixtures and of the real-program corpus, and for words chosen to reach each rule.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { englishStem } from '../../src/grants/englishStem.js';
import { foldText } from '../../src/grants/folding.js';
import { repoPath } from '../../src/repoRoot.js';
import { QueryTerms } from '../../src/search/sqlite/query/queryTerms.js';
import { corpusFile, loadCorpus } from '../relevance/judgments.js';

const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

/** The distinct words of texts, folded and lower-cased as the tokenizer hands them to porter. */
function wordsOf(texts: Iterable<string>): Set<string> {
  const words = new Set<string>();
  for (const text of texts) for (const word of foldText(text).toLowerCase().match(WORD) ?? []) words.add(word);
  return words;
}

describe('English stem (FTS5 porter, outside SQLite)', () => {
  let fts: QueryTerms;
  before(() => (fts = new QueryTerms()));
  after(() => fts.close());

  /** The words whose term differs from FTS5's, with both terms. */
  const differences = (words: Iterable<string>): string[] => {
    const found: string[] = [];
    for (const word of words) {
      const terms = fts.of(word);
      // A word the tokenizer splits or drops is not one term: the highlighter reads it as its folded parts.
      if (terms.length !== 1) continue;
      if (englishStem(word) !== terms[0]) found.push(`${word}: ${englishStem(word)} ≠ ${terms[0]}`);
    }
    return found;
  };

  it('gives the term FTS5 gives for words that reach every rule', () => {
    const words = [
      'caresses',
      'ponies',
      'ties',
      'caress',
      'cats',
      'feed',
      'agreed',
      'plastered',
      'bled',
      'motoring',
      'sing',
      'conflated',
      'troubled',
      'sized',
      'hopping',
      'tanned',
      'falling',
      'hissing',
      'fizzed',
      'failing',
      'filing',
      'happy',
      'sky',
      'relational',
      'conditional',
      'rational',
      'valenci',
      'hesitanci',
      'digitizer',
      'conformabli',
      'radicalli',
      'differentli',
      'vileli',
      'analogousli',
      'vietnamization',
      'predication',
      'operator',
      'feudalism',
      'decisiveness',
      'hopefulness',
      'callousness',
      'formaliti',
      'sensitiviti',
      'sensibiliti',
      'triplicate',
      'formative',
      'formalize',
      'electriciti',
      'electrical',
      'hopeful',
      'goodness',
      'revival',
      'allowance',
      'inference',
      'airliner',
      'gyroscopic',
      'adjustable',
      'defensible',
      'irritant',
      'replacement',
      'adjustment',
      'dependent',
      'adoption',
      'homologou',
      'communism',
      'activate',
      'angulariti',
      'homologous',
      'effective',
      'bowdlerize',
      'probate',
      'rate',
      'cease',
      'controll',
      'roll',
      'archaeology',
      'eed',
      'ing',
      'aed',
      'eing',
      'yes',
      'sss',
      'xes',
      'ies',
      'ab',
      'a',
      'bies',
      'ying',
      'dying',
      'organisations',
      'développement',
      'economiques',
      'straße',
      'x'.repeat(64),
      'x'.repeat(65),
      'ationalization',
      'a1ing',
      '2020s',
    ].map((word) => foldText(word).toLowerCase());
    expect(differences(words)).to.deep.equal([]);
  });

  it('gives the term FTS5 gives for every word of the bundled fixtures', () => {
    const lines = readFileSync(repoPath('fixtures/grants.ndjson'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const texts = lines.flatMap((line) => {
      const g = JSON.parse(line) as Record<string, unknown>;
      return ['title', 'description', 'funder', 'titleFr', 'descriptionFr'].map((f) =>
        typeof g[f] === 'string' ? (g[f] as string) : '',
      );
    });
    const words = wordsOf(texts);
    expect(words.size).to.be.above(1000);
    expect(differences(words)).to.deep.equal([]);
  });

  it('gives the term FTS5 gives for every word of the real-program corpus, English and French', () => {
    const grants = loadCorpus(corpusFile({}).replace('programs.ndjson.gz', 'programs-bilingual.ndjson.gz'));
    const words = wordsOf(
      grants.flatMap((g) => [g.title, g.description ?? '', g.funder, g.titleFr ?? '', g.descriptionFr ?? '']),
    );
    expect(words.size).to.be.above(10_000);
    expect(differences(words)).to.deep.equal([]);
  });
});
