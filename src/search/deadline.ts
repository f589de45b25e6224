// One search's deadline: the moment its answer is due, set once from the search budget
// (SEARCH_TIMEOUT_MS) when the search is asked for, and handed to every step of it (the typo
// lookup, the relaxation counts, the page, the suggestion), so the steps together stay within the
// budget rather than each within its own timeout.
import { ServiceUnavailableError } from '../failures.js';

/** Seconds a partner is told to wait after a search ran out of time. */
const BUDGET_RETRY_AFTER_SECONDS = 2;

/** The answer of a search past its budget: a 503 naming the budget. */
export class SearchBudgetExceeded extends ServiceUnavailableError {
  constructor(budgetMs: number) {
    super(`the search took longer than ${budgetMs} ms`, BUDGET_RETRY_AFTER_SECONDS);
  }
}

export class Deadline {
  private constructor(
    /** Epoch milliseconds the answer is due at (Infinity: none). */
    readonly at: number,
    /** The budget it was set from, for the message of a search past it. */
    readonly budgetMs: number,
  ) {}

  /** A deadline `budgetMs` from now. */
  static after(budgetMs: number, now = Date.now()): Deadline {
    return new Deadline(now + budgetMs, budgetMs);
  }

  /** A deadline set elsewhere (another thread: Date.now() is the same clock there). */
  static at(at: number, budgetMs: number): Deadline {
    return new Deadline(at, budgetMs);
  }

  /** No deadline: every step may take what it takes (exports, tools). */
  static readonly NONE = new Deadline(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);

  /** Milliseconds left, 0 once passed (Infinity without a deadline). */
  remaining(now = Date.now()): number {
    return Math.max(0, this.at - now);
  }

  passed(now = Date.now()): boolean {
    return now >= this.at;
  }

  /** Throws the budget's 503 once the deadline has passed: between the steps of a search. */
  check(now = Date.now()): void {
    if (this.passed(now)) throw new SearchBudgetExceeded(this.budgetMs);
  }

  /**
   * Whether at least half of the budget is left: room for an optional step that costs about as
   * much as the search so far (the suggestion: a lookup and a count).
   */
  halfLeft(now = Date.now()): boolean {
    return this.at === Number.POSITIVE_INFINITY || this.remaining(now) * 2 >= this.budgetMs;
  }

  /**
   * The timeout of one call to another service made now: what is left (at least 1 ms); undefined without a deadline.
   */
  callTimeout(now = Date.now()): number | undefined {
    if (this.at === Number.POSITIVE_INFINITY) return undefined;
    this.check(now);
    return Math.max(1, this.at - now);
  }
}
