// The suggestion index of one catalog build, the same on every engine: the catalog's words
// (SortedWords: folded, lower case, not stemmed, the typo dictionary), its titles and its funder
// names (RankedNames), each with how many grants hold it. Each engine fills one per build from its
// own index (the embedded engine from its catalog file, Elasticsearch by aggregations when the API
// adopts an index of the alias) and search as you type reads every candidate from it: with no
// condition their counts are the answer's, with conditions they are the candidates counted, the
// most frequent first (grants/suggest.ts topCounted). Pure.
import { nameWords, type Candidate } from '../grants/suggest.js';
import { SortedWords } from './wordDictionary.js';

/** A binary heap of indexes ordered by `before` (the least first). */
class Heap {
  private readonly items: number[] = [];

  constructor(private readonly before: (a: number, b: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): number {
    return this.items[0];
  }

  push(item: number): void {
    const items = this.items;
    let at = items.push(item) - 1;
    while (at > 0) {
      const parent = (at - 1) >>> 1;
      if (!this.before(items[at], items[parent])) break;
      [items[at], items[parent]] = [items[parent], items[at]];
      at = parent;
    }
  }

  /** Replaces the least item by `item` (or removes it when undefined) and restores the order. */
  replaceTop(item: number | undefined): void {
    const items = this.items;
    if (item === undefined) {
      const last = items.pop() as number;
      if (items.length === 0) return;
      item = last;
    }
    let at = 0;
    items[0] = item;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && this.before(items[right], items[left]) ? right : left;
      if (!this.before(items[child], items[at])) break;
      [items[at], items[child]] = [items[child], items[at]];
      at = child;
    }
  }
}

/** Most grants first, ties by text in code unit order: the order candidates are counted in. */
const byCatalogCount = (a: Candidate, b: Candidate): boolean =>
  a.docs > b.docs || (a.docs === b.docs && a.text < b.text);

/**
 * The titles (or funder names) of a catalog with how many grants bear each, ranked: the most
 * grants first, ties by name in code unit order; and per word of a name (nameWords) the ranks of
 * the names holding it, ascending.
 */
export class RankedNames {
  private constructor(
    /** The names by rank. */
    readonly names: readonly string[],
    /** How many grants bear each name, by rank. */
    readonly docs: Int32Array,
    private readonly byWord: ReadonlyMap<string, Int32Array>,
  ) {}

  /** The names with their grant counts (each name once; names of no grant are left out). */
  static of(entries: Iterable<readonly [string, number]>): RankedNames {
    const sorted = [...entries]
      .filter(([, docs]) => docs > 0)
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
    const byWord = new Map<string, number[]>();
    sorted.forEach(([name], rank) => {
      for (const word of new Set(nameWords(name))) {
        const ranks = byWord.get(word);
        if (ranks === undefined) byWord.set(word, [rank]);
        else ranks.push(rank);
      }
    });
    return new RankedNames(
      sorted.map(([name]) => name),
      Int32Array.from(sorted, ([, docs]) => docs),
      new Map([...byWord].map(([word, ranks]) => [word, Int32Array.from(ranks)])),
    );
  }

  /** The names holding one of `words`, each once, by rank (the most grants first); `id` is the rank. */
  *holding(words: readonly string[]): Generator<Candidate> {
    const lists: Int32Array[] = [];
    for (const word of words) {
      const ranks = this.byWord.get(word);
      if (ranks !== undefined) lists.push(ranks);
    }
    // A k-way merge of the words' rank lists: each list's next rank in a heap.
    const at = new Int32Array(lists.length);
    const heap = new Heap((a, b) => lists[a][at[a]] < lists[b][at[b]]);
    lists.forEach((_, i) => heap.push(i));
    let last = -1;
    while (heap.size > 0) {
      const i = heap.peek();
      const rank = lists[i][at[i]];
      at[i]++;
      heap.replaceTop(at[i] < lists[i].length ? i : undefined);
      if (rank === last) continue;
      last = rank;
      yield { text: this.names[rank], docs: this.docs[rank], id: rank };
    }
  }
}

/** One build's words, titles and funder names with their grant counts. */
export class SuggestDictionary {
  constructor(
    readonly words: SortedWords,
    readonly titles: RankedNames,
    readonly funders: RankedNames,
  ) {}

  static readonly EMPTY = new SuggestDictionary(SortedWords.of([]), RankedNames.of([]), RankedNames.of([]));

  names(kind: 'title' | 'funder'): RankedNames {
    return kind === 'title' ? this.titles : this.funders;
  }

  /** The words completing `prefix` within `budget` typos (SortedWords.completions). */
  completions(prefix: string, budget: number): Candidate[] {
    return this.words.completions(prefix, budget).map(({ word, docs }) => ({ text: word, docs, id: -1 }));
  }
}

/** `candidates` the most grants first, ties by text, taken one at a time (a heap: the first few cost little). */
export function* mostFrequentFirst(candidates: readonly Candidate[]): Generator<Candidate> {
  const heap = new Heap((a, b) => byCatalogCount(candidates[a], candidates[b]));
  for (let i = 0; i < candidates.length; i++) heap.push(i);
  while (heap.size > 0) {
    const i = heap.peek();
    heap.replaceTop(undefined);
    yield candidates[i];
  }
}
