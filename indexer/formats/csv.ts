// CSV through a mapping, as a stream (csv-parse): the header row names the columns, every other
// row becomes one source record. A ragged row or a cell the mapping cannot read is a rejected
// record naming its line; a file csv-parse cannot read on (an unclosed quote) is unreadable.
import { pipeline, Readable } from 'node:stream';
import { parse, type Info } from 'csv-parse';
import { MAX_RECORD_CHARS, type SourceRecord } from '../source.js';
import { SourceUnreadable } from './bytes.js';
import { mapRow, missingColumns, type MappingPlan } from './csvMapping.js';

const linesOf = (first: number, last: number): string => (first === last ? `line ${first}` : `lines ${first}–${last}`);

export async function* readCsv(
  text: AsyncIterable<string>,
  plan: MappingPlan,
  name: string,
): AsyncGenerator<SourceRecord> {
  const parser = parse({
    delimiter: plan.delimiter,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  // pipeline: an error of the text (bytes that are not UTF-8) reaches the parser, so the loop below throws it.
  pipeline(Readable.from(text), parser, () => {});
  let header: string[] | null = null;
  let number = 0;
  let lastLine = 0;
  let emptyLines = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      const first = lastLine + 1 + (info.empty_lines - emptyLines);
      lastLine = info.lines;
      emptyLines = info.empty_lines;
      if (header === null) {
        header = record.map((cell) => cell.trim());
        const missing = missingColumns(plan, header);
        if (missing.length > 0) {
          throw new SourceUnreadable(
            `${name} has no column ${missing.map((c) => `"${c}"`).join(', ')} that the mapping reads (its ` +
              `header: ${header.map((c) => `"${c}"`).join(', ')})`,
          );
        }
        continue;
      }
      number += 1;
      const where = linesOf(first, info.lines);
      const raw = Object.fromEntries(header.map((column, i) => [column, record[i] ?? null]));
      if (record.length !== header.length) {
        yield {
          number,
          where,
          raw,
          id: null,
          problems: [{ field: '(row)', reason: `has ${record.length} cells where the header has ${header.length}` }],
        };
        continue;
      }
      const mapped = mapRow(new Map(header.map((column, i) => [column, record[i]])), plan);
      if (mapped.value === null) {
        const idColumn = plan.fields.find((f) => f.field === 'id')?.column;
        yield {
          number,
          where,
          raw,
          id: idColumn === undefined || idColumn === null ? null : (raw[idColumn] ?? null),
          problems: mapped.problems,
        };
      } else {
        yield { number, where, raw, value: mapped.value };
      }
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('CSV_')) {
      throw new SourceUnreadable(`${name} cannot be read as CSV after line ${lastLine}: ${(error as Error).message}`);
    }
    throw error;
  }
}
