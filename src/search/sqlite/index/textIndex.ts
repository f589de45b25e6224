// The text statistics of one catalog build held in memory: FTS5's row count, token total and each
// grant's length (read once), and the postings of each search term: read from FTS5's index on
// first use, then kept, within a budget, with the columns of that build; or all of them read ahead
// into shared memory (readAllPostings) by the search workers' index loader (sharedIndex.ts) and
// adopted by every worker. Built from the same read snapshot as the CatalogColumns it belongs to
// and dropped with them, so it never outlives its catalog. query/bm25.ts scores from it.
import { BM25_WEIGHTS, inverseDocumentFrequency, type Postings, type TextStatistics } from './postings.js';
import type { Db } from '../storage/catalogFile.js';
import type { CatalogColumns } from './columns.js';
import { emptyBits, setBit } from './bitset.js';

/** FTS5's column names, in the order of BM25_WEIGHTS. */
const TEXT_COLUMNS = ['title', 'funder', 'description'] as const;

/** The vocabulary table over the live FTS5 table, on the reading connection's temp schema. */
export const VOCABULARY_DDL = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.grants_text_instances USING fts5vocab(main, 'grants_text', 'instance')";

/** The vocabulary's terms and how many grants hold each, on the reading connection's temp schema. */
const TERMS_DDL = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.grants_text_terms USING fts5vocab(main, 'grants_text', 'row')";

/** A term's instances, by rowid ascending (FTS5's doclist order); summed per grant by postingsOf. */
const INSTANCES_SQL = 'SELECT doc, col FROM temp.grants_text_instances WHERE term = ?';
const WEIGHT_OF_COLUMN = new Map<string, number>(TEXT_COLUMNS.map((name, i) => [name, BM25_WEIGHTS[i]]));

/**
 * Postings kept per catalog build, counted in (grant, term) pairs of 8 bytes: 512 MiB. Past it the
 * least recently used terms are dropped (read again when asked for). The generated catalogs hold
 * about 50 pairs per grant over all their terms: 100,000 grants' whole vocabulary takes ~40 MiB,
 * 1,000,000 grants' ~400 MiB.
 */
export const POSTINGS_BUDGET = 64 * 1024 * 1024;

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
  for (let at = 0; at < bytes.length; ) {
    const { value, next } = readVarint(bytes, at);
    values.push(value);
    at = next;
  }
  return values;
}

/** Every term's postings in shared memory: term i's are positions[offsets[i] … offsets[i + 1]). */
export interface PostingsData {
  terms: string[];
  offsets: Int32Array;
  positions: Int32Array;
  frequencies: Float32Array;
  idf: Float64Array;
}

/** Scratch arrays the size of the catalog, reused from term to term. */
interface Scratch {
  bits: Uint32Array;
  byPosition: Float32Array;
}

const scratchFor = (size: number): Scratch => ({ bits: emptyBits(size), byPosition: new Float32Array(size) });

/**
 * A term's instances (rowid, column) summed into one weighted count per grant (in instance order,
 * as SQL's sum() adds them), as positions ascending: marked in a bit set, then collected in order.
 * Writes into `into` when given (its length is the term's grant count), else into new arrays.
 */
