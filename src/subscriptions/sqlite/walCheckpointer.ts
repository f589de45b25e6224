// The SQLite store's checkpointer thread (walCheckpoints.ts starts it and tells it when): each
// `checkpoint` copies the write-ahead log's committed pages into the database file, on a
// connection of its own. A PASSIVE checkpoint waits for no reader and no writer, and its fsync
// blocks this thread only, never the event loop that serves requests. Told `stop`, it
// checkpoints once more and ends.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointerSetup {
  /** The subscriptions database file. */
  file: string;
}

/** What the store tells the thread. */
export type CheckpointerCommand = 'checkpoint' | 'stop';

/** What the thread tells the store: a checkpoint is done, or failed (its message), or the thread has stopped. */
export type CheckpointerReport = { done: true } | { failed: string } | { stopped: true };

const setup = workerData as CheckpointerSetup;
const port = parentPort!;
const report = (message: CheckpointerReport) => port.postMessage(message);

const db = new Database(setup.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');

function checkpoint(): CheckpointerReport {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    return { done: true };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

port.on('message', (command: CheckpointerCommand) => {
  if (command === 'checkpoint') report(checkpoint());
  else if (command === 'stop') {
    checkpoint();
    db.close();
    report({ stopped: true });
    port.close();
  }
});
