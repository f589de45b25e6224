// Typo tolerance's parts on their own: the typo rule and its distance (grants/typos.ts), the
// embedded engine's dictionary walk against a scan of every word (index/wordDictionary.ts), the
// suggestion's respelling, and the in-memory scores of terms with alternatives against FTS5's own
// bm25 of the same OR expression, typo ranks added the same way on both paths.
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { generateGrants, Random } from '../../fixtures/generate.js';
import type { Grant } from '../../src/grants/schema.js';
import { parseSearch, searchWords } from '../../src/grants/searchSyntax.js';
import {
  keptNeighbours,
  MAX_TYPO_VARIANTS,
  MAX_TYPO_VARIANTS_PER_SEARCH,
  MAX_TYPO_WORDS,
  respelledSearch,
  searchText,
  typoBudget,
  typoAllowances,
  typoDistance,
  typosWithin,
  typoWords,
  withTypoAlternatives,
} from '../../src/grants/typos.js';
import { WordDictionary } from '../../src/search/sqlite/index/wordDictionary.js';
import { hasBit } from '../../src/search/sqlite/index/bitset.js';
import { Deadline, SearchBudgetExceeded } from '../../src/search/deadline.js';
import { suggestionFor, wordNeighbours, type Lexicon } from '../../src/search/typoSearch.js';
import { scoreTerms, TYPO_RANK_STEP } from '../../src/search/sqlite/query/bm25.js';
import { QueryTerms } from '../../src/search/sqlite/query/queryTerms.js';
import { TextIndex } from '../../src/search/sqlite/index/textIndex.js';
import { CatalogColumns } from '../../src/search/sqlite/index/columns.js';
import { BM25_WEIGHTS } from '../../src/search/sqlite/index/postings.js';
import { ftsMatchExpression } from '../../src/search/sqlite/query/fts5Expression.js';
import { analysesOf, TextHitFinder, wordTerms } from '../../src/search/sqlite/query/textHitFinder.js';
import {
  ENGLISH_COLUMNS,
  FRENCH_COLUMNS,
  frenchSearchTerm,
  TEXT_COLUMNS,
} from '../../src/search/sqlite/storage/textColumns.js';
import { openCatalog, type Db } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { fixtureGrants, REPO_ROOT, tempDir } from '../support/api.js';
import { parseSynonyms, withSynonyms } from '../../src/grants/synonyms.js';
import { reindexGrants } from '../support/catalog.js';

