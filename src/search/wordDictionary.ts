// A sorted dictionary of words with how many grants hold each, walked as an implicit trie: the
// words sharing a prefix are adjacent, so one row of the edit-distance table per prefix letter is
// enough, a prefix whose row is all above the bound is skipped whole (a binary search past every
// word that starts with it), and only the words starting with the search word's first letter are
// visited. The cost is the number of prefixes within the bound, not the dictionary's size. Each
// engine fills one from its own index (the embedded engine's grants_words vocabulary,
// Elasticsearch's `words` terms): typo tolerance asks it for a word's neighbours, search as you
// type for the completions of a prefix. Pure.

/** The first index of `words` (sorted) not below `key`. */
function lowerBound(words: readonly string[], key: string, from = 0): number {
  let lo = from;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Past every word starting with `prefix`: no word holds U+FFFF (a noncharacter). */
const pastPrefix = (words: readonly string[], prefix: string, from: number): number =>
  lowerBound(words, `${prefix}\uffff`, from);

/**
 * The first index from `from` whose word does not start with `prefix` (the words from `from` on
 * that do are adjacent): a galloping search, as the run is usually short.
 */
function pastRun(words: readonly string[], prefix: string, from: number): number {
  let step = 1;
  let lo = from;
  while (lo + step < words.length && words[lo + step].startsWith(prefix)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(words.length, lo + step);
  // words[lo] starts with the prefix (or lo = from), words[hi] does not (or hi = length).
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid].startsWith(prefix)) lo = mid;
    else hi = mid;
  }
  return from < words.length && !words[from].startsWith(prefix) ? from : hi;
}

export class SortedWords {
  /** The words in code unit order, and how many grants hold each. */
  constructor(
    readonly words: readonly string[],
    readonly docs: Int32Array,
  ) {}

  /** The entries sorted in code unit order. */
  static sorted(entries: readonly [string, number][]): { words: string[]; docs: Int32Array } {
    const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { words: sorted.map(([word]) => word), docs: Int32Array.from(sorted, ([, docs]) => docs) };
  }

  static of(entries: readonly [string, number][]): SortedWords {
    const { words, docs } = SortedWords.sorted(entries);
    return new SortedWords(words, docs);
  }

  /** The index of `word`, -1 when absent. */
  indexOf(word: string): number {
    const at = lowerBound(this.words, word);
    return at < this.words.length && this.words[at] === word ? at : -1;
  }

  /** How many grants hold the word (0 for a word no grant holds). */
  docsOf(word: string): number {
    const at = this.indexOf(word);
    return at < 0 ? 0 : this.docs[at];
  }

  /** The indexes [from, to) of the words starting with `prefix` (adjacent, the words being sorted). */
  startingWith(prefix: string): [number, number] {
    const from = lowerBound(this.words, prefix, 0);
    return [from, pastPrefix(this.words, prefix, from)];
  }

