// The Grants.gov XML extract as a stream of records (saxes): a root (Grants) whose children are
// OpportunitySynopsisDetail_1_0 and OpportunityForecastDetail_1_0 records of flat elements.
// Malformed XML is unreadable, naming its line and the last OpportunityID read.
import { SaxesParser } from 'saxes';
import { MAX_RECORD_CHARS } from '../source.js';
import { SourceUnreadable } from './bytes.js';
import { FORECAST, SYNOPSIS, type RecordKind } from './grantsGov.js';

interface ExtractRecord {
  /** 1-based position among the root's children. */
  ordinal: number;
  /** The element's name without its namespace prefix. */
  name: string;
  kind: RecordKind | null;
  fields: Map<string, string[]>;
  /** The record's text went over MAX_RECORD_CHARS: its fields were cut. */
  oversized: boolean;
}

const local = (name: string): string => name.slice(name.indexOf(':') + 1);

/** Yields the extract's records one at a time; memory stays bounded by one record. */
export async function* readExtract(text: AsyncIterable<string>, name: string): AsyncGenerator<ExtractRecord> {
  const parser = new SaxesParser({ position: true, fileName: name });
  let depth = 0;
  let ordinal = 0;
  let record: ExtractRecord | null = null;
  let field: string | null = null;
  let value = '';
  let size = 0;
  let lastId: string | null = null;
  let rootSeen = false;
  let failure: Error | null = null;
  const done: ExtractRecord[] = [];

  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    depth += 1;
    if (depth === 1) rootSeen = true;
    else if (depth === 2) {
      ordinal += 1;
      const kindName = local(tag.name);
      record = {
        ordinal,
        name: kindName,
        kind: kindName === SYNOPSIS || kindName === FORECAST ? kindName : null,
        fields: new Map(),
        oversized: false,
      };
      size = 0;
    } else if (depth === 3) {
      field = local(tag.name);
      value = '';
    }
  });
  const onText = (chunk: string) => {
    if (depth < 3 || record === null) return;
    size += chunk.length;
    if (size > MAX_RECORD_CHARS) record.oversized = true;
    else value += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    if (depth === 3 && record !== null && field !== null) {
      const values = record.fields.get(field);
      if (values === undefined) record.fields.set(field, [value]);
      else values.push(value);
      if (field === 'OpportunityID') lastId = value.trim();
      field = null;
    } else if (depth === 2 && record !== null) {
      done.push(record);
      record = null;
    }
    depth -= 1;
  });

  const malformed = (error: Error) =>
    new SourceUnreadable(
      `${name} is not well-formed XML: ` +
        `${error.message}${lastId === null ? '' : ` (the last OpportunityID read: ${lastId})`}`,
    );

  for await (const chunk of text) {
    parser.write(chunk);
    if (failure !== null) throw malformed(failure);
    yield* done.splice(0);
  }
  parser.close();
  if (failure !== null) throw malformed(failure);
  if (!rootSeen)
    throw new SourceUnreadable(
      `${name} holds no XML element: a Grants.gov extract has a Grants root holding opportunity records`,
    );
  yield* done.splice(0);
}