describe('typo rule', () => {
  it('allows no typo under 5 letters, 1 from 5 to 8, 2 from 9, none with a digit', () => {
    expect(
      ['farm', 'grain', 'farming', 'brodband', 'agricultre', 'covid19', '2025', 'élève'].map(typoBudget),
    ).to.deep.equal([0, 1, 1, 1, 2, 0, 0, 1]);
  });

  it('counts an adjacent transposition as one edit (optimal string alignment)', () => {
    expect(typoDistance('famring', 'farming')).to.equal(1);
    expect(typoDistance('brodband', 'broadband')).to.equal(1);
    expect(typoDistance('agricultre', 'agriculture')).to.equal(1);
    expect(typoDistance('agrycultre', 'agriculture')).to.equal(2);
    expect(typoDistance('ca', 'abc')).to.equal(3); // OSA, not unrestricted Damerau–Levenshtein (2)
    expect(typoDistance('kitten', 'sitting')).to.equal(3);
    expect(typoDistance('kitten', 'sitting', 1)).to.equal(2); // bounded: anything above max is max + 1
  });

  it('keeps the first letter, the budget, and never the word itself', () => {
    expect(typosWithin('varming', 'farming')).to.equal(null);
    expect(typosWithin('famring', 'farming')).to.equal(1);
    expect(typosWithin('brodbamd', 'broadband')).to.equal(null); // 8 letters: 1 typo, this needs 2
    expect(typosWithin('agrycultre', 'agriculture')).to.equal(2);
    expect(typosWithin('ferm', 'farm')).to.equal(null);
    expect(typosWithin('farming', 'farming')).to.equal(null);
  });

  it('keeps the closest neighbours, the most frequent first, at most MAX_TYPO_VARIANTS', () => {
    const found = [
      { word: 'farmings', docs: 1 }, // 2 typos: more than 6 letters allow
      { word: 'farming', docs: 3 },
      { word: 'harming', docs: 99 }, // another first letter
      { word: 'farmink', docs: 10 },
      { word: 'farmina', docs: 10 },
      { word: 'farmin', docs: 1000 }, // the word itself
    ];
    expect(keptNeighbours('farmin', found).map((n) => n.word)).to.deep.equal(['farmina', 'farmink', 'farming']);
    const many = Array.from({ length: 200 }, (_, i) => ({
      word: `abcde${String.fromCharCode(97 + (i % 26))}`,
      docs: i,
    }));
    expect(keptNeighbours('abcdef', many)).to.have.length.at.most(MAX_TYPO_VARIANTS);
  });

  it('never gives a quoted word, a phrase, an excluded word or a number typos', () => {
    expect(typoWords(parseSearch('"brodband" "rural brodband" -brodband 20255 covid19 brodband'))).to.deep.equal([
      'brodband',
    ]);
    const derived = withTypoAlternatives(
      parseSearch('"brodband" brodband'),
      new Map([['brodband', [{ word: 'broadband', typos: 1, docs: 2 }]]]),
    );
    expect(derived.clauses[0].must.map((t) => t.alternatives?.length ?? 0)).to.deep.equal([0, 1]);
  });

  it("shares MAX_TYPO_VARIANTS_PER_SEARCH alternatives among a search's words: all while they fit, else the few keep theirs and the rest is shared", () => {
    expect(MAX_TYPO_VARIANTS_PER_SEARCH).to.equal(200);
    expect(typoAllowances([50, 50, 50, 50])).to.deep.equal([50, 50, 50, 50]);
    expect(typoAllowances(Array(10).fill(50))).to.deep.equal(Array(10).fill(20));
    expect(typoAllowances([3, 50, 50, 50, 50])).to.deep.equal([3, 49, 49, 49, 50]);
    expect(typoAllowances([0, 7, 50, 50, 50, 50, 50])).to.deep.equal([0, 7, 38, 38, 39, 39, 39]);
    expect(typoAllowances([])).to.deep.equal([]);
    // A search of ten crowded words carries 200 alternatives in all, each word its closest 20.
    const words = Array.from({ length: 12 }, (_, i) => `crowd${String.fromCharCode(97 + i)}x`);
    const neighbours = new Map(
      words.map((w) => [
        w,
        Array.from({ length: 50 }, (_, k) => ({ word: `${w}${k}`, typos: k < 30 ? 1 : 2, docs: 100 - k })),
      ]),
    );
    const derived = withTypoAlternatives(parseSearch(words.join(' ')), neighbours);
    const counts = derived.clauses[0].must.map((t) => t.alternatives?.length ?? 0);
    expect(counts).to.deep.equal([...Array(10).fill(20), 0, 0]);
    expect(derived.clauses[0].must[0].alternatives!.map((a) => a.words[0])).to.deep.equal(
      neighbours
        .get(words[0])!
        .slice(0, 20)
        .map((n) => n.word),
    );
  });

  it('gives typos to the first MAX_TYPO_WORDS words that may carry them', () => {
    const words = Array.from({ length: 15 }, (_, i) => `word${String.fromCharCode(97 + i)}x`);
    expect(typoWords(parseSearch(words.join(' ')))).to.deep.equal(words.slice(0, MAX_TYPO_WORDS));
  });

  it('respells unknown and rare words by their closest neighbour, the most frequent on ties', () => {
    const neighbours = new Map([
      [
        'brodband',
        [
          { word: 'broadband', typos: 1, docs: 5 },
          { word: 'brodbands', typos: 1, docs: 9 },
        ],
      ],
      ['internet', [{ word: 'internal', typos: 1, docs: 40 }]],
    ]);
    const docs = new Map([
      ['brodband', 0],
      ['internet', 12],
    ]);
    const respelled = respelledSearch(parseSearch('brodband internet -loan'), neighbours, docs);
    expect(respelled && searchText(respelled)).to.equal('brodbands internet -loan');
    expect(respelledSearch(parseSearch('internet'), neighbours, docs)).to.equal(null);
    expect(searchText(parseSearch('"clean tech" a OR b -"x y" "solo"'))).to.equal('"clean tech" a OR b "solo" -"x y"');
  });
});

