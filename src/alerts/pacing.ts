// How much of the API process's thread the alerts worker may take. Matching and delivering run
// on the same thread as partner requests: while requests are being served, the alerts work takes
// at most `busyShare` of the thread (it waits (1 - share) / share of what it spent after each
// slice of work); when no request has come for a moment, it runs at full speed. Partner requests
// come first; alerts catch up when the load falls (their delay under load is the price, measured
// in the bench).
export class AlertsPacer {
  /** Until when (performance.now()) alert work waits while partners are served: one deadline for every waiter. */
  private owedUntil = 0;

  constructor(
    /** Whether partner requests are being served now. */
    private readonly partnersBusy: () => boolean,
    /** The share of the thread alerts may take while they are, in (0, 1]. */
    private readonly busyShare: number,
  ) {}

  /** Records `ms` of the alerts' own work on the thread. */
  spent(ms: number): void {
    const now = performance.now();
    if (this.busyShare >= 1 || !this.partnersBusy()) this.owedUntil = now;
    else this.owedUntil = Math.max(this.owedUntil, now) + (ms * (1 - this.busyShare)) / this.busyShare;
  }

  /**
   * Calls `fn` and counts the time until it returns its promise as spent: the work it does on
   * the thread (all of it for the SQLite store, whose methods run before they return; the
   * sending of a query for PostgreSQL, whose wait for the server is not the thread's).
   */
  sync<T>(fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return fn();
    } finally {
      this.spent(performance.now() - started);
    }
  }

  /** Waits until what the alerts owe is paid while requests are being served; lets the loop turn otherwise. */
  async turn(): Promise<void> {
    for (
      let left = this.owedUntil - performance.now();
      left > 0 && this.partnersBusy();
      left = this.owedUntil - performance.now()
    ) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, 50)));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A pacer that never holds the alerts back (tests, tools). */
export const UNPACED = new AlertsPacer(() => false, 1);
