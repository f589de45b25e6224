// Source records → validated grants, with every rejection reported and counted.
import { validateGrant, type Grant } from '../src/grants/schema.js';
import type { SyncItem } from '../src/search/engine.js';
import { printable } from './printable.js';
import type { SourceRecord } from './source.js';

export interface Rejection {
  number: number;
  /** Where the record is, in words ("line 12", "OpportunityID 350123"). */
  where?: string;
  id: string | null;
  problems: { field: string; reason: string }[];
  /** The record as the source held it, for the rejects report. */
  raw?: unknown;
}

/** Where the rejected records go besides the report lines (the rejects file of --skip-invalid). */
export type RejectSink = (rejection: Rejection) => void;

export class RejectionLog {
  count = 0;
  /** The source record number of each grant in flight, for duplicate reports. */
  private readonly numbers = new WeakMap<Grant, number>();
  constructor(
    private readonly report: (line: string) => void,
    private readonly sink: RejectSink = () => {},
  ) {}

  reject(rejection: Rejection): void {
    this.count += 1;
    const about = [rejection.where, rejection.id === null ? undefined : `id ${JSON.stringify(rejection.id)}`].filter(
      (a) => a !== undefined,
    );
    const problems = rejection.problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
    this.report(
      printable(
        `rejected record ${rejection.number}${about.length === 0 ? '' : ` (${about.join(', ')})`}: ${problems}`,
      ),
    );
    this.sink(rejection);
  }

  numbered(grant: Grant, number: number): Grant {
    this.numbers.set(grant, number);
    return grant;
  }

  duplicate(grant: Grant): void {
    this.count += 1;
    const number = this.numbers.get(grant);
    const reason = 'appears more than once in the source; the first one was kept';
    this.report(
      printable(
        `rejected record${number === undefined ? '' : ` ${number}`} (id ${JSON.stringify(grant.id)}): id: ${reason}`,
      ),
    );
    this.sink({ number: number ?? 0, id: grant.id, problems: [{ field: 'id', reason }], raw: grant });
  }
}

const idOf = (value: unknown): string | null => {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.length <= 200 ? id : null;
};

/** Validates each record; yields valid grants, or for sync a marker for each rejected id. */
export async function* validRecords(
  records: AsyncIterable<SourceRecord>,
  rejections: RejectionLog,
): AsyncGenerator<SyncItem> {
  for await (const record of records) {
    const { number, where } = record;
    if (record.error !== undefined) {
      const problems = [{ field: '(record)', reason: record.error }];
      rejections.reject({ number, where, id: null, problems, raw: record.raw });
      yield { rejectedId: null };
      continue;
    }
    if (record.problems !== undefined) {
      const id = record.id ?? null;
      rejections.reject({ number, where, id, problems: record.problems, raw: record.raw });
      yield { rejectedId: id };
      continue;
    }
    const result = validateGrant(record.value);
    if (result.ok) {
      yield { grant: rejections.numbered(result.grant, number) };
    } else {
      const id = idOf(record.value);
      rejections.reject({ number, where, id, problems: result.problems, raw: record.raw ?? record.value });
      yield { rejectedId: id };
    }
  }
}

export async function* grantsOnly(items: AsyncIterable<SyncItem>): AsyncGenerator<Grant> {
  for await (const item of items) if ('grant' in item) yield item.grant;
}
