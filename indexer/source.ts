// Reads source records as a stream: NDJSON (one object a line) or one JSON array, from a file or stdin.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';

export interface SourceRecord {
  /** 1-based position of the record in the source. */
  number: number;
  /**
   * Where the record is in the source, in words ("line 12", "OpportunityID 350123"), when the position is not enough.
   */
  where?: string;
  value?: unknown;
  /** Why the record could not be read as JSON. */
  error?: string;
  /** Why an importer could not map the record into a grant (each field at once). */
  problems?: { field: string; reason: string }[];
  /** The record's grant id, when known, for the report of a record with problems. */
  id?: string | null;
  /**
   * The record as the source holds it (a CSV row, a Grants.gov record, the text of a line that is not JSON), for the
   * rejects report; absent for a record longer than MAX_RECORD_CHARS.
   */
  raw?: unknown;
}

/** A single record larger than this is rejected rather than buffered. */
export const MAX_RECORD_CHARS = 1_000_000;

export function openSource(source: string): Readable {
  return source === '-' ? process.stdin : createReadStream(source);
}

function parse(number: number, text: string): SourceRecord {
  if (text.length > MAX_RECORD_CHARS) return { number, error: `record longer than ${MAX_RECORD_CHARS} characters` };
  try {
    return { number, value: JSON.parse(text) };
  } catch (error) {
    return { number, error: `not valid JSON (${(error as Error).message})`, raw: text };
  }
}

/**
 * Yields records one at a time, whatever the format: the first non-blank character decides
 * between a JSON array and NDJSON. Memory stays bounded by one record.
 */
export async function* readSource(input: AsyncIterable<string>): AsyncGenerator<SourceRecord> {
  let mode: 'unknown' | 'ndjson' | 'array' | 'done' = 'unknown';
  let number = 0;
  // NDJSON state
  let line = '';
  // JSON array state
  let element = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let overflow = false;
  /** Whether a top-level comma was seen: "[]" is an empty array, "[1,]" and "[1,,2]" are not JSON. */
  let sawComma = false;

  const endElement = (closing: boolean): SourceRecord | null => {
    const text = element.trim();
    const wasOverflow = overflow;
    element = '';
    overflow = false;
    if (text === '' && !wasOverflow) {
      if (closing && !sawComma) return null;
      number += 1;
      return {
        number,
        error: closing
          ? 'not valid JSON (a trailing comma before "]")'
          : 'not valid JSON (an empty element between commas)',
      };
    }
    number += 1;
    return wasOverflow ? { number, error: `record longer than ${MAX_RECORD_CHARS} characters` } : parse(number, text);
  };

  for await (let chunk of input) {
    let start = 0;
    if (mode === 'unknown') {
      if (number === 0 && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1); // a UTF-8 byte-order mark
      const first = chunk.search(/\S/);
      if (first === -1) continue;
      mode = chunk[first] === '[' ? 'array' : 'ndjson';
      if (mode === 'array') start = first + 1;
    }
    if (mode === 'ndjson') {
      const parts = (line + chunk).split('\n');
      line = parts.pop() ?? '';
      for (const part of parts) {
        if (part.trim() === '') continue;
        number += 1;
        yield parse(number, part);
      }
      if (line.length > MAX_RECORD_CHARS) {
        // Keep counting the oversized line but stop buffering it.
        line = line.slice(0, MAX_RECORD_CHARS + 1);
      }
      continue;
    }
    if (mode !== 'array') continue;
    const records: SourceRecord[] = [];
    let from = start;
    for (let i = start; i < chunk.length; i += 1) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth += 1;
      else if (c === '}' || c === ']') {
        if (depth === 0 && c === ']') {
          element += chunk.slice(from, i);
          const record = endElement(true);
          if (record) records.push(record);
          mode = 'done';
          break;
        }
        depth -= 1;
      } else if (c === ',' && depth === 0) {
        element += chunk.slice(from, i);
        from = i + 1;
        const record = endElement(false);
        sawComma = true;
        if (record) records.push(record);
      }
    }
    if (mode === 'array') {
      if (!overflow) element += chunk.slice(from);
      if (element.length > MAX_RECORD_CHARS) {
        overflow = true;
        element = '';
      }
    }
    yield* records;
  }
  if (mode === 'ndjson' && line.trim() !== '') {
    number += 1;
    yield parse(number, line);
  }
  if (mode === 'array') {
    number += 1;
    yield { number, error: 'the JSON array is not closed (source truncated?)' };
  }
}
