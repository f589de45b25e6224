// The text statistics of one catalog build held in memory: FTS5's row count, token total and each
// grant's length (read once, at the build's start), and the postings of each search term, read
// from FTS5's index on first use and then kept, within a budget, least recently used dropped
// first, with the columns of that build. Built from the same read snapshot as the CatalogColumns
// it belongs to and dropped with them, so it never outlives its catalog. query/bm25.ts scores from it.
import {
  BM25_WEIGHTS,
  inverseDocumentFrequency,
  mergeAnalyses,
  unionPositions,
  type PhraseParts,
  type Postings,
  type TextStatistics,
  type WordPostings,
  type WordRanking,
} from './postings.js';
import type { Db } from '../storage/catalogFile.js';
import type { CatalogColumns } from './columns.js';
import { LRUCache } from 'lru-cache';
import { bitsOf, denserThanList, emptyBits, setBit } from './bitset.js';
import { ENGLISH_COLUMNS, FRENCH_COLUMNS, TEXT_COLUMNS } from '../storage/textColumns.js';

/** What begins the key of a term's postings in the French columns (an English term never holds a colon). */
const FRENCH_KEY = 'fr:';

/** The key of a French term's postings (the key of an English term is the term). */
export const frenchKey = (term: string): string => `${FRENCH_KEY}${term}`;

/** The vocabulary table over the live FTS5 table, on the reading connection's temp schema. */
export const VOCABULARY_DDL =
  "CREATE VIRTUAL TABLE IF NOT EXISTS temp.grants_text_instances USING fts5vocab(main, 'grants_text', 'instance')";

/** Bits of an instance's number that hold its column (TEXT_COLUMNS has 12). */
const COLUMN_BITS = 16;

/**
 * A term's instances in the columns of one analysis in one string, in FTS5's doclist order (rowid
 * ascending, then column): each `rowid * 16 + column` (the column's place in TEXT_COLUMNS),
 * comma-separated. One value crosses from SQLite instead of a row per instance: ten times faster
 * on a term held by most grants.
 */
const instancesSql = (columns: readonly string[]): string =>
  `SELECT group_concat(doc * ${COLUMN_BITS} + (CASE col ` +
  `${TEXT_COLUMNS.map((name, i) => `WHEN '${name}' THEN ${i}`).join(' ')} END)) FROM ` +
  `temp.grants_text_instances WHERE term = ? AND col IN (${columns.map((name) => `'${name}'`).join(', ')})`;

/**
 * Postings kept per catalog build and search worker, counted in (grant, term) pairs of 8 bytes:
 * 512 MiB. Past it the least recently used terms are dropped (read again when asked for). A
 * catalog of short descriptions holds about 50 pairs per grant, one of realistic descriptions
 * (hundreds of words) about 160: what searches ask for is a small part of that, the common words
 * (held by most grants, ~6 MiB each at 1,000,000 grants) and the rest.
 */
const POSTINGS_BUDGET = 64 * 1024 * 1024;

/** An SQLite varint (big-endian, 7 bits a byte, the 9th byte whole), as FTS5 writes its records. */
export function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[start + i];
    if (i === 8) return { value: value * 256 + byte, next: start + 9 };
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return { value, next: start + i + 1 };
  }
  return { value, next: start + 9 };
}

/** The varints of a record, in order. */
export function readVarints(bytes: Uint8Array): number[] {
  const values: number[] = [];
  for (let at = 0; at < bytes.length;) {
    const { value, next } = readVarint(bytes, at);
    values.push(value);
    at = next;
  }
  return values;
}

/** Scratch arrays the size of the catalog, reused from term to term. */
interface Scratch {
  bits: Uint32Array;
  byPosition: Float32Array;
}

const scratchFor = (size: number): Scratch => ({ bits: emptyBits(size), byPosition: new Float32Array(size) });

const WEIGHTS = Float32Array.from(BM25_WEIGHTS);
const COMMA = 44;
const ZERO = 48;

/**
 * A term's instances (instancesSql's string) summed into one weighted count per grant, as
 * positions ascending: marked in a bit set, then collected in order. The weights are whole
 * numbers and halves, so the sums are exact in any order.
 */
