// "More like this" (GET /grants/:id/similar), the one method both engines share: a grant's most
// distinctive terms by tf-idf, the search of any of them, and each grant found scored by the terms
// it holds. Only match counts come from an engine (how many grants a term matches, which both
// engines agree on); the terms, the weights and the order are computed here, from the grants'
// own text, so both engines give the same grants in the same order. docs/architecture.md states
// the rule. Pure.
import { foldedText, foldedWords, frenchTermOfFolded, termInitials, wordsBeginningWith } from './french.js';
import type { Grant } from './schema.js';
import type { ParsedSearch } from './searchSyntax.js';

/**
 * The text fields a grant is compared by, each with its weight (the relevance weights: title above funder above
 * description).
 */
const SIMILARITY_FIELDS = [
  { name: 'title', weight: 3, text: (g: Grant): string => g.title },
  { name: 'funder', weight: 2, text: (g: Grant): string => g.funder },
  { name: 'description', weight: 1, text: (g: Grant): string => g.description ?? '' },
] as const;

/** Terms of the grant whose match counts are asked (the most frequent in it): bounds the engine work of one request. */
export const MAX_COUNTED_TERMS = 24;
/** Terms the similar grants are searched and scored by, at most. */
export const MAX_SIMILAR_TERMS = 12;
/**
 * The match counts of the chosen terms add up to at most this: it bounds the grants scored (every grant any term
 * matches).
 */
export const MAX_SCORED_GRANTS = 300;
/**
 * A term held by more than this share of the catalog (and by more than COMMON_FLOOR grants) says little about a grant:
 * never chosen.
 */
const MAX_TERM_SHARE = 0.1;
/** However small the catalog, a term held by this many grants or fewer is never too common. */
export const COMMON_FLOOR = 10;
/** A word shorter than this, or without a letter, is no term. */
const MIN_TERM_LENGTH = 3;

/**
 * A term of the grant: its key (the French light stem of the folded word, a term both engines
 * find a word by), the first word that gave it (what the engines are asked to find), its
 * field-weighted count in the grant and where it first appears.
 */
export interface SourceTerm {
  key: string;
  word: string;
  frequency: number;
  first: number;
}

/**
 * A chosen term: its key and word, how many grants of the catalog it matches, and its weight in the grant (its
 * frequency there times its idf).
 */
export interface SimilarTerm {
  key: string;
  word: string;
  docs: number;
  weight: number;
}

const LETTER = /\p{L}/u;
const isTermWord = (word: string): boolean => word.length >= MIN_TERM_LENGTH && LETTER.test(word);

/** Code point order (what ties break by: never the locale's). */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The grant's terms worth counting: every word of its title, funder and description (folded, lower
 * case, elided articles dropped; at least MIN_TERM_LENGTH long with a letter) by key, counted with
 * its field's weight; the MAX_COUNTED_TERMS most frequent, the earliest first on ties.
 */
export function sourceTerms(grant: Grant): SourceTerm[] {
  const terms = new Map<string, SourceTerm>();
  let position = 0;
  for (const field of SIMILARITY_FIELDS) {
    for (const word of foldedWords(field.text(grant))) {
      position++;
      if (!isTermWord(word)) continue;
      const key = frenchTermOfFolded(word);
      const known = terms.get(key);
      if (known === undefined) terms.set(key, { key, word, frequency: field.weight, first: position });
      else known.frequency += field.weight;
    }
  }
  return [...terms.values()].sort((a, b) => b.frequency - a.frequency || a.first - b.first).slice(0, MAX_COUNTED_TERMS);
}

/** The most grants a term may match and still be chosen, in a catalog of `size` grants. */
export const mostDocs = (size: number): number => Math.max(MAX_TERM_SHARE * size, COMMON_FLOOR);

/** The inverse document frequency of a term matching `docs` of `size` grants (bm25's, never negative). */
export const idf = (docs: number, size: number): number => Math.log(1 + (size - docs + 0.5) / (docs + 0.5));

