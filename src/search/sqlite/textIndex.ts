// The text statistics of one catalog build held in memory: FTS5's row count, token total and each
// grant's length (read once), and the postings of each search term (read from FTS5's index on
// first use, then kept, within a budget, with the columns of that build). Built from the same read
// snapshot as the CatalogColumns it belongs to and dropped with them, so it never outlives its
// catalog. bm25.ts scores from it.
import { inverseDocumentFrequency, type Postings, type TextStatistics } from './bm25.js';
import { BM25_WEIGHTS } from './translator.js';
import type { Db } from './catalogFile.js';
import type { CatalogColumns } from './columns.js';
import { emptyBits, setBit } from './bitset.js';

/** FTS5's column names, in the order of BM25_WEIGHTS. */
const TEXT_COLUMNS = ['title', 'funder', 'description'] as const;

/** The vocabulary table over the live FTS5 table, on the reading connection's temp schema. */
export const VOCABULARY_DDL = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.grants_text_instances USING fts5vocab(main, 'grants_text', 'instance')";

const WEIGHT_SQL = `CASE col ${TEXT_COLUMNS.map((name, i) => `WHEN '${name}' THEN ${BM25_WEIGHTS[i].toFixed(1)}`).join(' ')} ELSE 0.0 END`;
const POSTINGS_SQL = `SELECT doc, sum(${WEIGHT_SQL}) FROM temp.grants_text_instances WHERE term = ? GROUP BY doc`;

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

export class TextIndex {
  private readonly cache = new Map<string, Postings>();
  private cached = 0;

  private constructor(
    readonly stats: TextStatistics,
    private readonly columns: CatalogColumns,
    private readonly readPostings: (term: string) => [number, number][],
    private readonly log: (x: number) => number,
    private readonly budget: number,
  ) {}

  /**
   * Reads the statistics FTS5's bm25 reads (the "averages" record: rows, then tokens per column; the
   * docsize table: tokens per column of each row) from the connection's current snapshot, which
   * must be the one the columns were loaded from.
   */
  static load(db: Db, columns: CatalogColumns, budget = POSTINGS_BUDGET): TextIndex {
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
    db.exec(VOCABULARY_DDL);
    const postings = db.prepare(POSTINGS_SQL).raw();
    const ln = db.prepare('SELECT ln(?)').pluck();
    return new TextIndex(
      { rows, tokens: columnTokens.reduce((a, b) => a + b, 0), lengths },
      columns,
      (term) => postings.all(term) as [number, number][],
      (x) => ln.get(x) as number,
      budget,
    );
  }

  /** Pairs held now (for tests and diagnostics). */
  get heldPairs(): number {
    return this.cached;
  }

  /** The term's postings, positions ascending (read from FTS5's index on first use in this build). */
  postings(term: string): Postings {
    const hit = this.cache.get(term);
    if (hit !== undefined) {
      // Most recently used last.
      this.cache.delete(term);
      this.cache.set(term, hit);
      return hit;
    }
    const rows = this.readPostings(term);
    const postings = this.sortedPostings(rows, inverseDocumentFrequency(this.stats.rows, rows.length, this.log));
    const size = postings.positions.length;
    for (const [oldest, old] of this.cache) {
      if (this.cached + size <= this.budget) break;
      this.cache.delete(oldest);
      this.cached -= old.positions.length;
    }
    this.cache.set(term, postings);
    this.cached += size;
    return postings;
  }

  /** Rows (rowid, weighted count) as positions ascending: marked in a bit set, then collected in order. */
  private sortedPostings(rows: [number, number][], idf: number): Postings {
    const { columns } = this;
    const bits = emptyBits(columns.size);
    const byPosition = new Float32Array(columns.size);
    let count = 0;
    for (const [rowid, frequency] of rows) {
      const position = columns.positionOf(rowid);
      if (position < 0) continue;
      setBit(bits, position);
      byPosition[position] = frequency;
      count++;
    }
    const positions = new Int32Array(count);
    const frequencies = new Float32Array(count);
    let next = 0;
    for (let i = 0; i < bits.length; i++) {
      let word = bits[i];
      while (word !== 0) {
        const low = word & -word;
        const position = (i << 5) + (31 - Math.clz32(low));
        positions[next] = position;
        frequencies[next] = byPosition[position];
        next++;
        word ^= low;
      }
    }
    return { positions, frequencies, idf };
  }
}
