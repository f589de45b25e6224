// What of a GrantQuery SQLite itself evaluates: the FTS5 match expression of the search. Pure: no I/O.
import type { ParsedSearch, SearchClause, SearchTerm } from '../../../grants/searchSyntax.js';

/**
 * A term as one FTS5 string (double-quoted, quotes doubled): FTS5 tokenizes it into a phrase, so
 * a phrase's words must stand adjacent, in order, in one column; nothing a partner types is ever
 * query syntax.
 */
const ftsPhrase = (words: readonly string[]): string => `"${words.join(' ').replace(/"/g, '""')}"`;

/** A term as FTS5 matches it: its phrase, or with alternatives (grants/typos.ts) the OR of its phrase and theirs, its own first. */
const ftsString = (term: SearchTerm): string =>
  term.alternatives === undefined || term.alternatives.length === 0
    ? ftsPhrase(term.words)
    : `(${[term.words, ...term.alternatives.map((a) => a.words)].map(ftsPhrase).join(' OR ')})`;

/** The FTS5 expression of any of these terms (one typo level of grants/typos.ts typoPenaltyLevels). */
export const ftsAnyOf = (terms: readonly SearchTerm[]): string => terms.map(ftsString).join(' OR ');

/**
 * A clause: its terms juxtaposed (an implicit AND; an explicit AND when a term is a parenthesised
 * OR of alternatives, which FTS5 does not juxtapose), then each exclusion with NOT.
 */
function ftsClause(clause: SearchClause): string {
  const must = clause.must.map(ftsString).join(clause.must.some((term) => (term.alternatives?.length ?? 0) > 0) ? ' AND ' : ' ');
  return clause.not.length === 0 ? must : `(${must})${clause.not.map((term) => ` NOT ${ftsString(term)}`).join('')}`;
}

/**
 * The FTS5 match expression of a search (grants/searchSyntax.ts): its clauses ORed; null for a
 * search with no clause, which matches nothing. Plain words give their strings juxtaposed.
 */
export function ftsMatchExpression(search: ParsedSearch): string | null {
  const { clauses } = search;
  if (clauses.length === 0) return null;
  if (clauses.length === 1) return ftsClause(clauses[0]);
  return clauses.map((clause) => `(${ftsClause(clause)})`).join(' OR ');
}
