// The mapping of a CSV file onto grants: which column feeds each field, the value maps of the
// enumerations, list separators, date and number formats. Pure: the mapping's JSON in, a checked
// mapping out; a row's cells in, a grant record (or every problem of the row) out.
import { Ajv } from 'ajv';
import { grantSchema, type Grant } from '../../src/grants/schema.js';
import { dayIn, dayPattern, DEFAULT_TIME_ZONE, endOfDay, isoDay, isTimeZone, startOfDay } from '../dates.js';

type Scalar = string | number | boolean | null;
type Mapped = Scalar | string[];

interface NumberFormat {
  /** The decimal mark: "." (default) or ",". */
  decimal?: '.' | ',';
  /** The thousands separator: "," (default), ".", " " or "" (none). */
  thousands?: ',' | '.' | ' ' | "'" | '';
}

interface FieldMapping {
  /** The header of the column that feeds the field. */
  column?: string;
  /** A value for every row (instead of a column). */
  value?: Mapped;
  /** Cell text → value, looked up without regard to case or surrounding spaces ("Non-profit" → "NON_PROFIT"). */
  values?: Record<string, Mapped>;
  /** Lists: what separates the items in a cell (default: the mapping's listSeparator). */
  separator?: string;
  /** Dates: "ISO" (ISO 8601, date-only allowed) or a day pattern such as "DD/MM/YYYY". */
  dateFormat?: string;
  /** Dates: the time zone of a date-only date. */
  timeZone?: string;
  /** Numbers: the marks used ("1 500,00 $": decimal ",", thousands " "). */
  number?: NumberFormat;
}

interface CsvMapping {
  /** The character between cells (default ","). */
  delimiter?: string;
  /** The time zone of date-only dates (default America/Toronto). */
  timeZone?: string;
  /** The date format of every date column (default "ISO"). */
  dateFormat?: string;
  /** What separates list items in a cell (default "|"). */
  listSeparator?: string;
  /** The number format of every amount column. */
  number?: NumberFormat;
  /**
   * Cells a spreadsheet export guarded against formulas ("'=…", "'+…", "'-…", "'@…") are read without the apostrophe.
   */
  unescapeFormulas?: boolean;
  /** Grant field → the column that feeds it (its header), or a FieldMapping. */
  fields: Record<string, string | FieldMapping>;
}

type Kind = 'text' | 'enum' | 'list' | 'number' | 'date' | 'boolean';

interface Property {
  type?: string;
  enum?: unknown[];
  format?: string;
  items?: { enum?: unknown[] };
  properties?: Record<string, Property>;
}

type FieldKind = { kind: Kind; allowed: readonly string[] };

function kindsOf(field: string, p: Property): [string, FieldKind][] {
  if (p.type === 'object')
    return Object.entries(p.properties ?? {}).flatMap(([key, nested]) => kindsOf(`${field}.${key}`, nested));
  if (p.type === 'array') return [[field, { kind: 'list', allowed: (p.items?.enum ?? []) as string[] }]];
  if (p.type === 'number') return [[field, { kind: 'number', allowed: [] }]];
  if (p.type === 'boolean') return [[field, { kind: 'boolean', allowed: [] }]];
  if (p.format === 'date-time') return [[field, { kind: 'date', allowed: [] }]];
  if (p.enum !== undefined) return [[field, { kind: 'enum', allowed: p.enum.filter((v) => v !== null) as string[] }]];
  if (p.type === 'string') return [[field, { kind: 'text', allowed: [] }]];
  return [];
}

/** The kind of each field the Grant schema has (an object's keys as "source.name"…), and its allowed values. */
const FIELD_KINDS: ReadonlyMap<string, FieldKind> = new Map(
  Object.entries(grantSchema.properties as Record<string, Property>).flatMap(([field, p]) => kindsOf(field, p)),
);

const numberFormat = {
  type: 'object',
  additionalProperties: false,
  properties: { decimal: { enum: ['.', ','] }, thousands: { enum: [',', '.', ' ', "'", ''] } },
};
const mapped = { type: ['string', 'number', 'boolean', 'null', 'array'], items: { type: 'string' } };

const mappingSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['fields'],
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string' },
    delimiter: { type: 'string', minLength: 1, maxLength: 1 },
    timeZone: { type: 'string' },
    dateFormat: { type: 'string', minLength: 1, maxLength: 40 },
    listSeparator: { type: 'string', minLength: 1, maxLength: 10 },
    number: numberFormat,
    unescapeFormulas: { type: 'boolean' },
    fields: {
      type: 'object',
      minProperties: 1,
      additionalProperties: {
        anyOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'object',
            additionalProperties: false,
            properties: {
              column: { type: 'string', minLength: 1 },
              value: mapped,
              values: { type: 'object', additionalProperties: mapped },
              separator: { type: 'string', minLength: 1, maxLength: 10 },
              dateFormat: { type: 'string', minLength: 1, maxLength: 40 },
              timeZone: { type: 'string' },
              number: numberFormat,
            },
          },
        ],
      },
    },
  },
};

