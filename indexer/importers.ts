// Every source format as one stream of source records: NDJSON and JSON arrays in our field names,
// CSV through a mapping, the Grants.gov XML extract (plain or zipped); any of them gzipped, from
// a file or stdin (a zip and a Grants.gov extract only from a file: they are read with seeks or twice).
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { constants, gunzipSync } from 'node:zlib';
import { endOfDay, isoDay, startOfDay, DEFAULT_TIME_ZONE } from './dates.js';
import { gunzip, peek, utf8Text } from './formats/bytes.js';
import { mapCommonGrantsOpportunity } from './formats/commonGrants.js';
import { readOpportunities } from './formats/commonGrantsJson.js';
import { readCsv } from './formats/csv.js';
import type { MappingPlan } from './formats/csvMapping.js';
import { guessFormat, packingOf, type Format, type Packing } from './formats/detect.js';
import { mapOpportunity, outranks, rankOf } from './formats/grantsGov.js';
import { readExtract } from './formats/grantsGovXml.js';
import { xmlEntries } from './formats/zip.js';
import { readSource, type SourceRecord } from './source.js';

interface ImportOptions {
  /** A file, or "-" for stdin. */
  source: string;
  /** The format, when given (otherwise guessed). */
  format?: Format;
  /** CSV: the checked mapping. */
  mapping?: MappingPlan;
  /** NDJSON, JSON and CommonGrants: the time zone of date-only deadlines and opensAt (default America/Toronto). */
  timeZone?: string;
  /** Where the importer says what it did beyond the records (older versions skipped). */
  note?: (line: string) => void;
}

interface Importer {
  format: Format;
  packing: Packing;
  /** Why this format, when it was guessed; null when given. */
  reason: string | null;
  /** The records, read from the start (a second call on stdin is refused). */
  records(): AsyncGenerator<SourceRecord>;
}

/** A source that cannot be read as asked: CSV without a mapping, a zip on stdin. */
export class ImportMisuse extends Error {}

const HEAD_BYTES = 64 * 1024;

async function fileHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function headText(head: Buffer, packing: Packing): string {
  if (packing === 'zip') return '';
  try {
    const bytes = packing === 'gzip' ? gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }) : head;
    return new TextDecoder('utf-8').decode(bytes.subarray(0, 4096));
  } catch {
    return '';
  }
}

/**
 * Date-only dates ("2027-01-15") of NDJSON and JSON records in `zone`: a deadline as the end of
 * that day (applications close when it ends), an opensAt as its start (they open when it begins).
 */
export function withDayDates(record: SourceRecord, zone: string): SourceRecord {
  const value = record.value as { deadline?: unknown; opensAt?: unknown } | undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return record;
  const deadline = typeof value.deadline === 'string' ? isoDay(value.deadline) : null;
  const opensAt = typeof value.opensAt === 'string' ? isoDay(value.opensAt) : null;
  if (deadline === null && opensAt === null) return record;
  return {
    ...record,
    value: {
      ...value,
      ...(deadline !== null && { deadline: endOfDay(deadline, zone) }),
      ...(opensAt !== null && { opensAt: startOfDay(opensAt, zone) }),
    },
  };
}

/** Opens a source: reads its first bytes, settles its format, and gives its records. */
export async function openImporter(options: ImportOptions): Promise<Importer> {
  const { source } = options;
  const name = source === '-' ? 'standard input' : source;
  let stdin: Readable | null = null;
  let head: Buffer;
  if (source === '-') {
    const peeked = await peek(process.stdin, HEAD_BYTES);
    head = peeked.head;
    stdin = peeked.stream;
  } else {
    head = await fileHead(source);
  }
  const guess =
    options.format === undefined
      ? guessFormat(source === '-' ? null : source, head, headText(head, packingOf(head)))
      : null;
  const format = options.format ?? guess!.format;
  const packing = guess?.packing ?? packingOf(head);

  if (format === 'csv' && options.mapping === undefined) {
    throw new ImportMisuse(
      `${name} is read as CSV, which needs --mapping FILE: a mapping of its columns onto grant fields (see ` +
        `docs/cli.md, "Importing")`,
    );
  }
  if (packing === 'zip' && format !== 'grants-gov')
    throw new ImportMisuse(
      `${name} is a zip archive: only a Grants.gov extract is read from a zip (--format grants-gov)`,
    );
  if (source === '-' && (packing === 'zip' || format === 'grants-gov')) {
    throw new ImportMisuse(
      `a ${packing === 'zip' ? 'zip archive' : 'Grants.gov extract'} is read from a file (it is read twice, ` +
        `to keep the latest version of each opportunity), not from standard input`,
    );
  }

  let stdinUsed = false;
  const bytes = (): AsyncIterable<Buffer> => {
    if (stdin !== null) {
      if (stdinUsed) throw new ImportMisuse('standard input can be read only once; give the source as a file');
      stdinUsed = true;
      return packing === 'gzip' ? gunzip(stdin, name) : stdin;
    }
    const stream = createReadStream(source);
    return packing === 'gzip' ? gunzip(stream, name) : stream;
  };
  /** The source's texts: one, or each XML entry of a zip. */
  async function* texts(): AsyncGenerator<{ name: string; text: AsyncIterable<string> }> {
    if (packing === 'zip') {
      for await (const entry of xmlEntries(source)) yield { name: entry.name, text: utf8Text(entry.bytes, entry.name) };
    } else {
      yield { name, text: utf8Text(bytes(), name) };
    }
  }

  const zone = options.timeZone ?? DEFAULT_TIME_ZONE;
  const records = (): AsyncGenerator<SourceRecord> => {
    if (format === 'csv') return csvRecords(texts, options.mapping!);
    if (format === 'grants-gov') return grantsGovRecords(texts, options.note ?? (() => {}));
    if (format === 'commongrants') return commonGrantsRecords(texts, zone);
    return jsonRecords(texts, zone);
  };
  return { format, packing, reason: guess?.reason ?? null, records };
}