describe('word dictionary walk', () => {
  const random = new Random(38);
  const letters = 'abcde';
  const word = (length: number) =>
    Array.from({ length }, () => letters[Math.floor(random.float() * letters.length)]).join('');
  const entries = new Map<string, number>();
  for (let i = 0; i < 4000; i++)
    entries.set(word(3 + Math.floor(random.float() * 8)), 1 + Math.floor(random.float() * 20));
  const dictionary = WordDictionary.of([...entries]);

  it('finds exactly the words a scan of every word finds, for distances 1 and 2', () => {
    for (let i = 0; i < 200; i++) {
      const query = word(3 + Math.floor(random.float() * 8));
      for (const max of [1, 2]) {
        const scan = [...entries.keys()]
          .filter((w) => w !== query && w[0] === query[0] && typoDistance(query, w, max) <= max)
          .sort();
        const walked = dictionary.neighbours(query, max);
        expect(walked.map((n) => n.word).sort(), `${query} within ${max}`).to.deep.equal(scan);
        for (const n of walked) {
          expect(n.typos).to.equal(typoDistance(query, n.word));
          expect(n.docs).to.equal(entries.get(n.word));
        }
      }
    }
  });

  it('visits only the prefixes within the bound: far faster than a scan of every word', () => {
    // Catalog-like words (realistic generated text), each with four respellings: over 50,000 words.
    const base = [
      ...new Set(
        [...generateGrants(1500, 3, 'realistic')].flatMap((g) =>
          searchWords(`${g.title} ${g.description ?? ''}`).map((w) => w.toLowerCase()),
        ),
      ),
    ];
    const all = new Map<string, number>();
    for (const w of base) {
      all.set(w, 1);
      for (let k = 0; k < 4; k++) {
        const at = 1 + Math.floor(random.float() * (w.length - 1));
        all.set(
          w.slice(0, at) + 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random.float() * 26)] + w.slice(at + (k % 2)),
          1,
        );
      }
    }
    const big = WordDictionary.of([...all]);
    expect(big.words.length).to.be.above(50_000);
    const queries = base.filter((w) => w.length >= 9).slice(0, 40);
    const time = (work: () => void) => {
      const started = performance.now();
      work();
      return performance.now() - started;
    };
    const walked = time(() => queries.forEach((q) => big.neighbours(q, 2)));
    const scanned = time(() =>
      queries.forEach((q) => big.words.filter((w) => w[0] === q[0] && typoDistance(q, w, 2) <= 2)),
    );
    expect(
      walked * 5,
      `walk ${walked.toFixed(1)} ms, scan ${scanned.toFixed(1)} ms for ${queries.length} words`,
    ).to.be.below(scanned);
  });

  it('reads how many grants hold each word', () => {
    for (const [w, docs] of [...entries].slice(0, 50)) expect(dictionary.docsOf(w)).to.equal(docs);
    expect(dictionary.docsOf('zzzz')).to.equal(0);
  });
});

describe('word dictionary of a catalog written before it', () => {
  const dir = tempDir();
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is filled from the text table when the catalog is opened: every field but the labels, the French ones too', async () => {
    const file = path.join(dir, 'catalog.sqlite');
    const [first] = fixtureGrants();
    const writer = SqliteCatalogWriter.open(file);
    await reindexGrants(writer, [{ ...first, titleFr: 'Fonds de déneigement', descriptionFr: 'Aide au déglaçage.' }]);
    await writer.close();
    const before = openCatalog(file);
    const written = WordDictionary.load(before);
    before.exec('DROP TABLE grants_words');
    before.close();
    const db = openCatalog(file);
    try {
      const filled = WordDictionary.load(db);
      for (const word of ['deneigement', 'deglacage', ...searchWords(first.title).map((w) => w.toLowerCase())]) {
        expect(filled.docsOf(word), word).to.equal(1);
        expect(written.docsOf(word), word).to.equal(1);
      }
    } finally {
      db.close();
    }
  });
});