const validateMapping = new Ajv({ allErrors: true, strict: false }).compile<CsvMapping>(mappingSchema);

/** One field as the mapping says to fill it, checked. */
interface FieldPlan {
  field: string;
  kind: Kind;
  allowed: readonly string[];
  column: string | null;
  constant: Mapped | undefined;
  values: Map<string, Mapped> | null;
  separator: string;
  day: RegExp | null;
  /** The date format as the mapping wrote it. */
  dateFormat: string;
  timeZone: string;
  number: Required<NumberFormat>;
}

export interface MappingPlan {
  delimiter: string;
  unescapeFormulas: boolean;
  fields: FieldPlan[];
  /** The columns the mapping reads. */
  columns: string[];
}

const key = (text: string): string => text.trim().toLowerCase();

/** Checks a mapping (parsed JSON) and plans each field; throws an Error listing every problem. */
export function planMapping(json: unknown): MappingPlan {
  if (!validateMapping(json)) {
    const problems = (validateMapping.errors ?? []).map(
      (e) => `${e.instancePath || '(mapping)'} ${e.message ?? 'is invalid'}`,
    );
    throw new Error(`the mapping is not valid: ${[...new Set(problems)].join('; ')}`);
  }
  const mapping = json;
  const problems: string[] = [];
  const zoneOf = (zone: string | undefined, where: string): string => {
    const chosen = zone ?? mapping.timeZone ?? DEFAULT_TIME_ZONE;
    if (!isTimeZone(chosen))
      problems.push(`${where}: "${chosen}" is not a time zone (an IANA name such as America/Toronto)`);
    return chosen;
  };
  zoneOf(undefined, 'timeZone');
  const fields: FieldPlan[] = [];
  for (const [field, raw] of Object.entries(mapping.fields)) {
    const known = FIELD_KINDS.get(field);
    if (known === undefined) {
      problems.push(`fields.${field}: is not a field of a grant (${[...FIELD_KINDS.keys()].join(', ')})`);
      continue;
    }
    const spec: FieldMapping = typeof raw === 'string' ? { column: raw } : raw;
    if ((spec.column === undefined) === (spec.value === undefined)) {
      problems.push(`fields.${field}: needs either "column" or "value"`);
      continue;
    }
    const dateFormat = spec.dateFormat ?? mapping.dateFormat ?? 'ISO';
    const day = dateFormat === 'ISO' ? null : dayPattern(dateFormat);
    if (dateFormat !== 'ISO' && day === null)
      problems.push(
        `fields.${field}: dateFormat "${dateFormat}" needs YYYY, MM (or M) and DD (or D) once each, or "ISO"`,
      );
    fields.push({
      field,
      kind: known.kind,
      allowed: known.allowed,
      column: spec.column ?? null,
      constant: spec.value,
      values: spec.values === undefined ? null : new Map(Object.entries(spec.values).map(([k, v]) => [key(k), v])),
      separator: spec.separator ?? mapping.listSeparator ?? '|',
      day,
      dateFormat,
      timeZone: zoneOf(spec.timeZone, `fields.${field}.timeZone`),
      number: { decimal: '.', thousands: ',', ...mapping.number, ...spec.number },
    });
  }
  if (problems.length > 0) throw new Error(`the mapping is not valid: ${problems.join('; ')}`);
  return {
    delimiter: mapping.delimiter ?? ',',
    unescapeFormulas: mapping.unescapeFormulas ?? false,
    fields,
    columns: fields.flatMap((f) => (f.column === null ? [] : [f.column])),
  };
}

/** The columns a mapping reads that the header lacks. */
export const missingColumns = (plan: MappingPlan, header: readonly string[]): string[] =>
  plan.columns.filter((c) => !header.includes(c));

const FORMULA_GUARD = /^'[=+\-@\t\r]/;
const CURRENCY = /^(?:CA\$|US\$|C\$|\$|€|£|CAD|USD|EUR)\s*|\s*(?:CA\$|US\$|C\$|\$|€|£|CAD|USD|EUR)$/gi;

/** "$1,500.00" → 1500; "1 500,00 $" with decimal "," and thousands " " → 1500; null when not a number. */
export function parseAmount(text: string, format: Required<NumberFormat>): number | null {
  let t = text
    .replace(/[\u00a0\u202f]/g, ' ')
    .trim()
    .replace(CURRENCY, '')
    .trim();
  if (format.thousands !== '') {
    const group = format.thousands === ' ' ? ' ' : format.thousands.replace(/[.]/g, '\\.');
    if (new RegExp(`^-?\\d{1,3}(?:${group}\\d{3})+(?:${format.decimal === '.' ? '\\.' : ','}\\d+)?$`).test(t))
      t = t.split(format.thousands).join('');
  }
  if (format.decimal === ',') t = t.replace(',', '.');
  if (!/^-?\d+(?:\.\d+)?$/.test(t)) return null;
  return Number(t);
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'oui', 'o', 'vrai']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'non', 'faux']);
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

