// The keys' last use, as both stores record it with each batch of usage rows.
import type { UsageRow } from './port.js';

/** Last use of each key in a batch of usage rows, as ISO text. */
export function lastUseByKey(rows: UsageRow[]): Map<string, string> {
  const last = new Map<string, Date>();
  for (const row of rows) {
    const seen = last.get(row.keyId);
    if (seen === undefined || seen.getTime() < row.at.getTime()) last.set(row.keyId, row.at);
  }
  return new Map([...last].map(([keyId, at]) => [keyId, at.toISOString()]));
}
