// One search worker thread: the embedded engine (SqliteSearchEngine) pinned to the catalog build
// of the shared index the pool hands it (sharedIndex.ts), answering the pool's messages one at a
// time. Every answer comes from that one build (page, total and facets). When the pool hands it the
// index of a newer build, the worker swaps to an engine pinned to that build. Before each job it
// checks the build being served: a search that sees a newer build than its index asks the pool
// for it and waits for it up to freshWaitMs, once per build; past that (a large catalog takes
// seconds to load) searches are answered from the previous build until the new one arrives.
// A search whose words' postings the worker does not hold asks the pool's index loader for them
// and waits (up to postingsWaitMs, the search's whole budget: a read the loader finishes serves
// the retry even if this search ran out of time) until they arrive, for this worker and every
// other one; what has not arrived by then, what the loader reports it could not read, or when a
// newer build is out (the loader is reading it), the worker reads itself.
import { parentPort, workerData } from 'node:worker_threads';
import { ServiceUnavailableError } from '../../../failures.js';
import { buildOf, openCatalogReadOnly } from '../storage/catalogFile.js';
import { SqliteSearchEngine } from './engine.js';
import { Deadline } from '../../deadline.js';
import type { PostingsWanted, SharedIndex, SharedPostings } from '../index/sharedIndex.js';
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
/** Called on every term's postings adopted, or reported unread (waits for postings). */
let postingsArrived: (() => void)[] = [];
/** Terms of a build the index loader could not read: not waited for, read by the worker itself. */
let unread: { build: string | null; terms: Set<string> } = { build: null, terms: new Set() };

function adopt(index: SharedIndex): void {
  if (current !== null && current.build === index.build) return;
  const engine = SqliteSearchEngine.pinned(setup.file, index);
  if (engine === null) return; // the catalog is past that build already: its index follows
  engine.readWords();
  const previous = current;
  current = { build: index.build, engine };
  if (previous === null) reply({ ready: true });
  else void previous.engine.close();
  for (const wake of adopted) wake();
  adopted = [];
}

/** Resolves at the next call of a waiter pushed on `waiters`, or at `deadline`, whichever comes first. */
function nextWakeOrDeadline(waiters: (() => void)[], deadline: number): Promise<void> {
  return new Promise<void>((wake) => {
    const timer = setTimeout(wake, deadline - Date.now());
    waiters.push(() => {
      clearTimeout(timer);
      wake();
    });
  });
}

/** The engine of the newest build, waiting for its index once per build. */
async function freshEngine(): Promise<SqliteSearchEngine> {
  if (current === null) throw new ServiceUnavailableError('the catalog index is loading', 1);
  const newest = buildOf(probe);
  if (newest === current.build || newest === waitedFor) return current.engine;
  waitedFor = newest;
  reply({ stale: true });
  const deadline = Date.now() + setup.freshWaitMs;
  while (current.build !== newest && Date.now() < deadline) await nextWakeOrDeadline(adopted, deadline);
  return current.engine;
}

/** The terms whose postings a job would read and the engine lacks (looked up again as they arrive); null: none. */
function lackingOf(engine: SqliteSearchEngine, request: WorkerRequest): (() => string[]) | null {
  switch (request.op) {
    case 'search':
      return () => engine.missingTerms(request.query);
    case 'wordTotals':
      return () => engine.missingTermsOfCounts(request.counts, request.atMost);
    case 'suggest':
      return () => engine.missingTerms(request.request.query);
    case 'filterOptions':
      return null;
  }
}

/** Runs a job on the engine, searches within the deadline the pool set. */
function run(engine: SqliteSearchEngine, request: WorkerRequest): Promise<unknown> {
  const deadline = Deadline.at(request.deadline, request.budgetMs);
  switch (request.op) {
    case 'search':
      return engine.searchJson(request.query, deadline);
    case 'wordTotals':
      return engine.wordTotals(request.counts, request.atMost, deadline);
    case 'suggest':
      return engine.suggest(request.request);
    case 'filterOptions':
      return engine.filterOptions();
  }
}

/**
 * Asks the index loader for the postings the search needs and this engine lacks, and waits for them (a bounded time).
 */
async function awaitPostings(engine: SqliteSearchEngine, build: string | null, request: WorkerRequest): Promise<void> {
  const lacking = lackingOf(engine, request);
  if (lacking === null || build === null) return;
  // A newer build is out: the loader is reading its index and answers no one meanwhile (seconds
  // at 1,000,000 grants), so this worker reads what it lacks itself.
  if (buildOf(probe) !== build) return;
  const missing = () => lacking().filter((term) => unread.build !== build || !unread.terms.has(term));
  const terms = missing();
  if (terms.length === 0) return;
  reply({ want: { build, terms } });
  const deadline = Date.now() + setup.postingsWaitMs;
  while (missing().length > 0 && current?.engine === engine && Date.now() < deadline)
    await nextWakeOrDeadline(postingsArrived, deadline);
}

async function answer(request: WorkerRequest): Promise<WorkerReply> {
  try {
    let engine = await freshEngine();
    await awaitPostings(engine, current!.build, request);
    // Moved to a newer build while waiting: answered from that one.
    engine = current!.engine;
    return { id: request.id, ok: true, value: await run(engine, request) };
  } catch (error) {
    return { id: request.id, ok: false, failure: describeFailure(error) };
  }
}

function wakePostingsWaiters(): void {
  const waiting = postingsArrived;
  postingsArrived = [];
  for (const wake of waiting) wake();
}

function adoptPostings({ build, term, postings }: SharedPostings): void {
  if (current === null || current.build !== build) return;
  current.engine.adoptPostings(term, postings);
  wakePostingsWaiters();
}

function giveUpWaitingFor({ build, terms }: PostingsWanted): void {
  if (current === null || current.build !== build) return;
  if (unread.build !== build) unread = { build, terms: new Set() };
  for (const term of terms) unread.terms.add(term);
  wakePostingsWaiters();
}

port.on('message', (message: PoolMessage) => {
  if ('adopt' in message) adopt(message.adopt);
  else if ('postings' in message) adoptPostings(message.postings);
  else if ('unread' in message) giveUpWaitingFor(message.unread);
  else void answer(message).then(reply);
});
