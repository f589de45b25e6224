// The formats of GET /grants/export: NDJSON (one grant's JSON per line) and CSV (RFC 4180, a header
// row of field names, list fields joined with "|", the source in three columns source.name,
// source.id and source.url, cells a spreadsheet would run as a formula neutralised as OWASP
// recommends). Pure: grants in, text out.
import { SERVED_FIELDS, type ServedGrant } from '../../grants/schema.js';

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** What a list field's values are joined with in a CSV cell. */
export const CSV_LIST_SEPARATOR = '|';

/**
 * A grant's JSON text with only `fields` (id first, canonical order); the text unchanged when every field is wanted.
 */
export function projectGrantJson(json: string, fields: readonly (keyof ServedGrant)[] | null): string {
  if (fields === null) return json;
  const grant = JSON.parse(json) as ServedGrant;
  return JSON.stringify(Object.fromEntries(fields.map((field) => [field, grant[field]])));
}

/** The NDJSON lines of a batch of grants (each line ends with \n). */
export function ndjsonLines(grantsJson: readonly string[], fields: readonly (keyof ServedGrant)[] | null): string {
  let text = '';
  for (const json of grantsJson) text += `${projectGrantJson(json, fields)}\n`;
  return text;
}

/** Characters that make a spreadsheet read a cell as a formula when they open it (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell: a value that starts like a formula gets a leading apostrophe (so a spreadsheet
 * shows it as text); a cell holding a comma, quote, CR or LF, or neutralised, is quoted with its
 * quotes doubled (RFC 4180).
 */
export function csvCell(text: string): string {
  const neutralised = FORMULA_START.test(text);
  const value = neutralised ? `'${text}` : text;
  return neutralised || /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A field's value as cell text: null empty, lists joined with "|", numbers and booleans as JSON writes them. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => String(item)).join(CSV_LIST_SEPARATOR);
  return String(value);
}

/** The columns of a CSV export: the fields asked for, or every field, in canonical order. */
export const csvColumns = (fields: readonly (keyof ServedGrant)[] | null): readonly (keyof ServedGrant)[] =>
  fields ?? SERVED_FIELDS;

/** The nested source's columns: one per key. */
const SOURCE_KEYS = ['name', 'id', 'url'] as const;

/** A field's CSV columns: its name, or for the source one column per key (source.name, source.id, source.url). */
const headersOf = (field: keyof ServedGrant): string[] =>
  field === 'source' ? SOURCE_KEYS.map((key) => `source.${key}`) : [field];

/** A field's cells in a row. */
function cellsOf(grant: ServedGrant, field: keyof ServedGrant): string[] {
  if (field !== 'source') return [csvCell(cellText(grant[field]))];
  const source = grant.source;
  return SOURCE_KEYS.map((key) => csvCell(cellText(source === null ? null : source[key])));
}

/** The header row (CRLF-terminated). */
export const csvHeader = (columns: readonly (keyof ServedGrant)[]): string =>
  `${columns
    .flatMap(headersOf)
    .map((c) => csvCell(c))
    .join(',')}\r\n`;

/** The CSV rows of a batch of grants (each CRLF-terminated). */
export function csvRows(grantsJson: readonly string[], columns: readonly (keyof ServedGrant)[]): string {
  let text = '';
  for (const json of grantsJson) {
    const grant = JSON.parse(json) as ServedGrant;
    text += `${columns.flatMap((column) => cellsOf(grant, column)).join(',')}\r\n`;
  }
  return text;
}
