// What a query's search words give the rest of the query: the grants they match, as positions in
// the columns, and for a relevance sort their bm25 scores. Pure: types and one rule.
import type { GrantQuery } from '../../../grants/query.js';

/** Text hits as positions in the columns, and bm25 scores (lower is better). */
export interface ScoredHits {
  positions: Int32Array;
  scores: Float64Array;
  /**
   * When known, every hit's index by (score, position), best first: a page is then the first hits
   * along it that meet the filters, with no heap and no sort (a word's ranking, kept per build).
   */
  order?: Int32Array;
}

/**
 * The grants the search words match and, for relevance, the scores of those among them that may
 * be on the page (at least every hit that meets all the filters).
 */
export interface TextHits {
  positions: Int32Array;
  scored: ScoredHits | null;
}

/** The scored hits a page is ordered by: a relevance sort with words; null when the page follows a sort order. */
export const rankedBy = (query: GrantQuery, text: TextHits | null): ScoredHits | null =>
  query.sort.key === 'relevance' && text !== null ? text.scored : null;
