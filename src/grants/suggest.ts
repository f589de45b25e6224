// Search as you type (GET /grants/suggest), engine-neutral: how the typed text splits into the
// words before the last one (the context) and the last word being typed (the prefix), which
// catalog words complete the prefix under the typo rule, how a completion's text is written and
// the order of the answer. Each engine finds the candidates in its own dictionary and counts them
// under the filters (search/suggestSearch.ts runs the steps). Pure.
import { foldText } from './folding.js';
import { typoBudget, typoDistance, typoForm } from './typos.js';

export const SUGGEST_TYPES = ['words', 'titles', 'funders'] as const;
export type SuggestTypes = (typeof SUGGEST_TYPES)[number];
/** A completion's kind, as the answer names it (singular). */
export type SuggestKind = 'word' | 'title' | 'funder';
export const KIND_OF_TYPE: Record<SuggestTypes, SuggestKind> = { words: 'word', titles: 'title', funders: 'funder' };

export const DEFAULT_SUGGEST_LIMIT = 5;
export const MAX_SUGGEST_LIMIT = 20;
export const MAX_SUGGEST_LENGTH = 100;

/** One completion: its text, its kind and how many grants hold it under the filters (and the context). */
export interface SuggestItem {
  text: string;
  type: SuggestKind;
  count: number;
}

/** The typed text read: everything before the last word as typed, and the last word folded and in lower case. */
export interface SuggestInput {
  /** The text before the last word, exactly as typed (the context: it narrows the grants as a search of it would). */
  before: string;
  /** The last word typed, folded (accents, ligatures) and in lower case: what completions start with. */
  prefix: string;
}

/** The last run of letters, marks and digits (holding a letter or digit), and what stands after it. */
const LAST_WORD = /([\p{L}\p{N}][\p{L}\p{M}\p{N}]*)[^\p{L}\p{M}\p{N}]*$/u;

/**
 * The context and the prefix of typed text: the last word is its last run of letters, marks and
 * digits (anything typed after it, spaces or punctuation, is left out); null when it holds no word.
 */
export function suggestInput(q: string): SuggestInput | null {
  const text = q.normalize('NFC');
  const found = LAST_WORD.exec(text);
  if (found === null) return null;
  const prefix = typoForm(foldText(found[1]));
  if (prefix === '') return null;
  return { before: text.slice(0, found.index), prefix };
}

/** How many typos a prefix may carry: the search's typo rule (typos=auto) applied to the prefix as typed so far. */
export const prefixBudget = (prefix: string): number => typoBudget(prefix);

/**
 * Whether `word` (a dictionary word: folded, lower case) completes `prefix`: it starts with it, or
 * (a prefix of 5 letters or more) it starts with the same letter and one of its beginnings is
 * within the typo rule of the prefix (1 typo from 5 letters, 2 from 9). The reference the engines'
 * dictionary walks are checked against.
 */
export function completes(prefix: string, word: string): boolean {
  if (word.startsWith(prefix)) return true;
  const budget = prefixBudget(prefix);
  if (budget === 0 || word.codePointAt(0) !== prefix.codePointAt(0)) return false;
  const points = [...word];
  const length = [...prefix].length;
  for (let cut = Math.max(1, length - budget); cut <= Math.min(points.length, length + budget); cut++) {
    if (typoDistance(prefix, points.slice(0, cut).join(''), budget) <= budget) return true;
  }
  return false;
}

/**
 * The text of a completion: a word completes the typed text (the context kept as typed); a title or funder is its whole
 * name.
 */
export const completionText = (input: SuggestInput, kind: SuggestKind, text: string): string =>
  kind === 'word' ? `${input.before}${text}` : text;

/** The answer's order: the most grants first, then by text (code unit order). */
export const bySuggestOrder = (a: SuggestItem, b: SuggestItem): number =>
  b.count - a.count || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);

/**
 * The most words counted in one batch: an engine's one request (Elasticsearch: one bucket each, far below
 * search.max_buckets).
 */
export const MAX_COUNT_BATCH = 4096;

/**
 * A word of a dictionary with how many grants of the whole catalog hold it: an upper bound of its count under any
 * filter.
 */
export interface CandidateWord {
  word: string;
  docs: number;
}

/**
 * The `limit` words with the most grants under the filters (ties by word), exactly, counting as
 * few as it can: the candidates are taken the most frequent first, in batches, and once the
 * `limit`-th best count is above every remaining candidate's catalog count (no filter can raise a
 * count), none of them can enter. Words with no grant are left out. `count` gives each word's
 * count under the filters.
 */
export async function topWords(
  candidates: readonly CandidateWord[],
  limit: number,
  count: (words: string[]) => Promise<number[]>,
  firstBatch = 32,
): Promise<{ word: string; count: number }[]> {
  // Batches double from firstBatch up to MAX_COUNT_BATCH (an engine counts each batch in one request).
  const ordered = [...candidates].sort((a, b) => b.docs - a.docs || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  const best: { word: string; count: number }[] = [];
  const order = (a: { word: string; count: number }, b: { word: string; count: number }) =>
    b.count - a.count || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);
  let at = 0;
  let batch = Math.max(firstBatch, limit);
  while (at < ordered.length) {
    if (best.length >= limit) {
      const last = best[limit - 1];
      const next = ordered[at];
      if (next.docs < last.count || (next.docs === last.count && next.word > last.word)) break;
    }
    const slice = ordered.slice(at, at + batch).map((c) => c.word);
    const counts = await count(slice);
    slice.forEach((word, i) => {
      if (counts[i] > 0) best.push({ word, count: counts[i] });
    });
    best.sort(order);
    best.length = Math.min(best.length, limit);
    at += slice.length;
    batch = Math.min(batch * 2, MAX_COUNT_BATCH);
  }
  return best;
}

/**
 * The words of a title or funder name as the dictionaries hold them: runs of letters, marks and digits, folded and in
 * lower case.
 */
export function nameWords(text: string): string[] {
  return typoForm(foldText(text.normalize('NFC')))
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((word) => word !== '');
}
