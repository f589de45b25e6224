// What the usage log says while its writes fail (a store outage): the first failure at error
// level with its cause; then, while they go on, one line every `everyMs` with how many failed
// since; and one line when a write succeeds again, with how many failed and for how long. A write
// is retried every few hundred milliseconds during an outage: a line per failure buried the log
// (793 lines in a 15 s PostgreSQL stop of the chaos run).
import type { LogFields, Logger } from '../log.js';

export class WriteFailureLog {
  private failures = 0;
  private since = 0;
  private lastLine = 0;
  private sinceLine = 0;

  constructor(
    private readonly log: Logger,
    private readonly everyMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A write failed; its rows are kept for the retry. */
  failed(fields: LogFields): void {
    const at = this.now();
    this.failures += 1;
    if (this.failures === 1) {
      this.since = at;
      this.lastLine = at;
      this.log.error('usage log write failed; rows kept for retry', fields);
      return;
    }
    this.sinceLine += 1;
    if (at - this.lastLine < this.everyMs) return;
    this.log.error('usage log writes still failing; rows kept for retry', {
      ...fields,
      failedSinceLastLine: this.sinceLine,
      failed: this.failures,
      forMs: at - this.since,
    });
    this.lastLine = at;
    this.sinceLine = 0;
  }

  /** A write succeeded: ends a run of failures, if any. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info('usage log writes succeed again; the kept rows are written', {
      failed: this.failures,
      forMs: this.now() - this.since,
    });
    this.failures = 0;
    this.sinceLine = 0;
  }
}
