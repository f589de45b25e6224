// One search worker thread: the embedded engine (SqliteSearchEngine) pinned to the catalog build
// of the shared index the pool hands it (sharedIndex.ts), answering the pool's messages one at a
// time. Every answer comes from that one build (page, total and facets). When the pool hands it the
// index of a newer build, the worker swaps to an engine pinned to that build. Before each job it
// checks the build being served: a search that sees a newer build than its index asks the pool
// for it and waits for it up to freshWaitMs, once per build; past that (a large catalog takes
// seconds to load) searches are answered from the previous build until the new one arrives.
import { parentPort, workerData } from 'node:worker_threads';
import { ServiceUnavailableError } from '../../../failures.js';
import { buildOf, openCatalogReadOnly } from '../storage/catalogFile.js';
import { SqliteSearchEngine } from './engine.js';
import type { SharedIndex } from '../index/sharedIndex.js';
import type { PoolMessage, WorkerReply, WorkerRequest, WorkerSetup } from './workerProtocol.js';
import { describeFailure } from './workerProtocol.js';
import { lowerThreadPriority } from './threadPriority.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;
lowerThreadPriority(setup.nice);
const reply = (message: WorkerReply) => port.postMessage(message);

/** Sees the newest build, outside the engine's pinned transaction. */
const probe = openCatalogReadOnly(setup.file);
let current: { build: string | null; engine: SqliteSearchEngine } | null = null;
/** The newest build a search has waited for (builds only move forward: one waited for before is not this one). */
let waitedFor: string | null | undefined;
/** Called on every adoption (waits for a build). */
let adopted: (() => void)[] = [];

function adopt(index: SharedIndex): void {
  if (current !== null && current.build === index.build) return;
  const engine = SqliteSearchEngine.pinned(setup.file, index);
  if (engine === null) return; // the catalog is past that build already: its index follows
  const previous = current;
  current = { build: index.build, engine };
  if (previous === null) reply({ ready: true });
  else void previous.engine.close();
  for (const wake of adopted) wake();
  adopted = [];
}

/** The engine of the newest build, waiting for its index once per build. */
async function freshEngine(): Promise<SqliteSearchEngine> {
  if (current === null) throw new ServiceUnavailableError('the catalog index is loading', 1);
  const newest = buildOf(probe);
  if (newest === current.build || newest === waitedFor) return current.engine;
  waitedFor = newest;
  reply({ stale: true });
  const deadline = Date.now() + setup.freshWaitMs;
  while (current.build !== newest && Date.now() < deadline) {
    await new Promise<void>((wake) => {
      const timer = setTimeout(wake, deadline - Date.now());
      adopted.push(() => {
        clearTimeout(timer);
        wake();
      });
    });
  }
  return current.engine;
}

async function answer(request: WorkerRequest): Promise<WorkerReply> {
  try {
    const engine = await freshEngine();
    const value = request.op === 'search' ? await engine.searchJson(request.query) : await engine.filterOptions();
    return { id: request.id, ok: true, value };
  } catch (error) {
    return { id: request.id, ok: false, failure: describeFailure(error) };
  }
}

port.on('message', (message: PoolMessage) => {
  if ('adopt' in message) adopt(message.adopt);
  else void answer(message).then(reply);
});
