// Where the SQLite store's write-ahead log is checkpointed while the API serves: on a thread of
// its own (walCheckpointer.ts), not in the commits of the event loop. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold (every 1,000 pages: about every
// 250 requests, each counted and logged in two small commits), and its fsync held the event
// loop 15–30 ms on the test machine, a pause every request of that moment waited through.
//
// The serving connection keeps an automatic checkpoint far above what the thread leaves in the
// log, a backstop should the thread stop. Every interval the log's file is looked at; once it
// has grown past START_BYTES (a process that writes little never starts a thread) the thread is
// started and asked for a checkpoint each interval, one at a time. A thread that fails is
// reported and SQLite's default threshold restored.
import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.js';
import { besideModule, startThread } from '../../threads/start.js';
import type { Db } from './database.js';
import type { CheckpointerCommand, CheckpointerReport, CheckpointerSetup } from './walCheckpointer.js';

interface CheckpointOptions {
  /** How often the log is looked at and, once the thread runs, checkpointed (the log holds that much of commits). */
  intervalMs: number;
  /** The size of the log's file that starts the thread. */
  startBytes: number;
}

const DEFAULTS: CheckpointOptions = { intervalMs: 1000, startBytes: 1024 * 1024 };
/** The serving connection's automatic checkpoint while checkpoints are the thread's (pages of 4 KiB: 40 MiB of log). */
const BACKSTOP_PAGES = 10_000;
/** SQLite's own threshold, restored when the thread is gone. */
const DEFAULT_PAGES = 1000;

export class WalCheckpoints {
  private thread: Worker | null = null;
  private asked = false;
  private stopping: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: CheckpointOptions,
  ) {
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.timer = setInterval(() => this.tick(), options.intervalMs).unref();
  }

  /** Checkpoints the file of `db` (the serving connection) on a thread from now on. */
  static start(db: Db, log: Logger, options: Partial<CheckpointOptions> = {}): WalCheckpoints {
    return new WalCheckpoints(db, log, { ...DEFAULTS, ...options });
  }

  /** Whether the thread has been started. */
  get running(): boolean {
    return this.thread !== null;
  }

  private tick(): void {
    if (this.stopping !== null || !this.db.open) return;
    if (this.thread === null) {
      if (walBytes(this.db.name) < this.options.startBytes) return;
      this.thread = this.startThread();
    }
    if (this.asked) return;
    this.asked = true;
    this.send('checkpoint');
  }

  private startThread(): Worker {
    const setup: CheckpointerSetup = { file: this.db.name };
    const thread = startThread(besideModule(import.meta.url, 'walCheckpointer'), setup);
    thread.unref();
    thread.on('message', (report: CheckpointerReport) => {
      if ('failed' in report) this.log.warn('a write-ahead log checkpoint failed', { reason: report.failed });
      this.asked = false;
    });
    thread.on('error', (error) => {
      this.log.error('the checkpointer thread failed; the store checkpoints in its commits again', {
        reason: error.message,
      });
    });
    thread.on('exit', () => {
      if (this.stopping === null) this.fallBack();
    });
    return thread;
  }

  private send(command: CheckpointerCommand): void {
    this.thread?.postMessage(command);
  }

  private fallBack(): void {
    clearInterval(this.timer);
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
  }

  /** Ends the thread after one last checkpoint; the serving connection checkpoints by itself again. */
  stop(): Promise<void> {
    this.stopping ??= new Promise<void>((done) => {
      clearInterval(this.timer);
      const thread = this.thread;
      if (thread === null) return done();
      thread.once('exit', () => done());
      this.send('stop');
    }).then(() => this.fallBack());
    return this.stopping;
  }
}

/** The size of a database's write-ahead log file (0 when there is none). */
function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}
