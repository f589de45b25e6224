// An export of the embedded catalog: every match of a query, in its order, read from the snapshot
// of one read transaction on a connection of its own, in batches (the reader pulls the next batch
// when it wants it, so memory stays flat whatever the number of matches).
import type { GrantQuery } from '../../../grants/query.js';
import { transientAsUnavailable } from '../../../sqliteFailures.js';
import type { GrantExport } from '../../engine.js';
import type { Db } from './catalogFile.js';
import { filterConditions, type TextHits } from '../collect/columnSearch.js';
import type { CatalogColumns } from '../index/columns.js';
import { everyMatch, matchCount } from '../collect/keyset.js';
import { BM25_WEIGHTS, ftsMatchExpression } from '../query/translator.js';

/** Grants per batch: small enough to keep memory flat, large enough to keep the per-batch cost low. */
export const EXPORT_BATCH = 500;

function textHitsOf(db: Db, columns: CatalogColumns, query: GrantQuery): TextHits | null {
  if (query.search === null) return null;
  const match = ftsMatchExpression(query.search);
  if (match === null) {
    const none = new Int32Array(0);
    return { positions: none, scored: query.sort.key === 'relevance' ? { positions: none, scores: new Float64Array(0) } : null };
  }
  if (query.sort.key !== 'relevance') {
    const rowids = db.prepare('SELECT rowid FROM grants_text WHERE grants_text MATCH ?').pluck().all(match) as number[];
    return { positions: Int32Array.from(rowids, (rowid) => columns.positionOf(rowid)), scored: null };
  }
  const rows = db.prepare(`SELECT rowid, bm25(grants_text, ${BM25_WEIGHTS.join(', ')}) FROM grants_text WHERE grants_text MATCH ?`).raw().all(match) as [number, number][];
  const positions = Int32Array.from(rows, ([rowid]) => columns.positionOf(rowid));
  return { positions, scored: { positions, scores: Float64Array.from(rows, ([, score]) => score) } };
}

/**
 * The export of `query` from the snapshot `db` is in (a read transaction already begun, whose
 * catalog `columns` hold). It owns `db`: close() ends the transaction and closes it.
 */
export function exportFromSnapshot(db: Db, columns: CatalogColumns, query: GrantQuery): GrantExport {
  const filters = filterConditions(columns, query);
  const text = textHitsOf(db, columns, query);
  const total = matchCount(columns, filters, text);
  const docByRowid = db.prepare('SELECT doc FROM grants WHERE rowid = ?').pluck();
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (db.open) db.close();
  };
  async function* batches(): AsyncGenerator<string[]> {
    try {
      let batch: string[] = [];
      for (const position of everyMatch(columns, query, filters, text)) {
        if (closed) return;
        const doc = docByRowid.get(columns.rowids[position]) as string | undefined;
        if (doc === undefined) throw new Error('a grant of the snapshot could not be read');
        batch.push(doc);
        if (batch.length === EXPORT_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0 && !closed) yield batch;
    } catch (error) {
      throw transientAsUnavailable(error, 'catalog');
    } finally {
      await close();
    }
  }
  return { total, batches: batches(), close };
}
