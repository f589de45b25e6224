// The embedded engine's in-memory text statistics and bm25 (textIndex.ts, bm25.ts, queryTerms.ts)
// against SQLite's own FTS5 on real catalog files: for every term of a generated catalog's
// vocabulary and for combinations of terms, the same hits and bit-identical scores as FTS5's
// bm25(); still so after a sync changes row lengths and the row count; within a postings budget;
// and words FTS5's tokenizer splits answered as FTS5 answers them.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { generateGrants, Random } from '../../fixtures/generate.js';
import { searchWords, type GrantQuery } from '../../src/grants/query.js';
import type { Grant } from '../../src/grants/schema.js';
import { plainSearch } from '../../src/grants/searchSyntax.js';
import { emptyBits, hasBit, setBit } from '../../src/search/sqlite/index/bitset.js';
import { intersectPostings, rankWord, scoreAll } from '../../src/search/sqlite/query/bm25.js';
import { mergeAnalyses } from '../../src/search/sqlite/index/postings.js';
import { analysesOf } from '../../src/search/sqlite/query/textHitFinder.js';
import { relevancePage, selectKth } from '../../src/search/sqlite/collect/topk.js';
import { openCatalog, type Db } from '../../src/search/sqlite/storage/catalogFile.js';
import { CatalogColumns } from '../../src/search/sqlite/index/columns.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { startThread } from '../../src/search/sqlite/runtime/threads.js';
import { QueryTerms } from '../../src/search/sqlite/query/queryTerms.js';
import {
  frenchKey,
  readVarint,
  readVarints,
  TextIndex,
  VOCABULARY_DDL,
} from '../../src/search/sqlite/index/textIndex.js';
import { ENGLISH_COLUMNS, FRENCH_COLUMNS, TEXT_COLUMNS } from '../../src/search/sqlite/storage/textColumns.js';
import { ftsMatchExpression } from '../../src/search/sqlite/query/fts5Expression.js';
import { BM25_WEIGHTS } from '../../src/search/sqlite/index/postings.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import type {
  LoaderReport,
  LoaderRequest,
  LoaderSetup,
  SharedIndex,
  SharedPostings,
} from '../../src/search/sqlite/index/sharedIndex.js';
import type { PoolMessage, WorkerReply, WorkerSetup } from '../../src/search/sqlite/runtime/workerProtocol.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { reindexGrants } from '../support/catalog.js';
import { unfilteredQuery } from '../support/grantQuery.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** FTS5's hits of the words with their bm25 scores, by position of the columns. */
function ftsScores(db: Db, columns: CatalogColumns, words: string[]): Map<number, number> {
  const rows = db
    .prepare(`SELECT rowid, bm25(grants_text, ${BM25_WEIGHTS.join(', ')}) FROM grants_text WHERE grants_text MATCH ?`)
    .raw()
    .all(ftsMatchExpression(plainSearch(words))) as [number, number][];
  return new Map(rows.map(([rowid, score]) => [columns.positionOf(rowid), score]));
}

const queryTerms = new QueryTerms();
after(() => queryTerms.close());

/**
 * Asserts that the in-memory scores of the words (one term each in each analysis) are FTS5's, hit for hit and bit for
 * bit.
 */
