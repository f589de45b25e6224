// An export of the embedded catalog: every match of a query, in its order, read from the snapshot
// of one read transaction on a connection of its own, in batches (the reader pulls the next batch
// when it wants it, so memory stays flat whatever the number of matches).
import type { GrantQuery } from '../../../grants/query.js';
import { transientAsUnavailable } from '../../../sqliteFailures.js';
import type { GrantExport } from '../../engine.js';
import type { Db } from './catalogFile.js';
import { CatalogReads } from './catalogReads.js';
import { TextHitFinder } from '../query/textHitFinder.js';
import type { CatalogColumns } from '../index/columns.js';
import { everyMatch, matchCount } from '../collect/exportMatches.js';

/** Grants per batch: small enough to keep memory flat, large enough to keep the per-batch cost low. */
const EXPORT_BATCH = 500;

/**
 * The export of `query` from the snapshot `db` is in (a read transaction already begun, whose
 * catalog `columns` hold). It owns `db`: close() ends the transaction and closes it.
 */
export function exportFromSnapshot(db: Db, columns: CatalogColumns, query: GrantQuery): GrantExport {
  // The text hits as a search finds them, all from FTS5 on this snapshot (no in-memory postings here).
  const { filters, text } = new TextHitFinder(db).find(columns, query, null);
  const total = matchCount(columns, filters, text);
  const reads = new CatalogReads(db);
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
        const doc = reads.doc(columns.rowids[position]);
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
