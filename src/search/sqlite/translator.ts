// GrantQuery → SQL and parameters for the embedded catalog. Pure: no I/O, unit-tested on its output.
import type { GrantQuery } from '../../grants/query.js';
import { PROVINCES, type Province } from '../../grants/schema.js';

export interface SqlStatement {
  sql: string;
  params: (string | number)[];
}

export interface SqliteSearch {
  page: SqlStatement;
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

export function translateToSqlite(query: GrantQuery): SqliteSearch {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const inList = (column: string, values: string[]) => {
    if (values.length === 0) return;
    where.push(`g.${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  inList('funder_type', query.funderTypes);
  inList('funding_type', query.fundingTypes);
  if (query.provinces.length > 0) {
    where.push('(g.provinces & ?) != 0');
    params.push(bitsOf<Province>(query.provinces, PROVINCES));
  }
  if (query.amountMin !== null || query.amountMax !== null) {
    // Ranges overlap; a null bound of the grant is open on its side; no amounts, no match.
    where.push('(g.amount_min IS NOT NULL OR g.amount_max IS NOT NULL)');
    if (query.amountMin !== null) {
      where.push('(g.amount_max IS NULL OR g.amount_max >= ?)');
      params.push(query.amountMin);
    }
    if (query.amountMax !== null) {
      where.push('(g.amount_min IS NULL OR g.amount_min <= ?)');
      params.push(query.amountMax);
    }
  }

  if (query.words.length === 0) {
    const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    return {
      page: {
        sql: `SELECT g.doc FROM grants g${filter} ORDER BY g.deadline IS NULL, g.deadline, g.id LIMIT ? OFFSET ?`,
        params: [...params, query.size, query.offset],
      },
      count: { sql: `SELECT count(*) AS total FROM grants g${filter}`, params },
    };
  }

  const text = ftsMatchExpression(query.words);
  const filter = ['grants_text MATCH ?', ...where].join(' AND ');
  const from = 'grants_text JOIN grants g ON g.rowid = grants_text.rowid';
  return {
    page: {
      sql: `SELECT g.doc FROM ${from} WHERE ${filter} ORDER BY bm25(grants_text, ${BM25_WEIGHTS.join(', ')}), g.id LIMIT ? OFFSET ?`,
      params: [text, ...params, query.size, query.offset],
    },
    count: { sql: `SELECT count(*) AS total FROM ${from} WHERE ${filter}`, params: [text, ...params] },
  };
}