function postingsOf(
  instances: string | null,
  columns: CatalogColumns,
  scratch: Scratch,
  shared = false,
): { positions: Int32Array; frequencies: Float32Array } {
  const { bits, byPosition } = scratch;
  let count = 0;
  let lastRowid = -1;
  let position = -1;
  const text = instances ?? '';
  let value = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? COMMA : text.charCodeAt(i);
    if (c !== COMMA) {
      value = value * 10 + (c - ZERO);
      continue;
    }
    if (i === 0) break; // no instance
    const rowid = Math.floor(value / COLUMN_BITS);
    const column = value - rowid * COLUMN_BITS;
    value = 0;
    if (rowid !== lastRowid) {
      lastRowid = rowid;
      position = columns.positionOf(rowid);
      if (position < 0) continue;
      setBit(bits, position);
      byPosition[position] = 0;
      count++;
    }
    if (position >= 0) byPosition[position] += WEIGHTS[column];
  }
  const positions = new Int32Array(shared ? new SharedArrayBuffer(4 * count) : new ArrayBuffer(4 * count));
  const frequencies = new Float32Array(shared ? new SharedArrayBuffer(4 * count) : new ArrayBuffer(4 * count));
  let next = 0;
  for (let i = 0; i < bits.length && next < count; i++) {
    let word = bits[i];
    if (word === 0) continue;
    bits[i] = 0;
    while (word !== 0) {
      const low = word & -word;
      const p = (i << 5) + (31 - Math.clz32(low));
      positions[next] = p;
      frequencies[next] = byPosition[p];
      next++;
      word ^= low;
    }
  }
  return { positions, frequencies };
}

/**
 * FTS5's row count and token total (its "averages" record) and each grant's length (its docsize table), from the
 * current snapshot.
 */
export function readTextStatistics(db: Db, columns: CatalogColumns): TextStatistics {
  const averages = db.prepare('SELECT block FROM grants_text_data WHERE id = 1').pluck().get() as
    Uint8Array | undefined;
  const [rows = 0, ...columnTokens] = averages === undefined ? [] : readVarints(averages);
  const lengths = new Float64Array(columns.size);
  for (const [rowid, sizes] of db.prepare('SELECT id, sz FROM grants_text_docsize').raw().iterate() as Iterable<
    [number, Uint8Array]
  >) {
    const position = columns.positionOf(rowid);
    if (position < 0) continue;
    let total = 0;
    for (const size of readVarints(sizes)) total += size;
    lengths[position] = total;
  }
  return { rows, tokens: columnTokens.reduce((a, b) => a + b, 0), lengths, columns: columnTokens.length };
}

const lnOf = (db: Db): ((x: number) => number) => {
  const ln = db.prepare('SELECT ln(?)').pluck();
  return (x) => ln.get(x) as number;
};

export class TextIndex {
  private readonly cache: LRUCache<string, Postings>;
  /** Words' analyses merged (mergeAnalyses), by their keys; a quarter of the budget. */
  private readonly words: LRUCache<string, WordPostings>;
  /** The grants holding any of several words (a term and its alternatives), by their keys; a quarter of the budget. */
  private readonly unions: LRUCache<string, Int32Array>;
  /** Phrases' and loose terms' bm25 parts (PhraseParts), by a name the caller gives; an eighth of the budget. */
  private readonly phrases: LRUCache<string, PhraseParts>;
  /** Single words' rankings (WordRanking: 3 units a grant), by their keys; a quarter of the budget. */
  private readonly rankings: LRUCache<string, WordRanking>;
  private scratch: Scratch | null = null;

  private constructor(
    readonly stats: TextStatistics,
    private readonly columns: CatalogColumns,
    private readonly readInstances: (term: string) => string | null,
    private readonly log: (x: number) => number,
    budget: number,
    private readonly shared: boolean,
  ) {
    this.cache = new LRUCache<string, Postings>({
      maxSize: budget,
      sizeCalculation: (postings) => Math.max(1, postings.positions.length),
    });
    this.words = new LRUCache<string, WordPostings>({
      maxSize: Math.max(1, Math.floor(budget / 4)),
      sizeCalculation: (word) => Math.max(1, word.positions.length + (word.bits?.length ?? 0)),
    });
    this.phrases = new LRUCache<string, PhraseParts>({
      maxSize: Math.max(1, Math.floor(budget / 8)),
      sizeCalculation: (phrase) => Math.max(1, phrase.positions.length * phrase.parts.length),
    });
    this.rankings = new LRUCache<string, WordRanking>({
      maxSize: Math.max(1, Math.floor(budget / 4)),
      sizeCalculation: (ranking) => Math.max(1, ranking.positions.length * 3),
    });
    this.unions = new LRUCache<string, Int32Array>({
      maxSize: Math.max(1, Math.floor(budget / 4)),
      sizeCalculation: (positions) => Math.max(1, positions.length),
    });
  }

