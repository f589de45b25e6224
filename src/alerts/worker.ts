// The alerts worker of an API process: the matcher's and the deliverer's loops, on timers, until
// stopped. The matcher runs until it has caught up, then every pollMs; reminders and openings once a minute;
// the deliverer whenever it has room, except, in a fleet, on the matching instance while it
// catches up (the others deliver meanwhile; matching is the longer path to the last webhook).
import type { Logger } from '../log.js';
import type { WebhookDeliverer } from './deliverer.js';
import type { AlertMatcher } from './matcher.js';

/**
 * Reminders (grant.closing) and openings (grant.opened) are looked for once a minute (a deadline is a day; a minute
 * late is on time).
 */
const REMINDER_SWEEP_MS = 60_000;

export class AlertsWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private lastReminders = 0;
  /** When the matcher is asked next: at once after a turn that found changes, else pollMs after the last ask. */
  private matchDueAt = 0;

  constructor(
    private readonly matcher: AlertMatcher | null,
    private readonly deliverer: WebhookDeliverer,
    private readonly pollMs: number,
    private readonly log: Logger,
    /** Other instances deliver too (a fleet): this one does not while it matches. */
    private readonly othersDeliver = false,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.turn().finally(() => {
        this.running = null;
      });
    }, delay);
    this.timer.unref();
  }

  /**
   * One turn: match until caught up (bounded), remind when due, start due deliveries. Turns come
   * every 10 ms while there is work; the matcher is asked again that soon only when it found
   * changes last time, otherwise every pollMs (asking it on every turn kept busy by deliveries
   * alone costs a lease write, a change-log read and the alerts' version each time, whose count of
   * the alerts alone takes 270 ms of the 6.1 s the thread works in a round of the alerts bench).
   */
  private async turn(): Promise<void> {
    let busy = false;
    try {
      if (this.matcher !== null && Date.now() >= this.matchDueAt) {
        this.matchDueAt = Date.now() + this.pollMs;
        try {
          // Each batch is decided while the one before commits (matchNext); settled at the end.
          for (let i = 0; i < 20 && !this.stopped; i++) {
            const report = await this.matcher.matchNext();
            if (report.changes === 0) break;
            busy = true;
            this.matchDueAt = 0;
            // With other instances delivering, this one's thread goes to matching while it catches
            // up; alone, it delivers what each batch wrote while the next batches are matched.
            if (this.othersDeliver) this.deliverer.hold(true);
            else if (report.events > 0) await this.deliverer.deliverDue();
          }
        } finally {
          try {
            await this.matcher.settle();
          } finally {
            this.deliverer.hold(false);
          }
        }
        if (Date.now() - this.lastReminders >= Math.min(REMINDER_SWEEP_MS, this.pollMs * 60)) {
          this.lastReminders = Date.now();
          await this.matcher.remindOnce();
          await this.matcher.announceOpenings();
        }
      }
      if (!this.stopped && (await this.deliverer.deliverDue()) > 0) busy = true;
      if (this.deliverer.busy > 0) busy = true;
    } catch (error) {
      this.log.warn('alerts worker turn failed; retrying', { reason: (error as Error).message });
    }
    this.schedule(busy ? 10 : this.pollMs);
  }

  /** Stops the loops and waits for the turn and the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
    await this.deliverer.drain();
  }
}