/**
 * The terms to search and score by, from the grant's terms and how many grants of the catalog
 * (`size` in all) each matches (`docs`, in the order of `terms`): each weighted by its frequency
 * in the grant times its idf, the heaviest first (ties by key); a term matching no other grant or
 * more than mostDocs(size) grants is left out (so a count above that need not be exact), and so is a term whose count
 * would take the counts' sum past MAX_SCORED_GRANTS; at most MAX_SIMILAR_TERMS.
 */
export function chooseTerms(terms: readonly SourceTerm[], docs: readonly number[], size: number): SimilarTerm[] {
  const weighed = terms
    .map((term, i) => ({ term, docs: docs[i], idf: idf(docs[i], size) }))
    .filter((t) => t.docs >= 2 && t.docs <= mostDocs(size))
    .map((t) => ({ ...t, weight: t.term.frequency * t.idf }))
    .sort((a, b) => b.weight - a.weight || byCodePoint(a.term.key, b.term.key));
  const chosen: SimilarTerm[] = [];
  let scored = 0;
  for (const t of weighed) {
    if (chosen.length === MAX_SIMILAR_TERMS) break;
    if (scored + t.docs > MAX_SCORED_GRANTS) continue;
    scored += t.docs;
    chosen.push({ key: t.term.key, word: t.term.word, docs: t.docs, weight: t.weight });
  }
  return chosen;
}

/** The search of a single word: what a term's match count is taken from. */
export const wordSearch = (word: string): ParsedSearch => ({ clauses: [{ must: [{ words: [word] }], not: [] }] });

/** The search of any of the terms: every grant that may hold one (a grant holding none scores nothing). */
export const anyTermSearch = (terms: readonly SimilarTerm[]): ParsedSearch => ({
  clauses: terms.map((term) => ({ must: [{ words: [term.word] }], not: [] })),
});

/**
 * The chosen terms as similarityScore looks a grant's words up: each term's place by key, and which words may hold one.
 */
export interface TermIndex {
  places: ReadonlyMap<string, number>;
  /** The words of a folded text that may have one of the terms (a word beginning otherwise has none: termInitials). */
  candidates: (folded: string) => string[];
}

export const termIndex = (terms: readonly SimilarTerm[]): TermIndex => ({
  places: new Map(terms.map((term, i) => [term.key, i])),
  candidates: wordsBeginningWith(termInitials(terms.map((term) => term.key))),
});

/**
 * How like the grant `other` is, by the chosen terms: for each term it holds (a word of its title,
 * funder or description with the term's key), the term's weight in the grant times the weight of
 * the heaviest of those fields holding it; 0 when it holds none. `index` is termIndex(terms).
 */
export function similarityScore(
  other: Grant,
  terms: readonly SimilarTerm[],
  index: TermIndex = termIndex(terms),
): number {
  const weights = new Array<number>(terms.length).fill(0);
  for (const field of SIMILARITY_FIELDS) {
    for (const word of index.candidates(foldedText(field.text(other)))) {
      const i = index.places.get(frenchTermOfFolded(word));
      if (i !== undefined && weights[i] < field.weight && isTermWord(word)) weights[i] = field.weight;
    }
  }
  let score = 0;
  terms.forEach((term, i) => {
    score += term.weight * weights[i];
  });
  return score;
}

/** A grant found and its score. */
interface ScoredGrant<T> {
  id: string;
  score: number;
  item: T;
}

/**
 * The grants like the one of `sourceId`, best first: each found grant but that one, scored by
 * similarityScore, those scoring nothing left out, ties by id (code point order).
 */
export function rankSimilar<T>(
  sourceId: string,
  found: readonly { grant: Grant; item: T }[],
  terms: readonly SimilarTerm[],
): ScoredGrant<T>[] {
  const index = termIndex(terms);
  return found
    .filter(({ grant }) => grant.id !== sourceId)
    .map(({ grant, item }) => ({ id: grant.id, score: similarityScore(grant, terms, index), item }))
    .filter((scored) => scored.score > 0)
    .sort((a, b) => b.score - a.score || byCodePoint(a.id, b.id));
}
