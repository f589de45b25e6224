// A pool of search worker threads (searchWorker.ts), each running the embedded engine on its own
// read-only connection, and one index loader thread (indexLoader.ts) that reads the in-memory
// index of each catalog build once, into shared memory, for all of them (sharedIndex.ts). Jobs
// wait in one FIFO queue for an idle worker. Every job has a time budget from the moment it is
// asked for: past it, the caller gets ServiceUnavailableError; a job still queued is dropped, and
// a worker still running it is terminated (better-sqlite3 cannot interrupt a statement from
// another thread) and replaced by a fresh one, which adopts the shared index and takes jobs at
// once. A worker or loader that dies is replaced the same way.
import type { Worker } from 'node:worker_threads';
import { ServiceUnavailableError } from '../../../failures.js';
import { SearchBudgetExceeded } from '../../deadline.js';
import type { LoaderReport, LoaderRequest, LoaderSetup, SharedIndex } from '../index/sharedIndex.js';
import { buildOf, openCatalogReadOnly } from '../storage/catalogFile.js';
import { startThread } from './threads.js';
import { failureFrom, type PoolMessage, type WorkerJob, type WorkerReply, type WorkerSetup } from './workerProtocol.js';

export interface WorkerPoolOptions {
  /** The catalog's SQLite file. */
  file: string;
  /** Number of worker threads (at least 1). */
  size: number;
  /** A job's budget, queue wait included. */
  timeoutMs: number;
  /** The nice value of the worker and loader threads (default 0: the event loop's). */
  nice?: number;
  /** How often the index loader looks for a new catalog build (default 1000 ms). */
  refreshMs?: number;
  /** Told of each job that ran out of time, and of each worker that died. */
  events?: { onTimeout?(): void; onWorkerLost?(reason: string): void };
}

/** What the pool is doing now (for /metrics and the overload guard). */
export interface PoolLoad {
  workers: number;
  busy: number;
  queued: number;
}

interface Job {
  id: number;
  message: WorkerJob;
  /** When the answer is due (epoch milliseconds), and the budget it was set from. */
  deadline: number;
  budgetMs: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
  slot: Slot | null;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
}

/** Delay before replacing a worker that died before it was ready (no tight restart loop). */
const RESTART_DELAY_MS = 1000;
/** The longest a search that sees a new catalog build waits for its index (once per build and worker). */
const FRESH_WAIT_MS = 1000;

export class SearchWorkerPool {
  private readonly slots = new Set<Slot>();
  private queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private readonly restarts = new Set<NodeJS.Timeout>();
  private loader: Worker | null = null;
  private latestIndex: SharedIndex | null = null;
  /** Called on every index the loader reports (waits for a build). */
  private indexWaiters: (() => void)[] = [];
  /** Settles start() on the loader's first index or failure. */
  private firstIndex: { resolve(): void; reject(error: Error): void } | null = null;

  private constructor(private readonly options: WorkerPoolOptions) {}