function expectSameAsFts(db: Db, columns: CatalogColumns, index: TextIndex, words: string[]): number {
  const terms = words.map((word) => analysesOf(word, queryTerms));
  expect(terms.every((t) => t !== null)).to.equal(true);
  const merged = terms.map((keys) => mergeAnalyses(keys!.map((key) => index.postings(key))));
  const mine = scoreAll(merged, index.stats);
  // The words as the index keeps them (a frequent word with its bit set): the same intersection.
  const kept = terms.map((keys) => index.word(keys!));
  const both = intersectPostings(kept);
  expect(Array.from(both), `intersection of ${words.join(' ')}`).to.deep.equal(Array.from(intersectPostings(merged)));
  // Walked at the grants known to hold every word: the same hits, the same scores.
  const atHits = scoreAll(merged, index.stats, null, both);
  expect(Array.from(atHits.positions), `hits of ${words.join(' ')} walked at them`).to.deep.equal(
    Array.from(mine.positions),
  );
  expect(Array.from(atHits.scores), `scores of ${words.join(' ')} walked at them`).to.deep.equal(
    Array.from(mine.scores),
  );
  const reference = ftsScores(db, columns, words);
  expect(mine.positions.length, `hits of ${words.join(' ')}`).to.equal(reference.size);
  const differing: string[] = [];
  mine.positions.forEach((position, i) => {
    if (reference.get(position) !== mine.scores[i])
      differing.push(`${position}: ${mine.scores[i]} vs ${reference.get(position)}`);
  });
  expect(differing, `scores of ${terms.join(' ')}`).to.deep.equal([]);
  for (let i = 1; i < mine.positions.length; i++) expect(mine.positions[i]).to.be.greaterThan(mine.positions[i - 1]);
  return mine.positions.length;
}

/** Every word of the grants' texts, as the API splits search text, that the tokenizer keeps whole. */
const vocabulary = (grants: readonly Grant[]): string[] => {
  const words = new Set<string>();
  for (const g of grants)
    for (const word of searchWords(
      `${g.title} ${g.funder} ${g.description ?? ''} ${g.titleFr ?? ''} ${g.descriptionFr ?? ''}`,
    ))
      words.add(word.toLowerCase());
  return [...words].filter((word) => analysesOf(word, queryTerms) !== null).sort();
};

const baseQuery = (words: string[], page = 1): GrantQuery => ({
  ...unfilteredQuery(Date.parse('2026-06-15T12:00:00.000Z')),
  search: words.length === 0 ? null : plainSearch(words),
  words,
  sort: { key: 'relevance', descending: false },
  page,
  limit: 50,
  offset: (page - 1) * 50,
  size: 50,
});