/** A temporary directory for a suite's catalog and the query terms it compares with, both let go after it. */
function comparisonSetup(): { dir: string; queryTerms: QueryTerms } {
  const dir = tempDir();
  after(() => rmSync(dir, { recursive: true, force: true }));
  const queryTerms = new QueryTerms();
  after(() => queryTerms.close());
  return { dir, queryTerms };
}

/**
 * Writes `grants` to `dir/catalog.sqlite` and runs `body` on it in a read transaction, its columns and
 * text index loaded; the catalog is closed after.
 */
async function withWrittenCatalog(
  dir: string,
  grants: readonly Grant[],
  body: (catalog: { db: Db; columns: CatalogColumns; index: TextIndex }) => void,
): Promise<void> {
  const file = path.join(dir, 'catalog.sqlite');
  const writer = SqliteCatalogWriter.open(file);
  await reindexGrants(writer, grants);
  await writer.close();
  const db = openCatalog(file);
  try {
    db.exec('BEGIN');
    const columns = CatalogColumns.load(db);
    body({ db, columns, index: TextIndex.load(db, columns) });
  } finally {
    db.close();
  }
}

describe('terms with alternatives: in-memory scores are FTS5 scores', function () {
  this.timeout(60_000);
  const { dir, queryTerms } = comparisonSetup();

  it('the same hits and bit-identical scores, typo ranks added the same way on both paths', async () => {
    const grants = [...generateGrants(800, 7, 'realistic')];
    await withWrittenCatalog(dir, grants, ({ db, columns, index }) => {
      const dictionary = WordDictionary.load(db);
      const vocabulary = [
        ...new Set(
          grants.flatMap((g) =>
            searchWords(`${g.title} ${g.description ?? ''} ${g.titleFr ?? ''} ${g.descriptionFr ?? ''}`).map((w) =>
              w.toLowerCase(),
            ),
          ),
        ),
      ].filter((w) => typoBudget(w) > 0);
      const finder = new TextHitFinder(db);
      let compared = 0;
      for (const word of vocabulary.slice(0, 120)) {
        const near = keptNeighbours(word, dictionary.neighbours(word, typoBudget(word)));
        if (near.length === 0) continue;
        const other = vocabulary[(compared * 31) % vocabulary.length];
        const query = {
          ...parseGrantQuery(parseQueryString(`search=${encodeURIComponent(`${word} ${other}`)}&typos=auto`)),
        };
        const derived = {
          ...query,
          search: withTypoAlternatives(
            query.search!,
            new Map([
              [word, near],
              [other, keptNeighbours(other, dictionary.neighbours(other, typoBudget(other)))],
            ]),
          ),
        };
        // Only searches the in-memory path answers compare two paths (each word and alternative one term in each
        // analysis).
        if (wordTerms(derived, queryTerms) === null) continue;
        const fts = finder.find(columns, derived, null).text!.scored!;
        const memory = finder.find(columns, derived, { terms: queryTerms, index: () => index }).text!.scored!;
        expect(Array.from(memory.positions), word).to.deep.equal(Array.from(fts.positions).sort((a, b) => a - b));
        const ftsByPosition = new Map(Array.from(fts.positions, (p, i) => [p, fts.scores[i]]));
        memory.positions.forEach((p, i) =>
          expect(memory.scores[i], `${word} ${other} at ${p}`).to.equal(ftsByPosition.get(p)),
        );
        compared += 1;
      }
      expect(compared).to.be.at.least(20);
      // A grant needing a typo scores TYPO_RANK_STEP above any exact one.
      const phrases = [
        { postings: ['grant', 'grants'].map((word) => index.word(analysesOf(word, queryTerms)!)), typos: [0, 1] },
      ];
      const scored = scoreTerms(phrases, index.stats);
      expect(Math.max(...scored.scores)).to.be.below(TYPO_RANK_STEP / 2);
      // Each word of a term in either analysis, its own word first, then each alternative.
      const english = `{${ENGLISH_COLUMNS.join(' ')}}`;
      const french = `{${FRENCH_COLUMNS.join(' ')}}`;
      const either = (word: string) => `${english} : "${word}" OR ${french} : "${frenchSearchTerm(word)}"`;
      expect(ftsMatchExpression(derivedExample())).to.equal(
        `(${either('brodband')} OR ${either('broadband')}) AND (${either('rural')})`,
      );
      expect(BM25_WEIGHTS).to.have.length(TEXT_COLUMNS.length);
    });
  });
});

