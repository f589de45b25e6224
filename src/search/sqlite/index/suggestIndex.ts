// What search as you type (grants/suggest.ts) reads from one catalog build beyond the word
// dictionary: the grants holding each word as written (the grants_words FTS5 table's doclist,
// read on first use and kept within a budget, least recently used dropped), and the titles and
// funder names with the grants bearing each and the words of each (read once per build, on the
// first suggestion). Immutable once read, like the rest of the build's index.
import { LRUCache } from 'lru-cache';
import { nameWords } from '../../../grants/suggest.js';
import { hasBit, type Bits } from './bitset.js';
import type { CatalogColumns } from './columns.js';
import { tableExists, type Db } from '../storage/catalogFile.js';

/** (grant, word) pairs of word postings kept per build: 4 bytes each, 64 MiB. */
const WORD_POSTINGS_BUDGET = 16 * 1024 * 1024;

/** Names of one kind (titles or funders) over the catalog's positions. */
class NameIndex {
  private constructor(
    /** The distinct names, as written. */
    readonly names: readonly string[],
    /** Per name, its grants' positions: grantsOf(i) = positions[starts[i] … starts[i + 1]). */
    private readonly starts: Int32Array,
    private readonly positions: Int32Array,
    /** Per word (folded, lower case), the names holding it. */
    private readonly byWord: ReadonlyMap<string, Int32Array>,
  ) {}

  /** The index of each position's name (`nameOf[p]`). */
  static of(nameOf: readonly string[]): NameIndex {
    const ids = new Map<string, number>();
    const idOf = new Int32Array(nameOf.length);
    nameOf.forEach((name, p) => {
      let id = ids.get(name);
      if (id === undefined) ids.set(name, (id = ids.size));
      idOf[p] = id;
    });
    const names = [...ids.keys()];
    const starts = new Int32Array(names.length + 1);
    for (const id of idOf) starts[id + 1]++;
    for (let i = 0; i < names.length; i++) starts[i + 1] += starts[i];
    const filled = starts.slice(0, names.length);
    const positions = new Int32Array(nameOf.length);
    idOf.forEach((id, p) => (positions[filled[id]++] = p));
    const byWord = new Map<string, number[]>();
    names.forEach((name, id) => {
      for (const word of new Set(nameWords(name))) {
        const list = byWord.get(word);
        if (list === undefined) byWord.set(word, [id]);
        else list.push(id);
      }
    });
    return new NameIndex(
      names,
      starts,
      positions,
      new Map([...byWord].map(([word, list]) => [word, Int32Array.from(list)])),
    );
  }

  /**
   * The `limit` names holding one of `words` with the most grants among `matches` (every grant
   * when null), ties by name in code unit order; names with no such grant left out.
   */
  top(words: readonly string[], matches: Bits | null, limit: number): { text: string; count: number }[] {
    const seen = new Uint8Array(this.names.length);
    const best: { text: string; count: number }[] = [];
    const better = (a: { text: string; count: number }, b: { text: string; count: number }) =>
      a.count > b.count || (a.count === b.count && a.text < b.text);
    for (const word of words) {
      const holding = this.byWord.get(word);
      if (holding === undefined) continue;
      for (const id of holding) {
        if (seen[id] === 1) continue;
        seen[id] = 1;
        let count = 0;
        if (matches === null) count = this.starts[id + 1] - this.starts[id];
        else
          for (let k = this.starts[id]; k < this.starts[id + 1]; k++) if (hasBit(matches, this.positions[k])) count++;
        if (count === 0) continue;
        const item = { text: this.names[id], count };
        if (best.length === limit && !better(item, best[limit - 1])) continue;
        let at = best.length === limit ? limit - 1 : best.length;
        best[at] = item;
        while (at > 0 && better(best[at], best[at - 1])) {
          [best[at - 1], best[at]] = [best[at], best[at - 1]];
          at--;
        }
      }
    }
    return best;
  }
}

/** One build's suggestion data: word postings on demand, names on first use. */
export class SuggestIndex {
  private readonly postings = new LRUCache<string, Int32Array>({
    maxSize: WORD_POSTINGS_BUDGET,
    sizeCalculation: (p) => Math.max(1, p.length),
  });
  private names: { title: NameIndex; funder: NameIndex } | null = null;
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
}