describe('embedded engine: bm25 from in-memory term statistics', () => {
  describe('SQLite varints as FTS5 writes them', () => {
    it('reads one- to nine-byte values', () => {
      expect(readVarint(Uint8Array.from([0x05]), 0)).to.deep.equal({ value: 5, next: 1 });
      expect(readVarint(Uint8Array.from([0x86, 0x8d, 0x20]), 0)).to.deep.equal({ value: 100_000, next: 3 });
      expect(readVarint(Uint8Array.from([0x81, 0x80, 0x80, 0x80, 0x00]), 0).value).to.equal(2 ** 28);
      const nine = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x07]);
      expect(readVarint(nine, 0)).to.deep.equal({ value: 256 + 7, next: 9 });
      expect(readVarints(Uint8Array.from([0x01, 0x86, 0x8d, 0x20, 0x7f]))).to.deep.equal([1, 100_000, 127]);
    });
  });

  describe('relevance pages (bounded heap for short pages, selection for deep ones)', () => {
    it('select the k-th smallest value as a sort would', () => {
      const random = new Random(5);
      for (let round = 0; round < 50; round++) {
        const values = Float64Array.from({ length: 1 + random.int(500) }, () => random.int(20) / 4);
        const sorted = Array.from(values).sort((a, b) => a - b);
        const k = random.int(values.length);
        expect(selectKth(values.slice(), k)).to.equal(sorted[k]);
      }
    });

    it('equal a full sort by (score, position) over the matching hits, at every depth, with ties and hits in any order', () => {
      const random = new Random(21);
      const size = 6000;
      for (let round = 0; round < 40; round++) {
        const hitCount = random.int(size);
        // Positions in a random order (as FTS5 returns them for a phrase), scores with many ties.
        const all = Int32Array.from({ length: size }, (_, i) => i);
        for (let i = size - 1; i > 0; i--) {
          const j = random.int(i + 1);
          [all[i], all[j]] = [all[j], all[i]];
        }
        const positions = all.slice(0, hitCount);
        if (round % 2 === 0) positions.sort();
        const scores = Float64Array.from({ length: hitCount }, () => -random.int(round % 3 === 0 ? 5 : 400) / 8);
        const matches = emptyBits(size);
        const share = random.float();
        for (let p = 0; p < size; p++) if (random.float() < share) setBit(matches, p);
        const reference = Array.from({ length: hitCount }, (_, h) => h)
          .filter((h) => hasBit(matches, positions[h]))
          .sort((a, b) => scores[a] - scores[b] || positions[a] - positions[b])
          .map((h) => positions[h]);
        for (const [offset, pageSize] of [
          [0, 20],
          [0, 100],
          [40, 20],
          [240, 20],
          [250, 50],
          [3980, 20],
          [reference.length - 5, 20],
        ]) {
          if (offset < 0) continue;
          expect(
            relevancePage({ positions, scores }, matches, offset, pageSize),
            `round ${round} offset ${offset}`,
          ).to.deep.equal(reference.slice(offset, offset + pageSize));
        }
      }
    });
  });

  describe('the terms FTS5 makes of a search word', () => {
    const terms = queryTerms;

    it('stems as the catalog tokenizer does, and splits what it splits', () => {
      expect(terms.of('funding')).to.deep.equal(['fund']);
      expect(terms.of(searchWords('Québec')[0])).to.deep.equal(['quebec']);
      expect(terms.of(searchWords('½')[0])).to.deep.equal(['1', '2']);
      expect(terms.of('funding')).to.deep.equal(['fund']);
    });
  });

  describe('a generated catalog and the fixtures', () => {
    const dir = tempDir('sqlite-bm25-');
    const file = path.join(dir, 'catalog.sqlite');
    // Short descriptions and long ones (hundreds of words, Zipfian: terms held by most grants, many times each).
    const long = [...generateGrants(800, 'bm25-test-long', 'realistic')].map((g) => ({ ...g, id: `long-${g.id}` }));
    const grants: Grant[] = [...fixtureGrants(), ...generateGrants(3000, 'bm25-test'), ...long];
    let db: Db;
    /** The catalog's vocabulary (one tokenizer look-up per word and analysis: worked out once). */
    let words: string[];

    before(async () => {
      const writer = SqliteCatalogWriter.open(file);
      await reindexGrants(writer, grants);
      await writer.close();
      db = openCatalog(file);
      words = vocabulary(grants);
    });
    after(() => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('words of the vocabulary: the same hits and the same scores as FTS5, bit for bit', () => {
      const columns = CatalogColumns.load(db);
      const index = TextIndex.load(db, columns);
      const terms = words;
      expect(terms.length).to.be.greaterThan(500);
      // Different words, one term (porter stems): the postings are shared.
      expect(new Set(terms.map((w) => queryTerms.of(w)[0])).size).to.be.lessThan(terms.length);
      // At most ~600 of them, evenly spread over the sorted vocabulary.
      const stride = Math.ceil(terms.length / 600);
      let hits = 0;
      for (let i = 0; i < terms.length; i += stride) hits += expectSameAsFts(db, columns, index, [terms[i]]);
      expect(hits).to.be.greaterThan(grants.length);
      expect(index.stats.rows).to.equal(grants.length);
    });

    it("a word's ranking: scoreAll's scores, ranked by (score, position), and every page along it the heap's", () => {
      const columns = CatalogColumns.load(db);
      const index = TextIndex.load(db, columns);
      const random = new Random(8);
      const stride = Math.ceil(words.length / 120);
      let paged = 0;
      for (let i = 0; i < words.length; i += stride) {
        const word = mergeAnalyses(analysesOf(words[i], queryTerms)!.map((key) => index.postings(key)));
        const ranking = rankWord(word, index.stats);
        const scored = scoreAll([word], index.stats);
        expect(Array.from(ranking.positions), words[i]).to.deep.equal(Array.from(scored.positions));
        expect(Array.from(ranking.scores), words[i]).to.deep.equal(Array.from(scored.scores));
        const { order, scores, positions } = ranking;
        for (let k = 1; k < order.length; k++) {
          const [a, b] = [order[k - 1], order[k]];
          expect(scores[a] < scores[b] || (scores[a] === scores[b] && positions[a] < positions[b])).to.equal(true);
        }
        const matches = emptyBits(columns.size);
        const share = random.float();
        for (let p = 0; p < columns.size; p++) if (random.float() < share) setBit(matches, p);
        for (const [offset, size] of [
          [0, 10],
          [0, 50],
          [20, 20],
          [Math.max(0, positions.length - 3), 10],
        ]) {
          const heap = relevancePage(scored, matches, offset, size);
          expect(relevancePage(ranking, matches, offset, size), `${words[i]} at ${offset}`).to.deep.equal(heap);
          paged += heap.length;
        }
      }
      expect(paged).to.be.greaterThan(100);
    });

    it('two and three terms (an AND, scores summed in query order), a repeated term, a missing one', () => {
      const columns = CatalogColumns.load(db);
      const index = TextIndex.load(db, columns);
      const terms = words;
      const random = new Random(13);
      let hits = 0;
      for (let i = 0; i < 150; i++) {
        const count = 2 + random.int(2);
        hits += expectSameAsFts(
          db,
          columns,
          index,
          Array.from({ length: count }, () => terms[random.int(terms.length)]),
        );
      }
      // Common terms together, so that the ANDs have many hits.
      const common = ['funding', 'program', 'projects', 'support'].filter((t) => terms.includes(t));
      expect(common.length).to.be.greaterThan(1);
      hits += expectSameAsFts(db, columns, index, common);
      expect(hits).to.be.greaterThan(100);
      expect(
        common.filter((word) => index.word(analysesOf(word, queryTerms)!).bits !== undefined),
        'common words kept with their bit sets',
      ).to.deep.equal(common);
      expectSameAsFts(db, columns, index, [common[0], common[0]]);
      expect(expectSameAsFts(db, columns, index, [common[0], 'zzqqxx'])).to.equal(0);
    });

    it("every postings list, read as one string, equals FTS5's instances summed row by row, bit for bit", () => {
      db.exec('BEGIN');
      try {
        const columns = CatalogColumns.load(db);
        const index = TextIndex.load(db, columns);
        db.exec(VOCABULARY_DDL);
        db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_test_terms USING fts5vocab(main, 'grants_text', 'row')");
        const vocabulary = db
          .prepare('SELECT term, doc FROM temp.bm25_test_terms ORDER BY doc DESC, term')
          .raw()
          .all() as [string, number][];
        expect(vocabulary.length).to.be.greaterThan(10_000);
        expect(vocabulary[0][1]).to.be.greaterThan(grants.length / 2);
        const instances = db.prepare('SELECT doc, col FROM temp.grants_text_instances WHERE term = ?').raw();
        const weight = new Map(TEXT_COLUMNS.map((name, i) => [name, BM25_WEIGHTS[i]]));
        // The 100 commonest terms and 2,000 spread over the rest, each in the English columns (its
        // key: the term) and in the French ones (its key: frenchKey(term)).
        const stride = Math.ceil(vocabulary.length / 2000);
        const checked = vocabulary.filter((_, i) => i < 100 || i % stride === 0);
        let french = 0;
        for (const [term, holders] of checked) {
          const held = new Set<number>();
          const rows = instances.all(term) as [number, string][];
          for (const [key, side] of [
            [term, ENGLISH_COLUMNS],
            [frenchKey(term), FRENCH_COLUMNS],
          ] as const) {
            const byPosition = new Map<number, number>();
            for (const [rowid, column] of rows) {
              if (!side.includes(column)) continue;
              const position = columns.positionOf(rowid);
              held.add(position);
              byPosition.set(position, (byPosition.get(position) ?? 0) + weight.get(column)!);
            }
            const expected = [...byPosition].sort((a, b) => a[0] - b[0]);
            const got = index.postings(key);
            if (side === FRENCH_COLUMNS) french += got.positions.length;
            expect(Array.from(got.positions), key).to.deep.equal(expected.map(([position]) => position));
            expect(Array.from(got.frequencies), key).to.deep.equal(expected.map(([, frequency]) => frequency));
          }
          expect(held.size, term).to.equal(holders);
        }
        expect(french).to.be.greaterThan(0);
        expect(index.postings('zzqqxx').positions.length).to.equal(0);
      } finally {
        db.exec('COMMIT');
      }
    });

    it('the index loader reads the postings a worker asks for into shared memory, the same bit for bit, and none for another build', async () => {
      const setup: LoaderSetup = { file, refreshMs: 60_000, nice: 0 };
      const loader = startThread('indexLoader', setup);
      const reports: LoaderReport[] = [];
      let arrived: (() => void) | null = null;
      loader.on('message', (report: LoaderReport) => {
        reports.push(report);
        arrived?.();
      });
      const next = async (): Promise<LoaderReport> => {
        while (reports.length === 0) await new Promise<void>((resolve) => (arrived = resolve));
        return reports.shift()!;
      };
      try {
        const first = await next();
        if (!('index' in first)) expect.fail(`the loader reported ${JSON.stringify(first)}`);
        const build = first.index.build!;
        expect(build).to.be.a('string');
        const terms = ['fund', 'program', 'the', 'zzqqxx'];
        const request: LoaderRequest = { want: { build: 'not-this-build', terms: ['fund'] } };
        loader.postMessage(request);
        loader.postMessage({ want: { build, terms } } satisfies LoaderRequest);
        db.exec('BEGIN');
        try {
          const columns = CatalogColumns.load(db);
          const own = TextIndex.load(db, columns);
          for (const term of terms) {
            const report = await next();
            if (!('postings' in report)) expect.fail(`the loader reported ${JSON.stringify(report)}`);
            // The request for another build was dropped: the first answer is this build's first term.
            expect(report.postings.build).to.equal(build);
            expect(report.postings.term).to.equal(term);
            const { positions, frequencies, idf } = report.postings.postings;
            expect(positions.buffer).to.be.instanceOf(SharedArrayBuffer);
            const expected = own.postings(term);
            expect(Array.from(positions), term).to.deep.equal(Array.from(expected.positions));
            expect(Array.from(frequencies), term).to.deep.equal(Array.from(expected.frequencies));
            expect(idf, term).to.equal(expected.idf);
          }
          expect(own.postings('the').positions.length).to.be.greaterThan(long.length);
        } finally {
          db.exec('COMMIT');
        }
      } finally {
        await loader.terminate();
      }
    });

    it('a search worker waiting for postings the loader reports unread stops waiting and reads them itself', async () => {
      const loader = startThread('indexLoader', { file, refreshMs: 60_000, nice: 0 } satisfies LoaderSetup);
      // A wait far longer than this test's: an answer in time proves the worker stopped waiting.
      const setup: WorkerSetup = { file, freshWaitMs: 1000, postingsWaitMs: 600_000, nice: 0 };
      const worker = startThread('searchWorker', setup);
      const replies: WorkerReply[] = [];
      let arrived: (() => void) | null = null;
      worker.on('message', (reply: WorkerReply) => {
        replies.push(reply);
        arrived?.();
      });
      const next = async (): Promise<WorkerReply> => {
        while (replies.length === 0) await new Promise<void>((resolve) => (arrived = resolve));
        return replies.shift()!;
      };
      try {
        const index = await new Promise<SharedIndex>((resolve) =>
          loader.once('message', (report: LoaderReport) => 'index' in report && resolve(report.index)),
        );
        worker.postMessage({ adopt: index } satisfies PoolMessage);
        expect(await next()).to.deep.equal({ ready: true });
        const query = parseGrantQuery(parseQueryString('search=funding%20program'), Date.parse('2026-11-01T00:00:00Z'));
        worker.postMessage({
          id: 1,
          op: 'search',
          query,
          deadline: Date.now() + 60_000,
          budgetMs: 60_000,
        } satisfies PoolMessage);
        const want = await next();
        if (!('want' in want)) expect.fail(`the worker replied ${JSON.stringify(want)}`);
        expect(want.want.build).to.equal(index.build);
        // Each word's English and French terms.
        expect(want.want.terms).to.have.length(4);
        const [first, ...rest] = want.want.terms;
        // The loader read the first term and not the others.
        const read = await new Promise<SharedPostings>((resolve) => {
          loader.once('message', (report: LoaderReport) => 'postings' in report && resolve(report.postings));
          loader.postMessage({ want: { build: index.build!, terms: [first] } } satisfies LoaderRequest);
        });
        worker.postMessage({ postings: read } satisfies PoolMessage);
        worker.postMessage({ unread: { build: index.build!, terms: rest } } satisfies PoolMessage);
        const answer = await next();
        if (!('id' in answer) || !answer.ok) expect.fail(`the worker replied ${JSON.stringify(answer)}`);
        const plain = SqliteSearchEngine.open(file);
        try {
          expect(answer.value).to.deep.equal(await plain.searchJson(query));
        } finally {
          await plain.close();
        }
      } finally {
        await Promise.all([loader.terminate(), worker.terminate()]);
      }
    });

    it('within a small budget, least recently used postings are dropped and read again the same', () => {
      const columns = CatalogColumns.load(db);
      const budget = 2000;
      const index = TextIndex.load(db, columns, budget);
      const terms = words.slice(0, 200);
      for (const term of terms) {
        index.postings(term);
        if (index.postings(term).positions.length <= budget) expect(index.heldPairs).to.be.at.most(budget);
      }
      for (const term of terms.slice(0, 20)) expectSameAsFts(db, columns, index, [term]);
    });

    it('the engine answers relevance pages in FTS5 order, and after a sync (new row lengths and count) still', async () => {
      const engine = SqliteSearchEngine.open(file);
      try {
        const ftsOrder = (words: string[]) =>
          db
            .prepare(
              `SELECT g.id FROM grants_text JOIN grants g ON g.rowid = grants_text.rowid WHERE grants_text ` +
                `MATCH ? ORDER BY bm25(grants_text, ${BM25_WEIGHTS.join(', ')}), g.id`,
            )
            .pluck()
            .all(ftsMatchExpression(plainSearch(words))) as string[];
        const pageIds = async (words: string[], page: number) => {
          const answer = await engine.searchJson(baseQuery(words, page));
          return { total: answer.total, ids: answer.grantsJson.map((json) => (JSON.parse(json) as Grant).id) };
        };
        const check = async (text: string) => {
          const words = searchWords(text);
          const expected = ftsOrder(words);
          for (const page of [1, 2]) {
            expect(await pageIds(words, page), `${text} page ${page}`).to.deep.equal({
              total: expected.length,
              ids: expected.slice((page - 1) * 50, page * 50),
            });
          }
          await nextTurn();
        };
        for (const text of ['funding programs', 'research', 'community health', 'Québec', '½ program'])
          await check(text);

        // A sync that lengthens some descriptions, drops some grants and adds some: FTS5's
        // averages, row lengths and document frequencies all change.
        const changed = grants.slice(0, 200).map((g) => ({
          ...g,
          description: `${g.description ?? ''} research research funding`,
          updatedAt: '2026-07-01T00:00:00.000Z',
        }));
        const added = [...generateGrants(100, 'bm25-test-added')].map((g) => ({ ...g, id: `added-${g.id}` }));
        const kept = [...changed, ...grants.slice(400), ...added];
        const writer = SqliteCatalogWriter.open(file);
        const counts = await writer.sync(
          (async function* () {
            for (const grant of kept) yield { grant };
          })(),
          { prune: true },
        );
        await writer.close();
        expect(counts.deleted).to.equal(200);
        await nextTurn();
        for (const text of ['funding programs', 'research', 'community health', 'Québec']) await check(text);
        const columns = CatalogColumns.load(db);
        const index = TextIndex.load(db, columns);
        expect(index.stats.rows).to.equal(kept.length);
        for (const term of ['research', 'funding', 'community']) expectSameAsFts(db, columns, index, [term]);
      } finally {
        await engine.close();
      }
    });
  });
});