type Problem = { field: string; reason: string };

/** A date cell as an ISO instant: a date-only deadline is the end of its day, any other date-only date its start. */
function dateOf(text: string, plan: FieldPlan): string | Problem {
  if (ISO_DATE_TIME.test(text)) return text;
  const day = plan.day === null ? isoDay(text) : dayIn(text, plan.day);
  if (day === null) {
    const wanted =
      plan.day === null
        ? 'an ISO 8601 date (2027-01-15) or date-time'
        : `a date in the mapping's format (${plan.dateFormat})`;
    return { field: plan.field, reason: `"${text}" is not ${wanted}` };
  }
  return plan.field === 'deadline' ? endOfDay(day, plan.timeZone) : startOfDay(day, plan.timeZone);
}

/** One value (a whole cell, or one item of a list) through the value map, then checked against the field's values. */
function mapValue(text: string, plan: FieldPlan, column: string): { value: Mapped } | Problem {
  const mappedValue = plan.values?.get(key(text));
  if (mappedValue !== undefined) return { value: mappedValue };
  if (plan.allowed.length === 0) return { value: text };
  const canonical = plan.allowed.find((a) => a.toLowerCase() === key(text));
  if (canonical !== undefined) return { value: canonical };
  const known =
    plan.values === null
      ? ''
      : ` or one of the mapping's values for it (${[...plan.values.keys()].map((k) => `"${k}"`).join(', ')})`;
  return {
    field: plan.field,
    reason: `unknown value "${text}" in column "${column}": not one of ${plan.allowed.join(', ')}${known}`,
  };
}

function cellValue(cell: string, plan: FieldPlan, column: string): { value: unknown } | Problem {
  const text = cell.trim();
  if (plan.kind === 'list') {
    const items: string[] = [];
    for (const part of text === '' ? [] : text.split(plan.separator)) {
      if (part.trim() === '') continue;
      const one = mapValue(part.trim(), plan, column);
      if ('reason' in one) return one;
      if (one.value === null) continue;
      for (const item of Array.isArray(one.value) ? one.value : [String(one.value)])
        if (!items.includes(item)) items.push(item);
    }
    return { value: items };
  }
  if (text === '') {
    const empty = plan.values?.get('');
    return { value: empty === undefined ? null : empty };
  }
  if (plan.kind === 'enum' || plan.kind === 'text') return mapValue(plan.kind === 'text' ? cell : text, plan, column);
  const mappedValue = plan.values?.get(key(text));
  if (mappedValue !== undefined) return { value: mappedValue };
  if (plan.kind === 'number') {
    const amount = parseAmount(text, plan.number);
    return amount === null
      ? { field: plan.field, reason: `"${text}" in column "${column}" is not a number` }
      : { value: amount };
  }
  if (plan.kind === 'boolean') {
    if (TRUE_WORDS.has(key(text))) return { value: true };
    if (FALSE_WORDS.has(key(text))) return { value: false };
    return { field: plan.field, reason: `"${text}" in column "${column}" is not true or false (nor yes, no, 1, 0)` };
  }
  const date = dateOf(text, plan);
  return typeof date === 'string' ? { value: date } : { ...date, reason: `${date.reason} (column "${column}")` };
}

/**
 * Keys such as "source.name" gathered into their object ("source"), its keys the mapping does not
 * fill null; an object whose values are all null is null.
 */
function nest(value: Record<string, unknown>): void {
  const objects = new Set<string>();
  for (const key of Object.keys(value)) {
    const dot = key.indexOf('.');
    if (dot < 0) continue;
    const outer = key.slice(0, dot);
    if (!objects.has(outer)) {
      objects.add(outer);
      value[outer] = Object.fromEntries(
        [...FIELD_KINDS.keys()].filter((k) => k.startsWith(`${outer}.`)).map((k) => [k.slice(outer.length + 1), null]),
      );
    }
    (value[outer] as Record<string, unknown>)[key.slice(dot + 1)] = value[key];
    delete value[key];
  }
  for (const outer of objects) if (Object.values(value[outer] as object).every((v) => v === null)) value[outer] = null;
}

type MappedRow = { value: Partial<Record<keyof Grant, unknown>>; problems: [] } | { value: null; problems: Problem[] };

/** One row (header → cell) as a grant record, or every problem the mapping met in it. */
export function mapRow(row: ReadonlyMap<string, string>, plan: MappingPlan): MappedRow {
  const value: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const field of plan.fields) {
    if (field.column === null) {
      value[field.field] = field.constant;
      continue;
    }
    let cell = row.get(field.column) ?? '';
    if (plan.unescapeFormulas && FORMULA_GUARD.test(cell)) cell = cell.slice(1);
    const result = cellValue(cell, field, field.column);
    if ('reason' in result) problems.push(result);
    else value[field.field] = result.value;
  }
  nest(value);
  return problems.length > 0
    ? { value: null, problems }
    : { value: value as MappedRow['value'] & object, problems: [] };
}
