// The messages between the search worker pool (main thread) and its workers (searchWorker.ts).
import { ServiceUnavailableError } from '../../failures.js';
import type { GrantQuery } from '../../grants/query.js';

export interface WorkerSetup {
  /** The catalog's SQLite file. */
  file: string;
  /** How often an idle worker checks for a new catalog build and loads its columns. */
  refreshMs: number;
}

export type WorkerJob = { op: 'search'; query: GrantQuery } | { op: 'filterOptions' };
export type WorkerRequest = WorkerJob & { id: number };

/** A failure as it crosses the thread boundary (errors lose their class on the way). */
export interface FailureDescription {
  unavailable: boolean;
  message: string;
  retryAfterSeconds?: number;
}

export type WorkerReply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; failure: FailureDescription };

export function describeFailure(error: unknown): FailureDescription {
  if (error instanceof ServiceUnavailableError) return { unavailable: true, message: error.message, retryAfterSeconds: error.retryAfterSeconds };
  return { unavailable: false, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/** The failure as the main thread throws it: a ServiceUnavailableError stays one (503); anything else is an Error (500). */
export function failureFrom(description: FailureDescription): Error {
  return description.unavailable
    ? new ServiceUnavailableError(description.message, description.retryAfterSeconds)
    : new Error(`search worker: ${description.message}`);
}
