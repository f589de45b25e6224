// GrantQuery → SQL and parameters for the embedded catalog. Pure: no I/O, unit-tested on its output.
import type { GrantQuery } from '../../grants/query.js';
import { PROVINCES, type Province } from '../../grants/schema.js';

export interface SqlStatement {
  sql: string;
  params: (string | number)[];
}

export interface SqliteSearch {
  /**
   * The page. Filter-only: walks the deadline-order index, which holds the filter columns, until
   * the page is full (cheap when matches are dense). Text: ranks the hits on rowid, score and id
   * only, then reads the documents of the page alone.
   */
  page: SqlStatement;
  /**
   * Filter-only: the same page found through the filter index and sorted (cheap when matches are
   * few; see preferSparsePage). Same rows, same order.
   */
  sparsePage?: SqlStatement;
  count: SqlStatement;
}

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

/**
 * Deadline order with null deadlines last, then id. `coalesce(deadline, '~')` is the same order
 * (every stored deadline is an ISO string starting with a digit, "+" or "-", all below "~"),
 * written so that no index matches it and the planner sorts what the filter index found.
 */
const DEADLINE_ORDER = (t: string) => `${t}.deadline IS NULL, ${t}.deadline, ${t}.id`;
const SPARSE_ORDER = (t: string) => `coalesce(${t}.deadline, '~'), ${t}.id`;

/**
 * Whether the filter index and a sort beat walking the order index: walking visits about
 * (offset + size) × catalog / total entries, the sort handles `total` rows.
 */
export function preferSparsePage(total: number, catalogSize: number, offset: number, size: number): boolean {
  return total > 0 && total * 4 * total < (offset + size) * catalogSize;
}

export function translateToSqlite(query: GrantQuery): SqliteSearch {
  const where: string[] = [];
  const params: (string | number)[] = [];
  // `unary` is "+" where an index on the column must not be used (the order-walking page).
  const conditions = (unary: '' | '+') => {
    const terms: string[] = [];
    const inList = (column: string, values: string[]) => {
      if (values.length > 0) terms.push(`${unary}g.${column} IN (${values.map(() => '?').join(', ')})`);
    };
    inList('funder_type', query.funderTypes);
    inList('funding_type', query.fundingTypes);
    if (query.provinces.length > 0) terms.push('(g.provinces & ?) != 0');
    if (query.amountMin !== null || query.amountMax !== null) {
      // Ranges overlap; a null bound of the grant is open on its side; no amounts, no match.
      terms.push('(g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL)');
      if (query.amountMin !== null) terms.push('(g.amount_max IS NULL OR g.amount_max >= ?)');
      if (query.amountMax !== null) terms.push('(g.amount_min IS NULL OR g.amount_min <= ?)');
    }
    return terms;
  };
  where.push(...conditions(''));
  params.push(...query.funderTypes, ...query.fundingTypes);
  if (query.provinces.length > 0) params.push(bitsOf<Province>(query.provinces, PROVINCES));
  if (query.amountMin !== null) params.push(query.amountMin);
  if (query.amountMax !== null) params.push(query.amountMax);

  if (query.words.length === 0) {
    const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const walked = conditions('+');
    return {
      page: {
        sql: `SELECT g.doc FROM grants g${walked.length > 0 ? ` WHERE ${walked.join(' AND ')}` : ''} ORDER BY ${DEADLINE_ORDER('g')} LIMIT ? OFFSET ?`,
        params: [...params, query.size, query.offset],
      },
      sparsePage: {
        sql:
          `SELECT g.doc FROM (SELECT g.rowid AS hit, g.deadline AS deadline, g.id AS id FROM grants g${filter} ORDER BY ${SPARSE_ORDER('g')} LIMIT ? OFFSET ?) AS found` +
          ` JOIN grants g ON g.rowid = found.hit ORDER BY ${SPARSE_ORDER('found')}`,
        params: [...params, query.size, query.offset],
      },
      count: { sql: `SELECT count(*) AS total FROM grants g${filter}`, params },
    };
  }

  const text = ftsMatchExpression(query.words);
  const filter = ['grants_text MATCH ?', ...where].join(' AND ');
  const from = 'grants_text JOIN grants g ON g.rowid = grants_text.rowid';
  const weights = BM25_WEIGHTS.join(', ');
  return {
    page: {
      // Ranking by (score, id) without reading every hit's id: the scores of all hits are kept
      // (rowid, score), the (offset + size)-th best score is the cut, and only hits scoring at
      // least as well as the cut (the page's rows, those before it, and ties) are joined for their
      // id and sorted. Exactly the rows and order of ORDER BY bm25, id; only the page's documents
      // are read.
      sql:
        `WITH scored AS MATERIALIZED (SELECT grants_text.rowid AS hit, bm25(grants_text, ${weights}) AS score FROM ${where.length === 0 ? 'grants_text' : from} WHERE ${filter}),` +
        ` ranked AS (SELECT scored.hit AS hit, scored.score AS score, k.id AS id FROM scored JOIN grants k ON k.rowid = scored.hit` +
        ` WHERE scored.score <= coalesce((SELECT score FROM scored ORDER BY score LIMIT 1 OFFSET ?), 1e999) ORDER BY scored.score, k.id LIMIT ? OFFSET ?)` +
        ` SELECT g.doc FROM ranked JOIN grants g ON g.rowid = ranked.hit ORDER BY ranked.score, ranked.id`,
      params: [text, ...params, query.offset + query.size - 1, query.size, query.offset],
    },
    // Every FTS row has its grants row (written and deleted together): without filters, no join.
    count:
      where.length === 0
        ? { sql: 'SELECT count(*) AS total FROM grants_text WHERE grants_text MATCH ?', params: [text] }
        : { sql: `SELECT count(*) AS total FROM ${from} WHERE ${filter}`, params: [text, ...params] },
  };
}