  /** The statistics read from the connection's current snapshot, which must be the one the columns were loaded from. */
  static load(db: Db, columns: CatalogColumns, budget = POSTINGS_BUDGET): TextIndex {
    return TextIndex.over(db, columns, readTextStatistics(db, columns), budget);
  }

  /**
   * Statistics already read (shared by the index loader), postings read from `db` on first use
   * (`shared`: into shared memory, for the index loader to hand to every search worker).
   */
  static over(
    db: Db,
    columns: CatalogColumns,
    stats: TextStatistics,
    budget = POSTINGS_BUDGET,
    shared = false,
  ): TextIndex {
    db.exec(VOCABULARY_DDL);
    const english = db.prepare(instancesSql(ENGLISH_COLUMNS)).pluck();
    const french = db.prepare(instancesSql(FRENCH_COLUMNS)).pluck();
    const read = (key: string) =>
      (key.startsWith(FRENCH_KEY) ? french.get(key.slice(FRENCH_KEY.length)) : english.get(key)) as string | null;
    return new TextIndex(stats, columns, read, lnOf(db), budget, shared);
  }

  /** Whether the term's postings are held. */
  holds(term: string): boolean {
    return this.cache.has(term);
  }

  /** Keeps postings of this build read elsewhere (by the index loader, in shared memory). */
  adopt(term: string, postings: Postings): void {
    this.cache.set(term, postings);
  }

  /** Pairs held now (for tests and diagnostics). */
  get heldPairs(): number {
    return this.cache.calculatedSize;
  }

  /**
   * A word's postings in every analysis (the keys of its terms, in its FTS5 phrases' order),
   * merged, and kept for the next search of the word in this build.
   */
  word(keys: readonly string[]): WordPostings {
    const name = keys.join('\u0000');
    let word = this.words.get(name);
    if (word === undefined) {
      word = mergeAnalyses(keys.map((key) => this.postings(key)));
      const { size } = this.columns;
      if (denserThanList(word.positions.length, size)) word = { ...word, bits: bitsOf(word.positions, size) };
      this.words.set(name, word);
    }
    return word;
  }

  /**
   * A word's ranking (`rank` of its merged postings, on first use), kept for the next search of
   * the word alone in this build.
   */
  wordRanking(keys: readonly string[], rank: (word: WordPostings) => WordRanking): WordRanking {
    const name = keys.join('\u0000');
    let ranking = this.rankings.get(name);
    if (ranking === undefined) {
      ranking = rank(this.word(keys));
      this.rankings.set(name, ranking);
    }
    return ranking;
  }

  /**
   * The positions holding any of these words (each given by its keys, as to word()), ascending,
   * kept for the next search of the same words in this build: a term with its typo alternatives
   * is asked for again by every step of a relaxed search and by the next search of it.
   */
  anyWord(words: readonly (readonly string[])[]): Int32Array {
    if (words.length === 1) return this.word(words[0]).positions;
    const name = words.map((keys) => keys.join('\u0000')).join('\u0001');
    let positions = this.unions.get(name);
    if (positions === undefined) {
      positions = unionPositions(words.map((keys) => this.word(keys).positions));
      this.unions.set(name, positions);
    }
    return positions;
  }

  /**
   * The bm25 parts of a phrase or of a loose term's own words (`read`, on first use), kept under
   * `name` for the next search of it in this build: they hold for the whole build.
   */
  phraseParts(name: string, read: () => PhraseParts): PhraseParts {
    let parts = this.phrases.get(name);
    if (parts === undefined) {
      parts = read();
      this.phrases.set(name, parts);
    }
    return parts;
  }

  /**
   * The postings of a term in the columns of its analysis, by key (the term for the English
   * columns, frenchKey(term) for the French ones), positions ascending (read from FTS5's index on
   * first use in this build).
   */
  postings(term: string): Postings {
    const hit = this.cache.get(term);
    if (hit !== undefined) return hit;
    this.scratch ??= scratchFor(this.columns.size);
    const { positions, frequencies } = postingsOf(this.readInstances(term), this.columns, this.scratch, this.shared);
    const postings = {
      positions,
      frequencies,
      idf: inverseDocumentFrequency(this.stats.rows, positions.length, this.log),
    };
    this.cache.set(term, postings);
    return postings;
  }
}
