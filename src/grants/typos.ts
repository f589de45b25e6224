// Typo tolerance and the "did you mean" suggestion, engine-neutral: which words may carry typos
// and how many, the distance that counts them, how a word's neighbours in the catalog become the
// alternatives its search term carries, and how a suggestion is chosen. Each engine finds the
// neighbours in its own dictionary of folded, unstemmed catalog words (the embedded engine by a
// bounded walk of its sorted dictionary, Elasticsearch by its term suggester) and hands them here,
// so both derive the same search from the same neighbours. Pure.
import type { ParsedSearch, SearchTerm } from './searchSyntax.js';

export const TYPO_MODES = ['off', 'auto'] as const;
export type TypoMode = (typeof TYPO_MODES)[number];

/** Alternatives a word carries at most: its closest neighbours, the most frequent first among equally close. */
export const MAX_TYPO_VARIANTS = 50;

/**
 * Words of one search that may carry typos at most (the first ones, as Meilisearch bounds a query's words): a long
 * query's cost stays bounded.
 */
export const MAX_TYPO_WORDS = 10;

/**
 * Alternatives one search carries at most, its words together: a query of many words with many
 * neighbours each shares them (typoAllowances), so what the search costs stays bounded.
 */
export const MAX_TYPO_VARIANTS_PER_SEARCH = 200;

/** A search that finds fewer grants than this gets a suggestion when a respelling finds more. */
export const SUGGESTION_BELOW = 3;

/** A catalog word near a search word: how many typos apart, and how many grants hold it. */
export interface Neighbour {
  word: string;
  typos: number;
  docs: number;
}

/** Characters counted by the typo rule: code points, so a letter outside the BMP counts once. */
const lengthOf = (word: string): number => [...word].length;

/**
 * How many typos a search word may carry (`typos=auto`): none under 5 letters, 1 from 5 to 8,
 * 2 from 9; none for a word holding a digit (numbers, codes). `word` is folded (searchWords).
 */
export function typoBudget(word: string): number {
  if (/\p{N}/u.test(word)) return 0;
  const length = lengthOf(word);
  return length < 5 ? 0 : length < 9 ? 1 : 2;
}

/** A word as the typo rule reads it: folded (searchWords did accents and ligatures) and lower case. */
export const typoForm = (word: string): string => word.toLowerCase();

/**
 * The optimal-string-alignment distance of a and b (Damerau–Levenshtein where an adjacent
 * transposition is one edit and no substring is edited twice), in code points; any value above
 * `max` is returned as max + 1.
 */
export function typoDistance(a: string, b: string, max = Number.MAX_SAFE_INTEGER): number {
  const s = codePoints(a);
  const t = codePoints(b);
  if (Math.abs(s.length - t.length) > max) return max + 1;
  const width = t.length + 1;
  let before = new Int32Array(width);
  let previous = new Int32Array(width);
  let row = new Int32Array(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  for (let i = 1; i <= s.length; i++) {
    row[0] = i;
    let best = i;
    for (let j = 1; j < width; j++) {
      let d = previous[j] + 1;
      if (row[j - 1] + 1 < d) d = row[j - 1] + 1;
      const diagonal = previous[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1);
      if (diagonal < d) d = diagonal;
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1] && before[j - 2] + 1 < d)
        d = before[j - 2] + 1;
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [before, previous, row] = [previous, row, before];
  }
  return Math.min(previous[t.length], max + 1);
}

/** A word's code points, as numbers. */
function codePoints(word: string): Int32Array {
  const points = new Int32Array(word.length);
  let n = 0;
  for (const c of word) points[n++] = c.codePointAt(0)!;
  return points.subarray(0, n);
}

/**
 * Whether `candidate` is within the typo rule of `word` (both typoForm): same first letter, at most typoBudget(word)
 * typos.
 */
export function typosWithin(word: string, candidate: string): number | null {
  const budget = typoBudget(word);
  if (budget === 0 || candidate === word || candidate.codePointAt(0) !== word.codePointAt(0)) return null;
  const typos = typoDistance(word, candidate, budget);
  return typos <= budget ? typos : null;
}

/**
 * Closest first, then the most frequent, then in code point order: the order alternatives and suggestions are chosen
 * in.
 */
const byCloseness = (a: Neighbour, b: Neighbour): number =>
  a.typos - b.typos || b.docs - a.docs || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);

/**
 * The neighbours a word keeps from those an engine found (any order, perhaps more than the rule
 * allows): those within the typo rule, closest first, at most MAX_TYPO_VARIANTS.
 */
export function keptNeighbours(word: string, found: readonly { word: string; docs: number }[]): Neighbour[] {
  const kept: Neighbour[] = [];
  const seen = new Set<string>();
  for (const candidate of found) {
    if (seen.has(candidate.word)) continue;
    seen.add(candidate.word);
    const typos = typosWithin(word, candidate.word);
    if (typos !== null) kept.push({ word: candidate.word, typos, docs: candidate.docs });
  }
  return kept.sort(byCloseness).slice(0, MAX_TYPO_VARIANTS);
}

/** The single-word terms of a search's clauses that may carry typos (never a phrase's words or an exclusion). */
const typoTerms = (search: ParsedSearch): SearchTerm[] =>
  search.clauses.flatMap((clause) => clause.must.filter(mayCarryTypos));

/** Whether a term may carry typos: one word, not quoted, long enough and without digits (excluded terms never do). */
const mayCarryTypos = (term: SearchTerm): boolean =>
  term.words.length === 1 && term.exact !== true && typoBudget(term.words[0]) > 0;

