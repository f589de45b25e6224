// A pool of search worker threads (searchWorker.ts), each running the embedded engine on its own
// read-only connection. Jobs wait in one FIFO queue for an idle worker. Every job has a time
// budget from the moment it is asked for: past it, the caller gets ServiceUnavailableError; a job
// still queued is dropped, and a worker still running it is terminated (better-sqlite3 cannot
// interrupt a statement from another thread) and replaced by a fresh one, which takes jobs once
// it has loaded the catalog's columns. A worker that dies is replaced the same way.
import { Worker } from 'node:worker_threads';
import { ServiceUnavailableError } from '../../failures.js';
import { failureFrom, type WorkerJob, type WorkerReply, type WorkerSetup } from './workerProtocol.js';

export interface WorkerPoolOptions {
  /** The catalog's SQLite file. */
  file: string;
  /** Number of worker threads (at least 1). */
  size: number;
  /** A job's budget, queue wait included. */
  timeoutMs: number;
  /** How often an idle worker looks for a new catalog build (default 1000 ms). */
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

/** Seconds a partner is told to wait after a search ran out of time. */
const TIMEOUT_RETRY_AFTER_SECONDS = 2;
/** Delay before replacing a worker that died before it was ready (no tight restart loop). */
const RESTART_DELAY_MS = 1000;

export class SearchWorkerPool {
  private readonly slots = new Set<Slot>();
  private queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private readonly restarts = new Set<NodeJS.Timeout>();

  private constructor(private readonly options: WorkerPoolOptions) {}

  /** Starts `size` workers and resolves once each has loaded the catalog (or rejects when one cannot start). */
  static async start(options: WorkerPoolOptions): Promise<SearchWorkerPool> {
    if (options.size < 1) throw new Error('a search worker pool needs at least one worker');
    const pool = new SearchWorkerPool(options);
    try {
      await Promise.all(Array.from({ length: options.size }, () => pool.spawn()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
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
      const job: Job = { id: ++this.nextId, message, resolve: resolve as (value: unknown) => void, reject, slot: null, timer: undefined as never };
      job.timer = setTimeout(() => this.expire(job, timeoutMs), timeoutMs);
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** A worker that resolves once ready; rejects if it fails before that. */
  private spawn(): Promise<void> {
    const setup: WorkerSetup = { file: this.options.file, refreshMs: this.options.refreshMs ?? 1000 };
    const worker = new Worker(new URL('./searchWorker.js', import.meta.url), { workerData: setup });
    const slot: Slot = { worker, ready: false, job: null };
    this.slots.add(slot);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        if ('ready' in reply) {
          slot.ready = true;
          resolve();
          this.dispatch();
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
      slot.worker.postMessage({ ...job.message, id: job.id });
    }
  }

  private settle(slot: Slot, reply: Exclude<WorkerReply, { ready: true }>): void {
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
    job.reject(new ServiceUnavailableError(`the search took longer than ${timeoutMs} ms`, TIMEOUT_RETRY_AFTER_SECONDS));
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
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}