  /**
   * Starts the index loader and `size` workers, and resolves once the loader has read the catalog's
   * index and each worker has adopted it (or rejects when they cannot start).
   */
  static async start(options: WorkerPoolOptions): Promise<SearchWorkerPool> {
    if (options.size < 1) throw new Error('a search worker pool needs at least one worker');
    const pool = new SearchWorkerPool(options);
    try {
      await new Promise<void>((resolve, reject) => {
        pool.firstIndex = { resolve, reject };
        pool.startLoader();
      });
      await Promise.all(Array.from({ length: options.size }, () => pool.spawn()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** The newest build's shared index (for reads on the main thread, such as exports). */
  get index(): SharedIndex | null {
    return this.latestIndex;
  }

  private startLoader(): void {
    const setup: LoaderSetup = {
      file: this.options.file,
      refreshMs: this.options.refreshMs ?? 1000,
      nice: this.options.nice ?? 0,
    };
    const loader = startThread('indexLoader', setup);
    this.loader = loader;
    loader.on('message', (report: LoaderReport) => {
      if ('postings' in report) {
        this.broadcast({ postings: report.postings });
      } else if ('unread' in report) {
        this.broadcast({ unread: report.unread });
      } else if ('index' in report) {
        this.latestIndex = report.index;
        this.broadcast({ adopt: report.index });
        const waiting = this.indexWaiters;
        this.indexWaiters = [];
        for (const wake of waiting) wake();
        this.firstIndex?.resolve();
        this.firstIndex = null;
      } else if (this.firstIndex !== null) {
        this.firstIndex.reject(new Error(`the search index could not be read: ${report.failed}`));
        this.firstIndex = null;
      } else {
        this.options.events?.onWorkerLost?.(`index loader: ${report.failed}`);
      }
    });
    const lost = (reason: string) => {
      if (this.loader !== loader) return;
      this.loader = null;
      if (this.firstIndex !== null) {
        this.firstIndex.reject(new Error(`the search index loader stopped (${reason})`));
        this.firstIndex = null;
      }
      if (this.closed) return;
      this.options.events?.onWorkerLost?.(`index loader: ${reason}`);
      const timer = setTimeout(() => {
        this.restarts.delete(timer);
        if (!this.closed) this.startLoader();
      }, RESTART_DELAY_MS);
      this.restarts.add(timer);
    };
    loader.on('error', (error) => lost(`error: ${error.message}`));
    loader.on('exit', (code) => lost(`exit ${code}`));
  }

  /**
   * Resolves once the workers have been handed the index of the catalog's build as it is now (the
   * loader asked to look at once): every job dispatched after it is answered from that build, as
   * a worker adopts an index before it reads the next job. Gives up after `timeoutMs`.
   */
  async caughtUp(timeoutMs = this.options.timeoutMs): Promise<void> {
    const probe = openCatalogReadOnly(this.options.file);
    let build: string | null;
    try {
      build = buildOf(probe);
    } finally {
      probe.close();
    }
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && this.latestIndex?.build !== build && Date.now() < deadline) {
      this.tellLoader('check');
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, Math.min(250, Math.max(0, deadline - Date.now())));
        this.indexWaiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  private broadcast(message: PoolMessage): void {
    for (const slot of this.slots) slot.worker.postMessage(message);
  }

  private tellLoader(request: LoaderRequest): void {
    this.loader?.postMessage(request);
  }

  get load(): PoolLoad {
    let busy = 0;
    for (const slot of this.slots) if (slot.job !== null) busy++;
    return { workers: this.options.size, busy, queued: this.queue.length };
  }

  /** Runs a job on the next idle worker within the time budget (the pool's, unless `timeoutMs` is given). */
  run<T>(message: WorkerJob, timeoutMs = this.options.timeoutMs): Promise<T> {
    if (this.closed) return Promise.reject(new ServiceUnavailableError('search workers are shutting down', 1));
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: ++this.nextId,
        message,
        deadline: Date.now() + timeoutMs,
        budgetMs: timeoutMs,
        resolve: resolve as (value: unknown) => void,
        reject,
        slot: null,
        timer: undefined as never,
      };
      job.timer = setTimeout(() => this.expire(job, timeoutMs), timeoutMs);
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** A worker that resolves once ready; rejects if it fails before that. */
  private spawn(): Promise<void> {
    const setup: WorkerSetup = {
      file: this.options.file,
      freshWaitMs: Math.min(FRESH_WAIT_MS, Math.floor(this.options.timeoutMs / 2)),
      postingsWaitMs: this.options.timeoutMs,
      nice: this.options.nice ?? 0,
    };
    const worker = startThread('searchWorker', setup);
    const slot: Slot = { worker, ready: false, job: null };
    this.slots.add(slot);
    if (this.latestIndex !== null) worker.postMessage({ adopt: this.latestIndex } satisfies PoolMessage);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        if ('ready' in reply) {
          slot.ready = true;
          resolve();
          this.dispatch();
        } else if ('stale' in reply) {
          // A worker saw a build newer than its index: the loader looks now rather than at its next tick.
          this.tellLoader('check');
        } else if ('want' in reply) {
          this.tellLoader({ want: reply.want });
        } else {
          this.settle(slot, reply);
        }
      });
      worker.on('error', (error) => {
        if (!slot.ready) reject(error);
        this.lose(slot, `error: ${error.message}`);
      });
      worker.on('exit', (code) => {
        if (!slot.ready) reject(new Error(`search worker exited with code ${code} before it was ready`));
        this.lose(slot, `exit ${code}`);
      });
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.job !== null) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      job.slot = slot;
      slot.worker.postMessage({
        ...job.message,
        id: job.id,
        deadline: job.deadline,
        budgetMs: job.budgetMs,
      } satisfies PoolMessage);
    }
  }

  private settle(slot: Slot, reply: Exclude<WorkerReply, { ready: true } | { stale: true } | { want: unknown }>): void {
    const job = slot.job;
    if (job === null || job.id !== reply.id) return;
    slot.job = null;
    clearTimeout(job.timer);
    if (reply.ok) job.resolve(reply.value);
    else job.reject(failureFrom(reply.failure));
    this.dispatch();
  }

  /** The job ran out of time: drop it from the queue, or replace the worker running it. */
  private expire(job: Job, timeoutMs: number): void {
    if (job.slot === null) {
      this.queue = this.queue.filter((queued) => queued !== job);
    } else {
      const slot = job.slot;
      slot.job = null;
      this.retire(slot);
      this.replaceLater(0);
    }
    this.options.events?.onTimeout?.();
    job.reject(new SearchBudgetExceeded(timeoutMs));
  }

  /** Takes a worker out of the pool and stops it; its job, if any, is the caller's to settle. */
  private retire(slot: Slot): void {
    this.slots.delete(slot);
    slot.worker.removeAllListeners('message');
    void slot.worker.terminate();
  }

  /** A worker died by itself (not retired): fail its job and start another. */
  private lose(slot: Slot, reason: string): void {
    if (!this.slots.has(slot)) return;
    this.slots.delete(slot);
    const job = slot.job;
    if (job !== null) {
      clearTimeout(job.timer);
      job.reject(new ServiceUnavailableError(`a search worker stopped (${reason})`, 1));
    }
    if (this.closed) return;
    this.options.events?.onWorkerLost?.(reason);
    this.replaceLater(slot.ready ? 0 : RESTART_DELAY_MS);
  }

  private replaceLater(delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      if (!this.closed) this.spawn().catch(() => undefined); // a failed start is lost and retried by lose()
    }, delayMs);
    this.restarts.add(timer);
  }

  /** Fails what is queued, stops every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.restarts) clearTimeout(timer);
    const failure = new ServiceUnavailableError('search workers are shutting down', 1);
    for (const job of this.queue) {
      clearTimeout(job.timer);
      job.reject(failure);
    }
    this.queue = [];
    const slots = [...this.slots];
    this.slots.clear();
    for (const slot of slots) {
      if (slot.job !== null) {
        clearTimeout(slot.job.timer);
        slot.job.reject(failure);
      }
    }
    const loader = this.loader;
    this.loader = null;
    await Promise.all([...slots.map((slot) => slot.worker.terminate()), loader?.terminate()]);
  }
}
