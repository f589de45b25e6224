// What the SQLite and PostgreSQL stores share, written once: an operation is a generator that
// yields the statements it needs, one at a time, and is handed each answer back. Each adapter runs
// it with its own driver (sqlite/steps.ts synchronously, postgres/steps.ts with a promise per
// statement), so one definition of an operation serves both and the SQLite store still answers
// without a promise. What truly differs stays with the adapter: the placeholders (`?` here,
// rewritten to `$n` for PostgreSQL), how a transaction begins and what it locks (`Dialect`).
//
//   function* revoke(keyId: string): Steps<boolean> {
//     return (yield* run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', now, keyId)) === 1;
//   }
import type { Awaitable } from './port.js';

/**
 * One statement of an operation: `all` answers the rows, `get` the first row (or undefined), `run` how many rows
 * changed.
 */
export interface Step {
  readonly mode: 'all' | 'get' | 'run';
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** An operation written once for both stores: the statements it runs, and what it answers. */
export type Steps<T> = Generator<Step, T, unknown>;

/** The rows a query answers. */
export function* all<R>(sql: string, ...params: unknown[]): Steps<R[]> {
  return (yield { mode: 'all', sql, params }) as R[];
}

/** The first row a query answers, or undefined. */
export function* get<R>(sql: string, ...params: unknown[]): Steps<R | undefined> {
  return (yield { mode: 'get', sql, params }) as R | undefined;
}

/** Runs a statement; how many rows it changed. */
export function* run(sql: string, ...params: unknown[]): Steps<number> {
  return (yield { mode: 'run', sql, params }) as number;
}

/** What differs in the SQL the two stores speak, for the operations that need it. */
export interface Dialect {
  /**
   * Appended to a SELECT whose rows the transaction must hold until it ends (PostgreSQL: `FOR UPDATE`; SQLite: nothing,
   * an IMMEDIATE transaction holds the whole database).
   */
  forUpdate(of?: string): string;
  /** A date column as its YYYY-MM-DD text. */
  dayText(column: string): string;
  /** A parameter compared with a date column. */
  dayParam: string;
  /** A parameter that may be null, typed for PostgreSQL (`?::text`). */
  textParam: string;
  /** The comparison that holds when both sides are null too (SQLite `IS`, PostgreSQL `IS NOT DISTINCT FROM`). */
  nullSafeEquals: string;
}

export interface TransactionOptions {
  /**
   * The transaction takes the write lock before its first read (SQLite: BEGIN IMMEDIATE), for an
   * operation that reads what it then decides to write.
   */
  write?: boolean;
  /**
   * A lock no two transactions of this kind hold at once, on every instance (PostgreSQL: an
   * advisory lock of this id; SQLite's write lock already holds the whole database).
   */
  exclusive?: number;
}

/** Runs operations on one store's database. */
export interface StepRunner {
  readonly dialect: Dialect;
  /** Runs `steps` outside any transaction (each statement on its own). */
  run<T>(steps: Steps<T>): Awaitable<T>;
  /** Runs `steps` in one transaction, committed when it returns and rolled back when it throws. */
  transaction<T>(steps: Steps<T>, options?: TransactionOptions): Awaitable<T>;
}

/** Drives `steps` to their end with a synchronous executor. */
export function driveSync<T>(steps: Steps<T>, execute: (step: Step) => unknown): T {
  let next = steps.next();
  while (next.done !== true) next = steps.next(execute(next.value));
  return next.value;
}

/** Drives `steps` to their end, awaiting each statement's answer. */
export async function driveAsync<T>(steps: Steps<T>, execute: (step: Step) => Promise<unknown>): Promise<T> {
  let next = steps.next();
  while (next.done !== true) next = steps.next(await execute(next.value));
  return next.value;
}