  /**
   * Every word within `max` edits of `word` (optimal string alignment: an insertion, deletion,
   * substitution or adjacent transposition is one edit, counted in UTF-16 units as the words are
   * sorted) that starts with the same first unit, `word` itself excluded, with its distance.
   */
  neighbours(word: string, max: number): { word: string; docs: number; typos: number }[] {
    const found: { word: string; docs: number; typos: number }[] = [];
    if (word.length === 0 || max <= 0) return found;
    const words = this.words;
    const m = word.length;
    const q = Array.from(word, (_, i) => word.charCodeAt(i));
    const first = word[0];
    const end = pastPrefix(words, first, 0);
    // rows[d]: the distances between the first d units of the path and each prefix of `word`;
    // only the band |d − j| ≤ max is computed (a cell outside it is above the bound), the rest
    // holds max + 1.
    const over = max + 1;
    const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => Math.min(j, over))];
    let path = '';
    let i = lowerBound(words, first, 0);
    while (i < end) {
      const term = words[i];
      let common = 0;
      const limit = Math.min(path.length, term.length);
      while (common < limit && path.charCodeAt(common) === term.charCodeAt(common)) common++;
      let pruned = -1;
      for (let depth = common + 1; depth <= term.length; depth++) {
        const best = fillRow(rows, depth, term, q, max);
        // Each row's least value never falls in the rows below it: nothing under this prefix is within the bound.
        if (best > max) {
          pruned = depth;
          break;
        }
      }
      if (pruned > 0) {
        path = term.slice(0, pruned);
        i = pastRun(words, path, i);
        continue;
      }
      path = term;
      const typos = rows[term.length][m];
      if (typos <= max && term !== word) found.push({ word: term, docs: this.docs[i], typos });
      i++;
    }
    return found;
  }

  /**
   * Every word completing `prefix` (grants/suggest.ts completes: the reference), with how many
   * grants hold it: the words starting with it, and with `max` > 0 those starting with the same
   * first unit one of whose beginnings is within `max` edits of it (optimal string alignment,
   * counted in UTF-16 units). The walk of neighbours(), but a prefix of the path within the bound
   * takes every word under it at once.
   */
  completions(prefix: string, max: number): { word: string; docs: number }[] {
    const found: { word: string; docs: number }[] = [];
    const words = this.words;
    const take = (from: number, to: number) => {
      for (let k = from; k < to; k++) found.push({ word: words[k], docs: this.docs[k] });
    };
    if (prefix.length === 0) return found;
    if (max <= 0) {
      take(...this.startingWith(prefix));
      return found;
    }
    const m = prefix.length;
    const q = Array.from(prefix, (_, i) => prefix.charCodeAt(i));
    const first = prefix[0];
    const end = pastPrefix(words, first, 0);
    const over = max + 1;
    const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => Math.min(j, over))];
    let path = '';
    let i = lowerBound(words, first, 0);
    while (i < end) {
      const term = words[i];
      let common = 0;
      const limit = Math.min(path.length, term.length);
      while (common < limit && path.charCodeAt(common) === term.charCodeAt(common)) common++;
      let stop = -1;
      let within = false;
      // A beginning already within the bound on the shared part of the path took its run before.
      for (let depth = common + 1; depth <= term.length; depth++) {
        const best = fillRow(rows, depth, term, q, max);
        if (rows[depth][m] <= max) {
          stop = depth;
          within = true;
          break;
        }
        if (best > max) {
          stop = depth;
          break;
        }
      }
      if (stop > 0) {
        path = term.slice(0, stop);
        const next = pastRun(words, path, i);
        if (within) take(i, next);
        i = next;
        continue;
      }
      path = term;
      i++;
    }
    return found;
  }
}

/**
 * Fills rows[depth]: the distances between the first `depth` units of `term` and each prefix of
 * the query units `q` (optimal string alignment), within the band |depth − j| ≤ max; a cell above
 * the bound holds max + 1. Returns the row's least value (no row below it is smaller).
 */
function fillRow(rows: Int32Array[], depth: number, term: string, q: readonly number[], max: number): number {
  const m = q.length;
  const over = max + 1;
  let row = rows[depth];
  if (row === undefined) rows[depth] = row = new Int32Array(m + 1);
  const above = rows[depth - 1];
  const twoAbove = depth > 1 ? rows[depth - 2] : above;
  const c = term.charCodeAt(depth - 1);
  const previousUnit = depth > 1 ? term.charCodeAt(depth - 2) : -1;
  const from = Math.max(1, depth - max);
  const to = Math.min(m, depth + max);
  row.fill(over);
  row[0] = depth < over ? depth : over;
  let best = row[0];
  for (let j = from; j <= to; j++) {
    let d = above[j] + 1;
    const left = row[j - 1] + 1;
    if (left < d) d = left;
    const diagonal = above[j - 1] + (q[j - 1] === c ? 0 : 1);
    if (diagonal < d) d = diagonal;
    if (j > 1 && q[j - 1] === previousUnit && q[j - 2] === c) {
      const swapped = twoAbove[j - 2] + 1;
      if (swapped < d) d = swapped;
    }
    if (d > over) d = over;
    row[j] = d;
    if (d < best) best = d;
  }
  return best;
}
