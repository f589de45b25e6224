// The index loader thread of the search worker pool: reads the in-memory index of the catalog
// being served (columns, text statistics and every term's postings) into shared memory, once per
// catalog build, and reports it whole to the pool, which hands it to every search worker
// (sharedIndex.ts): workers go on answering from the previous build until then. It looks for a new build every refreshMs and whenever the pool asks (a worker
// saw a build its index is not of). Each build is read from one read transaction, so columns,
// statistics and postings come from one catalog; reading a build's postings stops when a newer
// build appears.
import { parentPort, workerData } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { buildOf, openCatalogReadOnly } from '../storage/catalogFile.js';
import { CatalogColumns, readColumns, shareColumns, shared } from '../index/columns.js';
import { readAllPostings, readTextStatistics } from '../index/textIndex.js';
import type { LoaderReport, LoaderSetup } from '../index/sharedIndex.js';
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

/** The build reported last (undefined: none yet), and the probe's data_version when it was read. */
let served: { build: string | null; version: number } | undefined;
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
    db.exec('BEGIN');
    try {
      const build = buildOf(db);
      const data = shareColumns(readColumns(db));
      const columns = new CatalogColumns(data);
      const stats = readTextStatistics(db, columns);
      const text = { ...stats, lengths: shared(stats.lengths) };
      const postings = await readAllPostings(db, columns, text, async () => {
        await nextTurn();
        return newestIs({ build, version });
      });
      // Stopped for a newer build: that one is read next (`again`).
      if (postings === null) again = true;
      else {
        served = { build, version };
        report({ index: { build, columns: data, text, postings } });
      }
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