/**
 * The distinct words (typoForm) of a search that may carry typos, the first MAX_TYPO_WORDS: what an engine looks up
 * neighbours for.
 */
export function typoWords(search: ParsedSearch): string[] {
  return [...new Set(typoTerms(search).map((term) => typoForm(term.words[0])))].slice(0, MAX_TYPO_WORDS);
}

/**
 * How many of its neighbours (closest first) each word of a search keeps, given how many it has:
 * all of them while the search's total is within `total`; past it, a word with fewer than an
 * equal share keeps all of its own and what it leaves is shared among the others, equally
 * (the remainder of a division going to the words with more neighbours, the later on ties).
 */
export function typoAllowances(counts: readonly number[], total = MAX_TYPO_VARIANTS_PER_SEARCH): number[] {
  const allowances = counts.map(() => 0);
  const order = counts.map((_, i) => i).sort((a, b) => counts[a] - counts[b] || a - b);
  let left = total;
  order.forEach((i, k) => {
    allowances[i] = Math.min(counts[i], Math.floor(left / (order.length - k)));
    left -= allowances[i];
  });
  return allowances;
}

/**
 * The search with each word that may carry typos given its alternatives: its neighbours, closest
 * first, as many as typoAllowances gives it (only the first MAX_TYPO_WORDS words get any). The
 * engines find a term by its words or any alternative, and rank by the typos needed (see
 * typoPenaltyLevels). Terms without neighbours are left as they are.
 */
export function withTypoAlternatives(
  search: ParsedSearch,
  neighbours: ReadonlyMap<string, readonly Neighbour[]>,
): ParsedSearch {
  const words = typoWords(search);
  const allowances = typoAllowances(words.map((word) => neighbours.get(word)?.length ?? 0));
  const kept = new Map(words.map((word, i) => [word, (neighbours.get(word) ?? []).slice(0, allowances[i])]));
  const derive = (term: SearchTerm): SearchTerm => {
    if (!mayCarryTypos(term)) return term;
    const found = kept.get(typoForm(term.words[0])) ?? [];
    // Alternatives with no typo (synonyms, grants/synonyms.ts) stay, before the neighbours; typo ones derived before
    // are replaced.
    const untyped = (term.alternatives ?? []).filter((a) => a.typos === 0);
    return found.length === 0
      ? term
      : { ...term, alternatives: [...untyped, ...found.map((n) => ({ words: [n.word], typos: n.typos }))] };
  };
  return { clauses: search.clauses.map((clause) => ({ must: clause.must.map(derive), not: clause.not })) };
}

/** Whether any term of the search carries alternatives. */
export const hasAlternatives = (search: ParsedSearch | null): boolean =>
  search !== null && search.clauses.some((clause) => clause.must.some((term) => (term.alternatives?.length ?? 0) > 0));

/**
 * The typo ranking of a search (the engine architecture docs state the rule): for each term with
 * alternatives, one level per typo count below its largest alternative's; a grant scores a level
 * when it holds the term with at most that many typos. A grant's typos are the levels it misses:
 * fewer typos rank first, the text score orders within. Each level is the term's words and the
 * alternatives of at most `typos` typos.
 */
export function typoPenaltyLevels(search: ParsedSearch): { typos: number; terms: SearchTerm[] }[] {
  const levels: { typos: number; terms: SearchTerm[] }[] = [];
  for (const clause of search.clauses) {
    for (const term of clause.must) {
      const alternatives = term.alternatives ?? [];
      if (alternatives.length === 0) continue;
      const most = Math.max(...alternatives.map((a) => a.typos));
      for (let typos = 0; typos < most; typos++) {
        levels.push({
          typos,
          terms: [
            { words: term.words },
            ...alternatives.filter((a) => a.typos <= typos).map((a) => ({ words: a.words })),
          ],
        });
      }
    }
  }
  return levels;
}

/**
 * The respelled search of a "did you mean": each word that may carry typos and that fewer than
 * SUGGESTION_BELOW grants hold, replaced by its closest neighbour held by more grants than it
 * (most frequent on ties); null when no word is replaced. `docs` gives how many grants hold a word.
 */
export function respelledSearch(
  search: ParsedSearch,
  neighbours: ReadonlyMap<string, readonly Neighbour[]>,
  docs: ReadonlyMap<string, number>,
): ParsedSearch | null {
  let replaced = false;
  const respell = (term: SearchTerm): SearchTerm => {
    if (!mayCarryTypos(term)) return term;
    const word = typoForm(term.words[0]);
    const held = docs.get(word) ?? 0;
    if (held >= SUGGESTION_BELOW) return term;
    const best = [...(neighbours.get(word) ?? [])].sort(byCloseness)[0];
    if (best === undefined || best.docs <= held) return term;
    replaced = true;
    return { words: [best.word] };
  };
  const respelled = { clauses: search.clauses.map((clause) => ({ must: clause.must.map(respell), not: clause.not })) };
  return replaced ? respelled : null;
}

/**
 * Search text that parses (searchSyntax.ts) back into `search`: terms space-separated, phrases quoted, exclusions with
 * a minus, clauses joined by OR.
 */
export function searchText(search: ParsedSearch): string {
  const termText = (term: SearchTerm) =>
    (term.words.length === 1 && term.exact !== true) || term.loose === true
      ? term.words.join(' ')
      : `"${term.words.join(' ')}"`;
  return search.clauses
    .map((clause) => [...clause.must.map(termText), ...clause.not.map((term) => `-${termText(term)}`)].join(' '))
    .join(' OR ');
}

/** A "did you mean": the respelled search text and how many grants it finds. */
export interface Suggestion {
  search: string;
  total: number;
}