describe('typo look-up and the suggestion within a deadline', () => {
  // A dictionary where "saaaaaaaa" (two typos allowed) has 60 words one typo away and
  // "sbbbbbbbbb" only 2, with 40 two away; the lexicon records each look-up's budgets.
  const one = Array.from(
    { length: 60 },
    (_, i) =>
      [`saaaaaaa${String.fromCharCode(98 + (i % 25))}${i < 25 ? '' : i < 50 ? 'a' : 'aa'}`, 60 - i] as [string, number],
  );
  const entries: [string, number][] = [
    ...one,
    ['sbbbbbbbbc', 5],
    ['sbbbbbbbbd', 4],
    ...Array.from(
      { length: 40 },
      (_, i) =>
        [`sbbbbbbb${String.fromCharCode(99 + (i % 20))}${String.fromCharCode(99 + Math.floor(i / 20))}`, 1] as [
          string,
          number,
        ],
    ),
  ];
  const dictionary = WordDictionary.of(entries);
  const recording = (asked: number[][]): Lexicon => ({
    neighbours: async (words, budget) => {
      asked.push(words.map(budget));
      return new Map(words.map((word) => [word, dictionary.neighbours(word, budget(word))]));
    },
    docs: async (words) => new Map(words.map((word) => [word, dictionary.docsOf(word)])),
  });

  it('looks words up one typo away first, and two away only for those with fewer than MAX_TYPO_VARIANTS: the same neighbours as one look-up of all', async () => {
    const asked: number[][] = [];
    const words = ['saaaaaaaa', 'sbbbbbbbbb'];
    const found = await wordNeighbours(words, recording(asked));
    expect(asked).to.deep.equal([[1, 1], [2]]);
    for (const word of words)
      expect(found.get(word), word).to.deep.equal(keptNeighbours(word, dictionary.neighbours(word, typoBudget(word))));
    expect(found.get('saaaaaaaa')).to.have.length(MAX_TYPO_VARIANTS);
    expect(found.get('saaaaaaaa')!.every((n) => n.typos === 1)).to.equal(true);
    expect(found.get('sbbbbbbbbb')!.filter((n) => n.typos === 2)).to.have.length.above(0);
  });

  it('a deadline past its half leaves the suggestion out; one passed while it runs makes it null, not a failure', async () => {
    const query = parseGrantQuery(parseQueryString('search=sbbbbbbbbb&typos=auto'));
    const lexicon = recording([]);
    const count = async () => 10;
    expect(await suggestionFor(query, 0, null, lexicon, count, Deadline.NONE)).to.deep.equal({
      search: 'sbbbbbbbbc',
      total: 10,
    });
    const now = Date.now();
    expect(await suggestionFor(query, 0, null, lexicon, count, Deadline.at(now + 400, 1000))).to.equal(null);
    const passing = Deadline.at(now + 900, 1000);
    const late = async () => {
      await new Promise((resolve) => setTimeout(resolve, 950));
      passing.check();
      return 10;
    };
    expect(await suggestionFor(query, 0, null, lexicon, late, passing)).to.equal(null);
    // Before the deadline a failure is one.
    const failing = async (): Promise<number> => {
      throw new Error('broken');
    };
    let thrown: unknown;
    await suggestionFor(query, 0, null, lexicon, failing, Deadline.after(60_000)).catch(
      (error: unknown) => (thrown = error),
    );
    expect(String(thrown)).to.include('broken');
  });

  it("a deadline: what is left as a call's timeout, a 503 naming the budget once passed", () => {
    const deadline = Deadline.at(10_000, 300);
    expect(deadline.callTimeout(9_900)).to.equal(100);
    expect(deadline.halfLeft(9_850)).to.equal(true);
    expect(deadline.halfLeft(9_851)).to.equal(false);
    expect(() => deadline.check(10_000)).to.throw(SearchBudgetExceeded, 'the search took longer than 300 ms');
    expect(() => deadline.callTimeout(10_001)).to.throw(SearchBudgetExceeded);
    expect(Deadline.NONE.callTimeout()).to.equal(undefined);
    expect(Deadline.NONE.halfLeft()).to.equal(true);
  });
});

