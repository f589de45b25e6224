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
/** The kind of each type. */
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
 * The most candidates of a kind counted in one batch: an engine's one request (Elasticsearch: one bucket each, far
 * below search.max_buckets).
 */
export const MAX_COUNT_BATCH = 4096;

/**
 * A completion to count: a word of the dictionary, or a title or funder name holding one, with how
 * many grants of the whole catalog hold it (an upper bound of its count under any condition) and
 * the engine's own reference to it (a name's rank; -1 when the text is enough).
 */
export interface Candidate {
  text: string;
  docs: number;
  id: number;
}

/** A completion counted under the request's conditions. */
export interface Counted {
  text: string;
  count: number;
}

const byCount = (a: Counted, b: Counted): number =>
  b.count - a.count || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);

/**
 * The best `limit` of completions counted (the most grants first, ties by text), those counting no
 * grant left out: one pass keeping the best so far in order (a name walk counts thousands of
 * names, most of them tied at one grant, and only the first few are kept).
 */
export function bestCounted(counted: readonly Counted[], limit: number): Counted[] {
  const best: Counted[] = [];
  if (limit <= 0) return best;
  for (const item of counted) {
    if (item.count <= 0) continue;
    if (best.length === limit && byCount(item, best[limit - 1]) >= 0) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && byCount(item, best[at - 1]) < 0) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = item;
  }
  return best;
}

/** How many candidates of a kind topCounted counts in its first round. */
export const firstBatchSize = (limit: number, firstBatch = 32): number => Math.max(firstBatch, limit);

/**
 * Per kind, the `limit` candidates with the most grants under the conditions (ties by text),
 * exactly, counting as few as it can. Each kind's candidates come the most frequent in the catalog
 * first (ties by text), and are taken in batches: once a kind's `limit`-th best count is above
 * the next candidate's catalog count (no condition can raise a count) none of the rest can enter.
 * Each round asks `count` once for every kind's batch (an engine's one request); batches double
 * from `firstBatch` up to MAX_COUNT_BATCH. Candidates counting no grant are left out. A kind still
 * open when its next batch would pass `lastBatch` is left out of the answer (the caller finds its
 * best another way). With `firstCounts`, the first round's counts are those (a caller that counted
 * each kind's first batch, its first firstBatchSize candidates, in a request of its own) and `count`
 * is asked from the second round.
 */
export async function topCounted<K extends string>(
  streams: Record<K, Iterator<Candidate>>,
  limit: number,
  count: (batches: Record<K, Candidate[]>) => Promise<Record<K, number[]>>,
  firstBatch = 32,
  lastBatch = MAX_COUNT_BATCH,
  firstCounts?: Record<K, number[]>,
): Promise<Partial<Record<K, Counted[]>>> {
  const kinds = Object.keys(streams) as K[];
  const state = kinds.map((kind) => {
    const first = streams[kind].next();
    return { kind, best: [] as Counted[], next: first.done === true ? null : first.value };
  });
  let batch = firstBatchSize(limit, firstBatch);
  let counted = firstCounts;
  const unfinished = new Set<K>();
  for (;;) {
    const open = state.filter(({ best, next }) => {
      if (next === null) return false;
      if (best.length < limit) return true;
      const last = best[limit - 1];
      return next.docs > last.count || (next.docs === last.count && next.text < last.text);
    });
    if (open.length === 0) break;
    if (batch > lastBatch) {
      for (const entry of open) unfinished.add(entry.kind);
      break;
    }
    const batches = {} as Record<K, Candidate[]>;
    for (const kind of kinds) batches[kind] = [];
    for (const entry of open) {
      const taken = batches[entry.kind];
      while (entry.next !== null && taken.length < batch) {
        taken.push(entry.next);
        const following = streams[entry.kind].next();
        entry.next = following.done === true ? null : following.value;
      }
    }
    const counts = counted ?? (await count(batches));
    counted = undefined;
    for (const entry of open) {
      const asked = batches[entry.kind];
      const counted = counts[entry.kind];
      asked.forEach((candidate, i) => {
        if (counted[i] > 0) entry.best.push({ text: candidate.text, count: counted[i] });
      });
      entry.best.sort(byCount);
      entry.best.length = Math.min(entry.best.length, limit);
    }
    batch = Math.min(batch * 2, MAX_COUNT_BATCH);
  }
  return Object.fromEntries(
    state.filter(({ kind }) => !unfinished.has(kind)).map(({ kind, best }) => [kind, best]),
  ) as Partial<Record<K, Counted[]>>;
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
