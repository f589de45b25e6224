// The messages between the search worker pool (main thread) and its workers (searchWorker.ts).
import { ServiceUnavailableError } from '../../../failures.js';
import type { GrantQuery } from '../../../grants/query.js';
import type { SuggestRequest } from '../../suggestSearch.js';
import type { WordCount } from '../../engine.js';
import type { PostingsWanted, SharedIndex, SharedPostings } from '../index/sharedIndex.js';

export interface WorkerSetup {
  /** The catalog's SQLite file. */
  file: string;
  /** How long a search that sees a new build waits for its index (once per build). */
  freshWaitMs: number;
  /**
   * How long a search waits for the index loader to read the postings it needs (then the worker reads what is missing
   * itself).
   */
  postingsWaitMs: number;
  /** This thread's nice value (threadPriority.ts). */
  nice: number;
}

export type WorkerJob =
  | { op: 'search'; query: GrantQuery }
  | { op: 'wordTotals'; counts: readonly WordCount[]; atMost: number }
  | { op: 'suggest'; request: SuggestRequest }
  | { op: 'filterOptions' };
/**
 * A job as a worker gets it: its id, and its deadline (epoch milliseconds, set when the pool took it) with the budget
 * it was set from.
 */
export type WorkerRequest = WorkerJob & { id: number; deadline: number; budgetMs: number };

/**
 * What the pool sends a worker: a job, the shared index of a build, a term's postings read by the index loader, or
 * terms it could not read.
 */
export type PoolMessage =
  WorkerRequest | { adopt: SharedIndex } | { postings: SharedPostings } | { unread: PostingsWanted };

/** A failure as it crosses the thread boundary (errors lose their class on the way). */
interface FailureDescription {
  unavailable: boolean;
  message: string;
  retryAfterSeconds?: number;
}

/**
 * ready: the worker has adopted its first index; stale: it saw a build newer than its index; want: a search needs these
 * postings.
 */
export type WorkerReply =
  | { ready: true }
  | { stale: true }
  | { want: PostingsWanted }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; failure: FailureDescription };

export function describeFailure(error: unknown): FailureDescription {
  if (error instanceof ServiceUnavailableError)
    return { unavailable: true, message: error.message, retryAfterSeconds: error.retryAfterSeconds };
  return { unavailable: false, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/**
 * The failure as the main thread throws it: a ServiceUnavailableError stays one (503); anything else is an Error (500).
 */
export function failureFrom(description: FailureDescription): Error {
  return description.unavailable
    ? new ServiceUnavailableError(description.message, description.retryAfterSeconds)
    : new Error(`search worker: ${description.message}`);
}