function derivedExample() {
  return withTypoAlternatives(
    parseSearch('brodband rural'),
    new Map([['brodband', [{ word: 'broadband', typos: 1, docs: 1 }]]]),
  );
}

describe('synonyms with phrases: in-memory scores are FTS5 scores', function () {
  this.timeout(60_000);
  const { dir, queryTerms } = comparisonSetup();

  it('a term whose spellings are phrases or joined words: the same hits and bit-identical scores', async () => {
    const text = readFileSync(path.join(REPO_ROOT, 'mappings/synonyms.txt'), 'utf8');
    const rules = parseSynonyms(text);
    const spellings = text
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
      .flatMap((line) => line.split(/,|=>/).map((spelling) => spelling.trim()));
    // Each spelling written in some grants, in different fields, beside others' words, so that
    // grants hold a phrase alone, a joined term's words apart, or several spellings at once.
    const random = new Random(11);
    const grants = [...generateGrants(600, 5, 'realistic')].map((grant, i) => {
      const spelling = spellings[i % spellings.length];
      const apart = spelling.split(' ').reverse().join(' and then ');
      const other = spellings[random.int(spellings.length)];
      if (i % 3 === 0) return { ...grant, title: `${grant.title} ${spelling}` };
      if (i % 3 === 1) return { ...grant, description: `${grant.description ?? ''} ${spelling}. ${other} ${apart}` };
      return { ...grant, titleFr: `${spelling} ${grant.titleFr ?? ''}`, description: `${apart} ${other}` };
    });
    await withWrittenCatalog(dir, grants, ({ db, columns, index }) => {
      const finder = new TextHitFinder(db);
      let compared = 0;
      let withPhrases = 0;
      for (const [i, spelling] of spellings.entries()) {
        const other = ['program', 'funding', 'community'][i % 3];
        for (const search of [spelling, `${spelling} ${other}`]) {
          const filter = i % 2 === 0 ? '' : '&fundingType=GRANT';
          const query = parseGrantQuery(parseQueryString(`search=${encodeURIComponent(search)}${filter}`));
          const derived = { ...query, search: withSynonyms(query.search!, rules) };
          const terms = wordTerms(derived, queryTerms);
          if (terms === null) continue;
          if (terms.phrases.some((p) => p.entries.some((entry) => 'phrase' in entry || entry.all.length > 1)))
            withPhrases += 1;
          const found = finder.find(columns, derived, null);
          const fts = found.text!;
          const memory = finder.find(columns, derived, { terms: queryTerms, index: () => index }).text!;
          const sorted = (positions: Int32Array | number[]) => Array.from(positions).sort((a, b) => a - b);
          // Both give and score every hit within the filters (FTS5 may give and score more).
          const within = (p: number) => found.filters.every((c) => hasBit(c.bits, p));
          expect(sorted(Array.from(memory.positions).filter(within)), search).to.deep.equal(
            sorted(Array.from(fts.positions).filter(within)),
          );
          if (found.filters.length === 0) expect(sorted(memory.positions), search).to.deep.equal(sorted(fts.positions));
          const ftsByPosition = new Map(Array.from(fts.scored!.positions, (p, k) => [p, fts.scored!.scores[k]]));
          expect(sorted(memory.scored!.positions), search).to.deep.equal(
            sorted(Array.from(fts.scored!.positions).filter(within)),
          );
          memory.scored!.positions.forEach((p, k) =>
            expect(memory.scored!.scores[k], `${search} at ${p}`).to.equal(ftsByPosition.get(p)),
          );
          if (fts.positions.length > 0) compared += 1;
        }
      }
      expect(withPhrases).to.be.at.least(100);
      expect(compared).to.be.at.least(100);
    });
  });
});
