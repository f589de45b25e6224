// SQLite failures that a retry may cure (a lock held too long, I/O trouble, a full disk): the
// API answers them 503 with Retry-After instead of 500.
import { ServiceUnavailableError } from './failures.js';

const TRANSIENT = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_FULL'];

/**
 * `error` as a ServiceUnavailableError naming the store when SQLite says a retry may cure it; otherwise `error` itself.
 */
export function transientAsUnavailable(error: unknown, store: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TRANSIENT.some((c) => code === c || code.startsWith(`${c}_`))) {
    return new ServiceUnavailableError(`${store} unavailable: ${code}`, 1);
  }
  return error;
}
