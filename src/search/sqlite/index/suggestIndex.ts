// What search as you type (grants/suggest.ts) reads from one catalog build beyond the word
// dictionary: the grants holding each word as written (the grants_words FTS5 table's doclist,
// read on first use and kept within a budget, least recently used dropped), and the titles and
// funder names ranked with the grants bearing each (read once per build: a search worker reads
// them when it adopts the build). Immutable once read, like the rest of the build's index.
import { LRUCache } from 'lru-cache';
import { RankedNames, SuggestDictionary } from '../../suggestDictionary.js';
import type { SortedWords } from '../../wordDictionary.js';
import { hasBit, type Bits } from './bitset.js';
import type { CatalogColumns } from './columns.js';
import { tableExists, type Db } from '../storage/catalogFile.js';

/** (grant, word) pairs of word postings kept per build: 4 bytes each, 64 MiB. */
const WORD_POSTINGS_BUDGET = 16 * 1024 * 1024;

/** Names of one kind (titles or funders) over the catalog's positions, ranked as every engine ranks them. */
export class NameIndex {
  private constructor(
    /** The names ranked, with their grant counts and words (search/suggestDictionary.ts). */
    readonly ranked: RankedNames,
    /** Per rank, its grants' positions: grantsOf(r) = positions[starts[r] … starts[r + 1]). */
    private readonly starts: Int32Array,
    private readonly positions: Int32Array,
  ) {}

  /** The index of each position's name (`nameOf[p]`). */
  static of(nameOf: readonly string[]): NameIndex {
    const counts = new Map<string, number>();
    for (const name of nameOf) counts.set(name, (counts.get(name) ?? 0) + 1);
    const ranked = RankedNames.of(counts);
    const rankOf = new Map<string, number>();
    ranked.names.forEach((name, rank) => rankOf.set(name, rank));
    const starts = new Int32Array(ranked.names.length + 1);
    for (let rank = 0; rank < ranked.names.length; rank++) starts[rank + 1] = starts[rank] + ranked.docs[rank];
    const filled = starts.slice(0, ranked.names.length);
    const positions = new Int32Array(nameOf.length);
    nameOf.forEach((name, p) => (positions[filled[rankOf.get(name) as number]++] = p));
    return new NameIndex(ranked, starts, positions);
  }

  /** How many of `matches` bear the name of rank `rank`. */
  count(rank: number, matches: Bits): number {
    let count = 0;
    for (let k = this.starts[rank]; k < this.starts[rank + 1]; k++) if (hasBit(matches, this.positions[k])) count++;
    return count;
  }
}

/** One build's suggestion data: word postings on demand, names on first use. */
export class SuggestIndex {
  private readonly postings = new LRUCache<string, Int32Array>({
    maxSize: WORD_POSTINGS_BUDGET,
    sizeCalculation: (p) => Math.max(1, p.length),
  });
  private names: { title: NameIndex; funder: NameIndex } | null = null;
  private shared: SuggestDictionary | null = null;
  private readonly wordDocs;
  private readonly hasWords: boolean;

  constructor(
    private readonly db: Db,
    private readonly columns: CatalogColumns,
  ) {
    this.hasWords = tableExists(db, 'grants_words');
    this.wordDocs = this.hasWords
      ? db.prepare('SELECT rowid FROM grants_words WHERE grants_words MATCH ?').pluck()
      : null;
  }

  /** The positions of the grants holding `word` (as written, folded, lower case), ascending. */
  wordPositions(word: string): Int32Array {
    let found = this.postings.get(word);
    if (found === undefined) {
      const rowids = this.wordDocs === null ? [] : (this.wordDocs.all(`"${word.replaceAll('"', '""')}"`) as number[]);
      found = Int32Array.from(rowids, (rowid) => this.columns.positionOf(rowid))
        .filter((p) => p >= 0)
        .sort();
      this.postings.set(word, found);
    }
    return found;
  }

  /** How many of `matches` (every grant when null) hold `word`. */
  countWord(word: string, matches: Bits | null): number {
    const positions = this.wordPositions(word);
    if (matches === null) return positions.length;
    let count = 0;
    for (let k = 0; k < positions.length; k++) if (hasBit(matches, positions[k])) count++;
    return count;
  }

  /** The titles and funder names of the build, read on first use. */
  nameIndex(kind: 'title' | 'funder'): NameIndex {
    if (this.names === null) {
      const titles = new Array<string>(this.columns.size).fill('');
      const funders = new Array<string>(this.columns.size).fill('');
      for (const [rowid, title, funder] of this.db
        .prepare("SELECT rowid, json_extract(doc, '$.title'), json_extract(doc, '$.funder') FROM grants")
        .raw()
        .iterate() as Iterable<[number, string, string]>) {
        const p = this.columns.positionOf(rowid);
        if (p < 0) continue;
        titles[p] = title;
        funders[p] = funder;
      }
      this.names = { title: NameIndex.of(titles), funder: NameIndex.of(funders) };
    }
    return this.names[kind];
  }

  /** The build's suggestion index over its word dictionary (`words`) and its names. */
  dictionary(words: SortedWords): SuggestDictionary {
    return (this.shared ??= new SuggestDictionary(
      words,
      this.nameIndex('title').ranked,
      this.nameIndex('funder').ranked,
    ));
  }
}
