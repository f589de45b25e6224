// What of a GrantQuery SQLite itself evaluates: the FTS5 match expression of the search. Pure: no I/O.
import type { ParsedSearch, SearchClause, SearchTerm } from '../../../grants/searchSyntax.js';
import { ENGLISH_COLUMNS, FRENCH_COLUMNS, frenchSearchTerm } from '../storage/textColumns.js';

/**
 * Text as one FTS5 string (double-quoted, quotes doubled): FTS5 tokenizes it into a phrase, so
 * a phrase's words must stand adjacent, in order, in one column; nothing a partner types is ever
 * query syntax.
 */
const ftsString = (text: string): string => `"${text.replace(/"/g, '""')}"`;

const ENGLISH = `{${ENGLISH_COLUMNS.join(' ')}}`;
const FRENCH = `{${FRENCH_COLUMNS.join(' ')}}`;

/**
 * Words' FTS5 phrases, one per analysis: as written in the English columns (which the tokenizer
 * stems), then their French terms in the French columns (storage/textColumns.ts). bm25 numbers
 * the phrases in this order (query/bm25.ts adds them in the same).
 */
export const ftsPhrases = (words: readonly string[]): [string, string] => [
  `${ENGLISH} : ${ftsString(words.join(' '))}`,
  `${FRENCH} : ${ftsString(words.map(frenchSearchTerm).join(' '))}`,
];

/** Words in either analysis (ftsPhrases ORed). */
const ftsAnalyses = (words: readonly string[]): string => ftsPhrases(words).join(' OR ');

/**
 * A term as FTS5 finds it: its words in either analysis, or with alternatives (grants/typos.ts)
 * its words or any alternative's, each in either analysis, its own first.
 */
const ftsTerm = (term: SearchTerm): string =>
  `(${[ftsOwnWords(term), ...(term.alternatives ?? []).map((a) => ftsAnalyses(a.words))].join(' OR ')})`;

/** A term's own words: a phrase, or when a synonym joined them (`loose`) each word in either analysis, all of them. */
const ftsOwnWords = (term: SearchTerm): string =>
  term.loose === true
    ? `(${term.words.map((word) => `(${ftsAnalyses([word])})`).join(' AND ')})`
    : ftsAnalyses(term.words);

/** The FTS5 expression of any of these terms (one typo level of grants/typos.ts typoPenaltyLevels). */
export const ftsAnyOf = (terms: readonly SearchTerm[]): string => terms.map(ftsTerm).join(' OR ');

/** A clause: its terms joined by AND, then each exclusion with NOT. */
function ftsClause(clause: SearchClause): string {
  const must = clause.must.map(ftsTerm).join(' AND ');
  return clause.not.length === 0 ? must : `(${must})${clause.not.map((term) => ` NOT ${ftsTerm(term)}`).join('')}`;
}

/**
 * The FTS5 match expression of a search (grants/searchSyntax.ts): its clauses ORed; null for a
 * search with no clause, which matches nothing. Plain words give their terms joined by AND.
 */
export function ftsMatchExpression(search: ParsedSearch): string | null {
  const { clauses } = search;
  if (clauses.length === 0) return null;
  if (clauses.length === 1) return ftsClause(clauses[0]);
  return clauses.map((clause) => `(${ftsClause(clause)})`).join(' OR ');
}
