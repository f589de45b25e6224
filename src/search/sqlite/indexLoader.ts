// The index loader thread of the search worker pool: reads the in-memory index of the catalog
// being served (columns and text statistics, then every term's postings) into shared memory, once
// per catalog build, and reports it to the pool, which hands it to every search worker
// (sharedIndex.ts). It looks for a new build every refreshMs and whenever the pool asks (a worker
// saw a build its index is not of). Each build is read from one read transaction, so columns,
// statistics and postings come from one catalog; reading a build's postings stops when a newer
// build appears.
import { parentPort, workerData } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { buildOf, openCatalogReadOnly } from './catalogFile.js';
import { CatalogColumns, readColumns, shareColumns, shared } from './columns.js';
import { readAllPostings, readTextStatistics } from './textIndex.js';
import type { LoaderReport, LoaderSetup } from './sharedIndex.js';

const setup = workerData as LoaderSetup;
const port = parentPort!;
const report = (message: LoaderReport) => port.postMessage(message);

/** The connection the index is read from, one transaction per build. */
const db = openCatalogReadOnly(setup.file);
/** A second connection, outside that transaction, that sees the newest build. */
const probe = openCatalogReadOnly(setup.file);
const probeVersion = probe.prepare('PRAGMA data_version').pluck();

/** The build reported last (undefined: none yet), and the probe's data_version when it was read. */
let served: { build: string | null; version: number } | undefined;
let loading = false;
let again = false;

/** Whether the newest catalog is not the one served (a catalog without build id: whether anything was committed since). */
function changed(): boolean {
  if (served === undefined) return true;
  const build = buildOf(probe);
  return build !== served.build || (build === null && (probeVersion.get() as number) !== served.version);
}

async function refresh(): Promise<void> {
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  try {
    if (!changed()) return;
    const version = probeVersion.get() as number;
    db.exec('BEGIN');
    try {
      const build = buildOf(db);
      const data = shareColumns(readColumns(db));
      const columns = new CatalogColumns(data, db);
      const stats = readTextStatistics(db, columns);
      const text = { ...stats, lengths: shared(stats.lengths) };
      served = { build, version };
      report({ index: { build, columns: data, text } });
      const postings = await readAllPostings(db, columns, text, async () => {
        await nextTurn();
        return !changed();
      });
      if (postings !== null) report({ postings: { build, postings } });
    } finally {
      db.exec('COMMIT');
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

port.on('message', (message: unknown) => {
  if (message === 'check') void refresh();
});
void refresh();
setInterval(() => void refresh(), setup.refreshMs);
