// Relaxed matching (`matching=last|frequency`, Meilisearch's matching strategies), engine-neutral:
// which terms of a search may be given up, in which order, and the steps from every term down to
// one. Each engine counts how many grants each term matches (for `frequency`), runs the most
// relaxed step as the match, and ranks by the steps a grant reaches (more kept words first), then
// by the text score of every term it holds. The engine architecture docs state the ranking rule. Pure.
import type { ParsedSearch, SearchClause, SearchTerm } from './searchSyntax.js';

export const MATCHING_MODES = ['all', 'last', 'frequency'] as const;
export type MatchingMode = (typeof MATCHING_MODES)[number];

/**
 * Steps of relaxation at most (levels of the ranking): a clause with more terms that may be
 * given up gives up the extra ones together in the first step, so a long query's cost stays bounded.
 */
export const MAX_RELAXATION_STEPS = 9;

/**
 * Whether a term may be given up: a word as typed, or the words a synonym joined (with their
 * alternatives); never a quoted word or phrase. Exclusions are never given up either.
 */
const mayGiveUp = (term: SearchTerm): boolean =>
  term.exact !== true && (term.words.length === 1 || (term.alternatives?.length ?? 0) > 0);

/** The terms that may be given up, clause by clause and in order: what an engine counts for `frequency`. */
export function relaxableTerms(search: ParsedSearch): SearchTerm[][] {
  return search.clauses.map((clause) => clause.must.filter(mayGiveUp));
}

/** How an engine runs a relaxed search. */
export interface RelaxationPlan {
  /** The most relaxed step: what a grant must match (its matches are every step's). */
  search: ParsedSearch;
  /** The steps before it, from every term kept: each one a grant reaches ranks it one level higher. */
  levels: ParsedSearch[];
  /**
   * The terms the most relaxed step gave up (each once): a grant holding one adds its score as a search of that term
   * alone.
   */
  givenUp: SearchTerm[];
}

/**
 * The order a clause gives up its terms (indices into `must`): `last` from the end; `frequency`
 * the term matching the most grants first (`counts`, by term of relaxableTerms), a term matching
 * none before any, the later first on ties. The term it ends with is not in the list: one is
 * always kept.
 */
function dropOrder(
  clause: SearchClause,
  mode: Exclude<MatchingMode, 'all'>,
  counts: readonly number[] | null,
): number[] {
  const candidates: { index: number; count: number }[] = [];
  clause.must.forEach((term, index) => {
    if (mayGiveUp(term)) candidates.push({ index, count: counts?.[candidates.length] ?? 0 });
  });
  // A term no grant holds empties every step that keeps it: `frequency` gives it up first.
  const rank = (c: { count: number }) => (c.count === 0 ? Number.POSITIVE_INFINITY : c.count);
  const order =
    mode === 'last' || counts === null
      ? [...candidates].reverse()
      : [...candidates].sort((a, b) => rank(b) - rank(a) || b.index - a.index);
  return order.slice(0, Math.max(0, order.length - 1)).map((c) => c.index);
}

/**
 * The plan of a relaxed search; null when nothing is given up (`all`, or no clause with two terms
 * that may be). `counts` holds, per clause of relaxableTerms, how many grants each term matches
 * alone (the catalog's, no filter); it is needed for `frequency` only.
 */
export function relaxationPlan(
  search: ParsedSearch,
  mode: MatchingMode,
  counts: readonly (readonly number[])[] | null = null,
): RelaxationPlan | null {
  if (mode === 'all') return null;
  const orders = search.clauses.map((clause, c) => dropOrder(clause, mode, counts?.[c] ?? null));
  const steps = Math.min(MAX_RELAXATION_STEPS, Math.max(0, ...orders.map((order) => order.length)));
  if (steps === 0) return null;
  /** The clause's terms given up by step `step`: the extra ones beyond MAX_RELAXATION_STEPS go in the first. */
  const droppedAt = (order: readonly number[], step: number): number[] => {
    if (step === 0) return [];
    const extra = Math.max(0, order.length - MAX_RELAXATION_STEPS);
    return order.slice(0, Math.min(order.length, step + extra));
  };
  const stepSearch = (step: number): ParsedSearch => ({
    clauses: search.clauses.map((clause, c) => {
      const dropped = new Set(droppedAt(orders[c], step));
      return { must: clause.must.filter((_, i) => !dropped.has(i)), not: clause.not };
    }),
  });
  const givenUp: SearchTerm[] = [];
  const seen = new Set<string>();
  search.clauses.forEach((clause, c) => {
    for (const i of droppedAt(orders[c], steps)) {
      const key = JSON.stringify(clause.must[i]);
      if (!seen.has(key)) givenUp.push(clause.must[i]);
      seen.add(key);
    }
  });
  return { search: stepSearch(steps), levels: Array.from({ length: steps }, (_, step) => stepSearch(step)), givenUp };
}

/** A search of one term alone: what a given-up term scores as, and what `frequency` counts. */
export const termSearch = (term: SearchTerm): ParsedSearch => ({ clauses: [{ must: [term], not: [] }] });
