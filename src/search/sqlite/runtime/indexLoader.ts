// The index loader thread of the search worker pool: reads the in-memory index of the catalog
// being served (columns and text statistics) into shared memory, once per catalog build, and
// reports it whole to the pool, which hands it to every search worker (sharedIndex.ts): workers go
// on answering from the previous build until then. It looks for a new build every refreshMs and
// whenever the pool asks (a worker saw a build its index is not of). Each build is read from one
// read transaction, kept open while the build is served, so columns, statistics and postings come
// from one catalog. A term's postings are not read ahead (a build is served seconds after it is
// committed whatever the size of its text): a worker whose search needs a term it does not hold
// asks, and the loader reads it into shared memory (kept, within the budget, for the next asks)
// and reports it for every worker. A read here is never cut short by a search's time budget.
import { parentPort, workerData } from 'node:worker_threads';
import { buildOf, openCatalogReadOnly } from '../storage/catalogFile.js';
import { CatalogColumns, readColumns, shareColumns, shared } from '../index/columns.js';
import { readTextStatistics, TextIndex } from '../index/textIndex.js';
import type { LoaderReport, LoaderRequest, LoaderSetup, PostingsWanted } from '../index/sharedIndex.js';
import { lowerThreadPriority } from './threadPriority.js';

const setup = workerData as LoaderSetup;
const port = parentPort!;
lowerThreadPriority(setup.nice);
const report = (message: LoaderReport) => port.postMessage(message);

/** The connection the index is read from, one transaction per build. */
const db = openCatalogReadOnly(setup.file);
/** A second connection, outside that transaction, that sees the newest build. */
const probe = openCatalogReadOnly(setup.file);
const probeVersion = probe.prepare('PRAGMA data_version').pluck();

/**
 * The build reported last (undefined: none yet), the probe's data_version when it was read, and its postings as read so
 * far.
 */
let served: { build: string | null; version: number; text: TextIndex } | undefined;
let loading = false;
let again = false;

/** Whether the newest catalog is the given one (a catalog without build id: nothing committed since `version`). */
function newestIs(catalog: { build: string | null; version: number }): boolean {
  const build = buildOf(probe);
  return build === catalog.build && (build !== null || (probeVersion.get() as number) === catalog.version);
}

async function refresh(): Promise<void> {
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  try {
    if (served !== undefined && newestIs(served)) return;
    const version = probeVersion.get() as number;
    // The served build's transaction ends: the new one's begins.
    if (db.inTransaction) db.exec('COMMIT');
    served = undefined;
    db.exec('BEGIN');
    try {
      const build = buildOf(db);
      const data = shareColumns(readColumns(db));
      const columns = new CatalogColumns(data);
      const stats = readTextStatistics(db, columns);
      const text = { ...stats, lengths: shared(stats.lengths) };
      served = { build, version, text: TextIndex.over(db, columns, text, undefined, true) };
      report({ index: { build, columns: data, text } });
    } catch (error) {
      db.exec('COMMIT');
      throw error;
    }
  } catch (error) {
    report({ failed: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  } finally {
    loading = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

/**
 * Reads the postings a worker asked for (of the build served now; a catalog without build id is
 * left to the workers) and reports each; the terms it could not read are reported as unread, so
 * that the workers stop waiting for them and read them themselves, where a failure reaches the
 * search that needed them (rather than every such search waiting out its budget).
 */
function readPostings(wanted: PostingsWanted): void {
  const current = served;
  if (current === undefined || current.build === null || current.build !== wanted.build) return;
  let read = 0;
  try {
    for (const term of wanted.terms) {
      report({ postings: { build: wanted.build, term, postings: current.text.postings(term) } });
      read++;
    }
  } catch {
    report({ unread: { build: wanted.build, terms: wanted.terms.slice(read) } });
  }
}

port.on('message', (message: LoaderRequest) => {
  if (message === 'check') void refresh();
  else readPostings(message.want);
});
void refresh();
setInterval(() => void refresh(), setup.refreshMs);