function postingsOf(
  instances: Iterable<[number, string]>,
  columns: CatalogColumns,
  scratch: Scratch,
  into?: { positions: Int32Array; frequencies: Float32Array },
): { positions: Int32Array; frequencies: Float32Array } {
  const { bits, byPosition } = scratch;
  let count = 0;
  let lastRowid = -1;
  let position = -1;
  for (const [rowid, column] of instances) {
    if (rowid !== lastRowid) {
      lastRowid = rowid;
      position = columns.positionOf(rowid);
      if (position < 0) continue;
      setBit(bits, position);
      byPosition[position] = 0;
      count++;
    }
    if (position >= 0) byPosition[position] += WEIGHT_OF_COLUMN.get(column) ?? 0;
  }
  const positions = into?.positions ?? new Int32Array(count);
  const frequencies = into?.frequencies ?? new Float32Array(count);
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

/** FTS5's row count and token total (its "averages" record) and each grant's length (its docsize table), from the current snapshot. */
export function readTextStatistics(db: Db, columns: CatalogColumns): TextStatistics {
  const averages = db.prepare('SELECT block FROM grants_text_data WHERE id = 1').pluck().get() as Uint8Array | undefined;
  const [rows = 0, ...columnTokens] = averages === undefined ? [] : readVarints(averages);
  const lengths = new Float64Array(columns.size);
  for (const [rowid, sizes] of db.prepare('SELECT id, sz FROM grants_text_docsize').raw().iterate() as Iterable<[number, Uint8Array]>) {
    const position = columns.positionOf(rowid);
    if (position < 0) continue;
    let total = 0;
    for (const size of readVarints(sizes)) total += size;
    lengths[position] = total;
  }
  return { rows, tokens: columnTokens.reduce((a, b) => a + b, 0), lengths };
}

const lnOf = (db: Db): ((x: number) => number) => {
  const ln = db.prepare('SELECT ln(?)').pluck();
  return (x) => ln.get(x) as number;
};

/**
 * Every term's postings, in shared memory, from the current snapshot (the one the columns and
 * statistics were read from). `proceed` is asked between terms: when it says no, the reading stops
 * and null is returned (a newer catalog makes this one's postings worthless). One read of FTS5's
 * whole index: a minute at 1,000,000 grants.
 */
export async function readAllPostings(db: Db, columns: CatalogColumns, stats: TextStatistics, proceed: () => Promise<boolean>): Promise<PostingsData | null> {
  db.exec(VOCABULARY_DDL);
  db.exec(TERMS_DDL);
  const vocabulary = db.prepare('SELECT term, doc FROM temp.grants_text_terms').raw().all() as [string, number][];
  const offsets = new Int32Array(new SharedArrayBuffer(4 * (vocabulary.length + 1)));
  for (let i = 0; i < vocabulary.length; i++) offsets[i + 1] = offsets[i] + vocabulary[i][1];
  const total = offsets[vocabulary.length];
  const positions = new Int32Array(new SharedArrayBuffer(4 * total));
  const frequencies = new Float32Array(new SharedArrayBuffer(4 * total));
  const idf = new Float64Array(new SharedArrayBuffer(8 * vocabulary.length));
  const instances = db.prepare(INSTANCES_SQL).raw();
  const log = lnOf(db);
  const scratch = scratchFor(columns.size);
  for (let i = 0; i < vocabulary.length; i++) {
    if (i % 8 === 0 && !(await proceed())) return null;
    const [term, grants] = vocabulary[i];
    const into = { positions: positions.subarray(offsets[i], offsets[i + 1]), frequencies: frequencies.subarray(offsets[i], offsets[i + 1]) };
    postingsOf(instances.iterate(term) as Iterable<[number, string]>, columns, scratch, into);
    idf[i] = inverseDocumentFrequency(stats.rows, grants, log);
  }
  return { terms: vocabulary.map(([term]) => term), offsets, positions, frequencies, idf };
}

export class TextIndex {
  private readonly cache = new Map<string, Postings>();
  private cached = 0;
  private preloaded: Map<string, Postings> | null = null;

  private constructor(
    readonly stats: TextStatistics,
    private readonly columns: CatalogColumns,
    private readonly readInstances: (term: string) => Iterable<[number, string]>,
    private readonly log: (x: number) => number,
    private readonly budget: number,
  ) {}

  /** The statistics read from the connection's current snapshot, which must be the one the columns were loaded from. */
  static load(db: Db, columns: CatalogColumns, budget = POSTINGS_BUDGET): TextIndex {
    return TextIndex.over(db, columns, readTextStatistics(db, columns), budget);
  }

  /** Statistics already read (shared by the index loader), postings read from `db` on first use. */
  static over(db: Db, columns: CatalogColumns, stats: TextStatistics, budget = POSTINGS_BUDGET): TextIndex {
    db.exec(VOCABULARY_DDL);
    const instances = db.prepare(INSTANCES_SQL).raw();
    return new TextIndex(stats, columns, (term) => instances.iterate(term) as Iterable<[number, string]>, lnOf(db), budget);
  }

  /** Takes every term's postings from shared memory (readAllPostings of the same build); the ones read so far are dropped. */
  adoptPostings(data: PostingsData): void {
    const preloaded = new Map<string, Postings>();
    data.terms.forEach((term, i) => {
      const from = data.offsets[i];
      const to = data.offsets[i + 1];
      preloaded.set(term, { positions: data.positions.subarray(from, to), frequencies: data.frequencies.subarray(from, to), idf: data.idf[i] });
    });
    this.preloaded = preloaded;
    this.cache.clear();
    this.cached = 0;
  }

  /** Pairs held now (for tests and diagnostics). */
  get heldPairs(): number {
    return this.cached;
  }

  /** The term's postings, positions ascending (read from FTS5's index on first use in this build). */
  postings(term: string): Postings {
    const preloaded = this.preloaded?.get(term);
    if (preloaded !== undefined) return preloaded;
    const hit = this.cache.get(term);
    if (hit !== undefined) {
      // Most recently used last.
      this.cache.delete(term);
      this.cache.set(term, hit);
      return hit;
    }
    const { positions, frequencies } = postingsOf(this.readInstances(term), this.columns, scratchFor(this.columns.size));
    const postings = { positions, frequencies, idf: inverseDocumentFrequency(this.stats.rows, positions.length, this.log) };
    const size = positions.length;
    for (const [oldest, old] of this.cache) {
      if (this.cached + size <= this.budget) break;
      this.cache.delete(oldest);
      this.cached -= old.positions.length;
    }
    this.cache.set(term, postings);
    this.cached += size;
    return postings;
  }
}
