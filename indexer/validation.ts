// Source records → validated grants, with every rejection reported and counted.
import { validateGrant, type Grant } from '../src/grants/schema.js';
import type { SyncItem } from '../src/search/engine.js';
import type { SourceRecord } from './source.js';

export interface Rejection {
  number: number;
  id: string | null;
  problems: { field: string; reason: string }[];
}

export class RejectionLog {
  count = 0;
  /** The source record number of each grant in flight, for duplicate reports. */
  private readonly numbers = new WeakMap<Grant, number>();
  constructor(private readonly report: (line: string) => void) {}

  reject(rejection: Rejection): void {
    this.count += 1;
    const id = rejection.id === null ? '' : ` (id ${JSON.stringify(rejection.id)})`;
    const problems = rejection.problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
    this.report(`rejected record ${rejection.number}${id}: ${problems}`);
  }

  numbered(grant: Grant, number: number): Grant {
    this.numbers.set(grant, number);
    return grant;
  }

  duplicate(grant: Grant): void {
    this.count += 1;
    const number = this.numbers.get(grant);
    this.report(
      `rejected record${number === undefined ? '' : ` ${number}`} (id ${JSON.stringify(grant.id)}): id: appears more than once in the source; the first one was kept`,
    );
  }
}

const idOf = (value: unknown): string | null => {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.length <= 200 ? id : null;
};

/** Validates each record; yields valid grants, or for sync a marker for each rejected id. */
export async function* validRecords(records: AsyncIterable<SourceRecord>, rejections: RejectionLog): AsyncGenerator<SyncItem> {
  for await (const record of records) {
    if (record.error !== undefined) {
      rejections.reject({ number: record.number, id: null, problems: [{ field: '(record)', reason: record.error }] });
      yield { rejectedId: null };
      continue;
    }
    const result = validateGrant(record.value);
    if (result.ok) {
      yield { grant: rejections.numbered(result.grant, record.number) };
    } else {
      const id = idOf(record.value);
      rejections.reject({ number: record.number, id, problems: result.problems });
      yield { rejectedId: id };
    }
  }
}

export async function* grantsOnly(items: AsyncIterable<SyncItem>): AsyncGenerator<Grant> {
  for await (const item of items) if ('grant' in item) yield item.grant;
}
