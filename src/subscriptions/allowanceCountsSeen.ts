// The highest monthly count an instance has seen committed per subscription, kept to answer
// without a round trip (a floor, never above the record) and through a store outage. Only the
// latest months seen are kept: requests ask about the current month (and, across midnight of its
// last day, the one before), so when a new month is first seen the months before the previous one
// are dropped. The memory is bounded by the number of subscriptions, not by how long the process runs.

/** Months kept: the latest seen and the one before it. */
const MONTHS_KEPT = 2;

export class SeenMonthlyCounts {
  /** month (YYYY-MM) → subscription id → highest count seen. */
  private readonly byMonth = new Map<string, Map<string, number>>();

  /** Raises the count seen for the subscription and month to `calls` (zero included); returns `calls`. */
  see(subscriptionId: string, month: string, calls: number): number {
    let counts = this.byMonth.get(month);
    if (counts === undefined) {
      // older than every month kept
      if (this.byMonth.size >= MONTHS_KEPT && month < [...this.byMonth.keys()].sort()[0]) return calls;
      counts = new Map();
      this.byMonth.set(month, counts);
      const months = [...this.byMonth.keys()].sort();
      for (const old of months.slice(0, Math.max(0, months.length - MONTHS_KEPT))) this.byMonth.delete(old);
    }
    if ((counts.get(subscriptionId) ?? -1) < calls) counts.set(subscriptionId, calls);
    return calls;
  }

  /** The highest count seen for the subscription and month, if it is kept. */
  get(subscriptionId: string, month: string): number | undefined {
    return this.byMonth.get(month)?.get(subscriptionId);
  }

  /** Counts kept, every month together. */
  get size(): number {
    let n = 0;
    for (const counts of this.byMonth.values()) n += counts.size;
    return n;
  }
}
