// One search worker thread: the embedded engine (SqliteSearchEngine, unchanged) on its own
// read-only connection and its own in-memory columns, answering the pool's messages one at a time.
// Each search runs inside the engine's own snapshot (one read transaction per turn of this
// thread), so a page, its total and its facets come from one catalog build; a new build is seen
// by the first search after the swap, and is loaded ahead of searches by a check once a second.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SqliteSearchEngine } from './engine.js';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './workerProtocol.js';
import { describeFailure } from './workerProtocol.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;

function openReadOnly(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  return db;
}

const engine = new SqliteSearchEngine(openReadOnly(setup.file));

async function answer(request: WorkerRequest): Promise<WorkerReply> {
  try {
    const value = request.op === 'search' ? await engine.searchJson(request.query) : await engine.filterOptions();
    return { id: request.id, ok: true, value };
  } catch (error) {
    return { id: request.id, ok: false, failure: describeFailure(error) };
  }
}

port.on('message', (request: WorkerRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});

/** Loads the columns of the catalog being served now (a no-op while the build is unchanged). */
const loadCurrentBuild = (): Promise<unknown> =>
  Promise.resolve()
    .then(() => engine.filterOptions())
    .catch(() => undefined);

// Ready once the columns are in memory: a fresh worker takes no search it would spend loading them.
void loadCurrentBuild().then(() => port.postMessage({ ready: true } satisfies WorkerReply));
setInterval(() => void loadCurrentBuild(), setup.refreshMs);