type Texts = () => AsyncGenerator<{ name: string; text: AsyncIterable<string> }>;

async function* jsonRecords(texts: Texts, zone: string): AsyncGenerator<SourceRecord> {
  for await (const { text } of texts()) for await (const record of readSource(text)) yield withDayDates(record, zone);
}

async function* csvRecords(texts: Texts, plan: MappingPlan): AsyncGenerator<SourceRecord> {
  for await (const { name, text } of texts()) yield* readCsv(text, plan, name);
}

/** CommonGrants opportunities, each mapped into a grant (formats/commonGrants.ts). */
async function* commonGrantsRecords(texts: Texts, zone: string): AsyncGenerator<SourceRecord> {
  let number = 0;
  for await (const { name, text } of texts()) {
    for await (const { value } of readOpportunities(text, name)) {
      number += 1;
      const mapped = mapCommonGrantsOpportunity(value, zone);
      const where = mapped.uuid === null ? `opportunity ${number}` : `opportunity ${mapped.uuid}`;
      yield mapped.value === null
        ? { number, where, raw: value, id: mapped.id, problems: mapped.problems }
        : { number, where, raw: value, value: mapped.value };
    }
  }
}

/**
 * The extract read twice: first to find the winning record of each opportunity (the latest
 * Version, see rankOf), then to map the winners, in the file's order.
 */
async function* grantsGovRecords(texts: Texts, note: (line: string) => void): AsyncGenerator<SourceRecord> {
  const winners = new Map<string, { rank: number[]; ordinal: number }>();
  let ordinal = 0;
  for await (const { name, text } of texts()) {
    for await (const record of readExtract(text, name)) {
      ordinal += 1;
      const id = record.fields.get('OpportunityID')?.[0]?.trim();
      if (record.kind === null || id === undefined || id === '') continue;
      const rank = rankOf(record.kind, record.fields);
      const best = winners.get(id);
      if (best === undefined || outranks(rank, best.rank)) winners.set(id, { rank, ordinal });
    }
  }
  ordinal = 0;
  let number = 0;
  let superseded = 0;
  for await (const { name, text } of texts()) {
    for await (const record of readExtract(text, name)) {
      ordinal += 1;
      const id = record.fields.get('OpportunityID')?.[0]?.trim();
      const raw = Object.fromEntries([...record.fields].map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
      if (id !== undefined && id !== '' && record.kind !== null && winners.get(id)?.ordinal !== ordinal) {
        superseded += 1;
        continue;
      }
      number += 1;
      const where = id === undefined || id === '' ? `${record.name} record ${record.ordinal}` : `OpportunityID ${id}`;
      if (record.kind === null) {
        yield {
          number,
          where,
          raw,
          id: null,
          problems: [
            {
              field: '(record)',
              reason:
                `a ${record.name} element is not an opportunity record (OpportunitySynopsisDetail_1_0 or ` +
                `OpportunityForecastDetail_1_0)`,
            },
          ],
        };
        continue;
      }
      if (record.oversized) {
        yield {
          number,
          where,
          raw: null,
          id: null,
          problems: [{ field: '(record)', reason: 'is longer than 1,000,000 characters' }],
        };
        continue;
      }
      const mapped = mapOpportunity(record.kind, record.fields);
      yield mapped.value === null
        ? { number, where, raw, id: id === undefined ? null : `grants-gov-${id}`, problems: mapped.problems }
        : { number, where, raw, value: mapped.value };
    }
  }
  if (superseded > 0)
    note(`grants-gov: ${superseded} older version(s) of opportunities skipped (the latest Version of each wins)`);
}
