// What of a GrantQuery SQLite itself evaluates: the FTS5 match expression of the search words and
// the bm25 weights; and the bit masks the catalog stores lists as. Pure: no I/O.

/** Relevance weights of title, funder and description (FTS5 column order). */
export const BM25_WEIGHTS = [3.0, 2.0, 1.0] as const;

/** Bit set of a list of enum values over the enum's order. */
export function bitsOf<T extends string>(values: readonly T[], all: readonly T[]): number {
  let bits = 0;
  for (const value of values) bits |= 1 << all.indexOf(value);
  return bits;
}

/**
 * Each word becomes an FTS5 string (double-quoted, quotes doubled), so nothing a partner types
 * is ever query syntax; juxtaposed strings are an implicit AND.
 */
export function ftsMatchExpression(words: string[]): string {
  return words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' ');
}
