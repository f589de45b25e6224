// What the text index holds for bm25 (query/bm25.ts scores from it): one term's postings, the
// catalog's text statistics, the columns' weights the postings' counts are weighted by, and a
// term's inverse document frequency, computed once when its postings are read. Pure: no I/O.

import { COLUMN_WEIGHTS } from '../storage/textColumns.js';
import { positionsOf } from './bitset.js';

/** Relevance weights of the FTS5 table's columns, in its order (storage/textColumns.ts). */
export const BM25_WEIGHTS = COLUMN_WEIGHTS;

/** One search term's postings: the positions holding it, ascending, and its column-weighted count in each. */
export interface Postings {
  positions: Int32Array;
  /**
   * Σ over the term's instances in the grant (in the columns of its analysis) of the weight of the instance's column.
   */
  frequencies: Float32Array;
  /** The term's inverse document frequency (inverseDocumentFrequency). */
  idf: number;
}

/** What bm25 needs of the whole catalog: FTS5's row count and token total, and each grant's length. */
export interface TextStatistics {
  rows: number;
  tokens: number;
  /** Tokens of each grant over all its columns, by position. */
  lengths: Float64Array;
  /**
   * The columns FTS5 counts tokens of (0 before the first row): fewer than TEXT_COLUMNS in a catalog of an earlier
   * release.
   */
  columns: number;
}

/**
 * FTS5's inverse document frequency of a term held by `hits` of `rows` rows. `log` is the C
 * library's (SQLite's ln()): V8's Math.log differs from it in the last bit for some arguments,
 * which would move every score of such a term by one unit in the last place.
 */
export function inverseDocumentFrequency(rows: number, hits: number, log: (x: number) => number): number {
  const idf = log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * One search word as it is looked up: the grants holding it in any of its analyses (the English
 * and the French: storage/textColumns.ts), ascending, with each analysis's weighted count there (0
 * where that analysis holds none) and idf, in the order of the word's FTS5 phrases.
 */
export interface WordPostings {
  positions: Int32Array;
  counts: Float32Array[];
  idf: number[];
  /**
   * The positions as a bit set over the catalog, for a word held by more than one grant in 32
   * (text index's word(): an intersection then tests it in one step rather than walking the list).
   */
  bits?: Uint32Array;
}

/**
 * The grants holding a word with their bm25 scores of that word alone (positions ascending), and
 * their indexes ranked by (score, position), best first (query/bm25.ts rankWord).
 */
export interface WordRanking {
  positions: Int32Array;
  scores: Float64Array;
  order: Int32Array;
}

/**
 * A part of a term looked up other than word by word (a phrase, or the own words of a term a
 * synonym rule joined, all of them): the grants it matches, ascending, and the bm25 part of each
 * of its FTS5 phrases at each of them (0 where a phrase holds none), in the expression's order.
 */
export interface PhraseParts {
  positions: Int32Array;
  parts: Float64Array[];
}

/**
 * The first index from `from` whose position is not below `position` (the list ascending): a
 * galloping search, as cheap as a step when the next position is near and logarithmic when a long
 * list is walked beside a short one.
 */
export function advance(list: Int32Array, from: number, position: number): number {
  if (from >= list.length || list[from] >= position) return from;
  let lo = from;
  let step = 1;
  while (lo + step < list.length && list[lo + step] < position) {
    lo += step;
    step *= 2;
  }
  // list[lo] is below the position; list[hi] is not (or hi is the length).
  let hi = Math.min(list.length, lo + step);
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < position) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** A word's analyses' postings (in phrase order) as one WordPostings: their positions merged, in one pass. */
export function mergeAnalyses(analyses: readonly Postings[]): WordPostings {
  const idf = analyses.map((p) => p.idf);
  if (analyses.length === 1) return { positions: analyses[0].positions, counts: [analyses[0].frequencies], idf };
  const lists = analyses.map((p) => p.positions);
  const [first] = lists;
  if (lists.every((list) => list.length === first.length && list.every((position, i) => position === first[i]))) {
    return { positions: first, counts: analyses.map((p) => p.frequencies), idf };
  }
  const total = lists.reduce((sum, list) => sum + list.length, 0);
  const merged = new Int32Array(total);
  const counts = analyses.map(() => new Float32Array(total));
  const cursors = new Int32Array(lists.length);
  let found = 0;
  for (;;) {
    let next = Infinity;
    for (let a = 0; a < lists.length; a++)
      if (cursors[a] < lists[a].length && lists[a][cursors[a]] < next) next = lists[a][cursors[a]];
    if (next === Infinity) break;
    merged[found] = next;
    for (let a = 0; a < lists.length; a++) {
      if (cursors[a] < lists[a].length && lists[a][cursors[a]] === next) {
        counts[a][found] = analyses[a].frequencies[cursors[a]];
        cursors[a]++;
      }
    }
    found++;
  }
  return { positions: merged.subarray(0, found), counts: counts.map((c) => c.subarray(0, found)), idf };
}

/**
 * The positions holding at least one of these lists' positions, ascending: each list marked in a
 * bit set, then the set read in order (the lists are many and long: a term's typo alternatives).
 */
export function unionPositions(lists: readonly Int32Array[]): Int32Array {
  if (lists.length === 1) return lists[0];
  let last = -1;
  for (const list of lists) if (list.length > 0 && list[list.length - 1] > last) last = list[list.length - 1];
  if (last < 0) return new Int32Array(0);
  const bits = new Uint32Array((last >>> 5) + 1);
  let marked = 0;
  for (const list of lists)
    for (let i = 0; i < list.length; i++) {
      const position = list[i];
      const mask = 1 << (position & 31);
      if ((bits[position >>> 5] & mask) === 0) {
        bits[position >>> 5] |= mask;
        marked++;
      }
    }
  return positionsOf(bits, marked);
}
