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

  /**
   * Per rank, the indexes in `words` of the name's words the dictionary holds, and per dictionary
   * index how many names hold its word before it (prefix sums: the names' entries of a range).
   */
  wordIndexes(words: SortedWords): NameWords {
    const ranks = this.names.length;
    const starts = new Int32Array(ranks + 1);
    const before = new Int32Array(words.words.length + 1);
    const held: [number, Int32Array][] = [];
    for (const [word, holders] of this.byWord) {
      const index = words.indexOf(word);
      if (index < 0) continue;
      held.push([index, holders]);
      before[index + 1] = holders.length;
      for (const rank of holders) starts[rank + 1]++;
    }
    for (let k = 0; k < words.words.length; k++) before[k + 1] += before[k];
    for (let rank = 0; rank < ranks; rank++) starts[rank + 1] += starts[rank];
    const filled = starts.slice(0, ranks);
    const indexes = new Int32Array(starts[ranks]);
    for (const [index, holders] of held) for (const rank of holders) indexes[filled[rank]++] = index;
    return { starts, indexes, before };
  }

  /**
   * The names holding a word of indexes [from, to) of the dictionary `of` indexes (wordIndexes),
   * by rank: the names walked in rank order, what holding() gives for those words.
   */
  *holdingRange(of: NameWords, from: number, to: number): Generator<Candidate> {
    const { starts, indexes } = of;
    for (let rank = 0; rank < this.names.length; rank++) {
      for (let k = starts[rank]; k < starts[rank + 1]; k++) {
        if (indexes[k] >= from && indexes[k] < to) {
          yield { text: this.names[rank], docs: this.docs[rank], id: rank };
          break;
        }
      }
    }
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

/** A names' words as dictionary indexes (RankedNames.wordIndexes). */
export interface NameWords {
  /** Of rank r, indexes[starts[r] … starts[r + 1]). */
  starts: Int32Array;
  indexes: Int32Array;
  /** Per dictionary index k, how many (name, word) entries have a word before k. */
  before: Int32Array;
}

/**
 * Prefixes up to this many UTF-16 units have their words' order precomputed (per length, one
 * index per word): prefixes without typos (below 5 letters) take their completions in order at once.
 */
const ORDERED_PREFIX = 4;

/**
 * Below this share of the names' (name, word) entries, the names holding a range's words are found
 * by merging the words' lists (holding); from it, by walking the names in rank order (holdingRange).
 */
const WALK_SHARE = 1 / 64;

/**
 * The words completing a prefix, as an engine asks for them: every word starting with the prefix
 * (no typo), or the list of them (within typos).
 */
export type Completing = { prefix: string } | { words: readonly string[] };

/** Each kind's candidates for a prefix: the words the most frequent first, the names by rank. */
export interface SuggestCandidates {
  words(): Iterator<Candidate>;
  names(kind: 'title' | 'funder'): Iterator<Candidate>;
  /** The words completing the prefix: a name is a candidate when it holds one. */
  completing: Completing;
  /** Whether the name of rank `rank` holds a completing word (one of those names() yields). */
  nameCompletes(kind: 'title' | 'funder', rank: number): boolean;
}

/** One build's words, titles and funder names with their grant counts. */
export class SuggestDictionary {
  /** Per prefix length d: the word indexes, each run of words sharing their first d units the most grants first. */
  private readonly orders: Int32Array[] = [];
  private readonly nameWords = new Map<'title' | 'funder', NameWords>();

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

  /**
   * The candidates completing `prefix` within `budget` typos, null when no word does. Without typos
   * the completions are the adjacent words starting with the prefix: a short prefix's come from its
   * precomputed order, and its names from a walk in rank order when they are many.
   */
  candidates(prefix: string, budget: number): SuggestCandidates | null {
    if (budget > 0) {
      const found = this.completions(prefix, budget);
      if (found.length === 0) return null;
      const texts = found.map((candidate) => candidate.text);
      let indexes: Set<number> | null = null;
      return {
        words: () => mostFrequentFirst(found),
        names: (kind) => this.names(kind).holding(texts),
        completing: { words: texts },
        nameCompletes: (kind, rank) => {
          const set = (indexes ??= new Set(texts.map((text) => this.words.indexOf(text))));
          return this.nameHolds(kind, rank, (index) => set.has(index));
        },
      };
    }
    const [from, to] = this.words.startingWith(prefix);
    if (from === to) return null;
    const { words, docs } = this.words;
    const completing = { prefix };
    const nameCompletes = (kind: 'title' | 'funder', rank: number): boolean =>
      this.nameHolds(kind, rank, (index) => index >= from && index < to);
    if (prefix.length > ORDERED_PREFIX) {
      const found = this.completions(prefix, 0);
      const texts = found.map((candidate) => candidate.text);
      return {
        words: () => mostFrequentFirst(found),
        names: (kind) => this.names(kind).holding(texts),
        completing,
        nameCompletes,
      };
    }
    const order = this.order(prefix.length).subarray(from, to);
    return {
      completing,
      nameCompletes,
      words: function* () {
        for (const k of order) yield { text: words[k], docs: docs[k], id: -1 };
      },
      names: (kind) => {
        const ranked = this.names(kind);
        const of = this.nameWordsOf(kind);
        const entries = of.before[to] - of.before[from];
        return entries >= of.indexes.length * WALK_SHARE
          ? ranked.holdingRange(of, from, to)
          : ranked.holding(words.slice(from, to));
      },
    };
  }

  /** The word indexes ordered within each run of words sharing their first `depth` units (built on first use). */
  private order(depth: number): Int32Array {
    let order = this.orders[depth];
    if (order === undefined) {
      const { words, docs } = this.words;
      order = Int32Array.from(words, (_, k) => k);
      // The most grants first, ties by text: by index, the words being sorted.
      const before = (a: number, b: number): number => docs[b] - docs[a] || a - b;
      for (let from = 0; from < words.length;) {
        const head = words[from].slice(0, depth);
        let to = from + 1;
        if (head.length === depth) while (to < words.length && words[to].startsWith(head)) to++;
        if (to - from > 1) order.subarray(from, to).sort(before);
        from = to;
      }
      this.orders[depth] = order;
    }
    return order;
  }

  /** Whether the name of rank `rank` holds a dictionary word whose index is `wanted`. */
  private nameHolds(kind: 'title' | 'funder', rank: number, wanted: (index: number) => boolean): boolean {
    const { starts, indexes } = this.nameWordsOf(kind);
    for (let k = starts[rank]; k < starts[rank + 1]; k++) if (wanted(indexes[k])) return true;
    return false;
  }

  private nameWordsOf(kind: 'title' | 'funder'): NameWords {
    let of = this.nameWords.get(kind);
    if (of === undefined) this.nameWords.set(kind, (of = this.names(kind).wordIndexes(this.words)));
    return of;
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
