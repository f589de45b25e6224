// Query-string parameters: raw parsing (every array encoding) and declarative validation with ajv.
import { Ajv, type ErrorObject } from 'ajv';
import { validationError, type ErrorDetail } from '../errors.js';

const MAX_QUERY_PARAMETERS = 50;
const MAX_ARRAY_VALUES = 20;

/**
 * How many distinct values a list parameter takes: 20, or every allowed value where a list (such as `fields`) has more.
 */
export const maxListValues = (values: readonly string[]): number => Math.max(MAX_ARRAY_VALUES, values.length);

/**
 * What a parameter means, for partners: one line (what it does, not only its rule; the OpenAPI
 * document appends the rule) and an example value, as the parameter's schema types it (a list as
 * an array). The one set of descriptions: the OpenAPI document reads them from here.
 */
interface ParamDoc {
  description: string;
  example: string | number | boolean | readonly string[];
  /**
   * false: the OpenAPI document gives the example in the description instead of as the
   * parameter's `example`, which reference pages (/docs) fill in and send with every other
   * example: for a value that cannot go with them (a cursor excludes `page`; a list cursor
   * leads past the example page).
   */
  fillIn?: false;
  /** true: a request without the parameter is refused ("is required"). */
  required?: true;
}

/** One parameter of an endpoint, as partners see it. */
export type ParamSpec = ParamDoc &
  /**
   * `max` refuses larger values (a 400); `clampAbove` serves them as that value instead (the
   * paged endpoints' `limit`: above the maximum it is clamped, and `pagination.limit` says so).
   */
  (
    | { kind: 'integer'; min: number; max?: number; clampAbove?: number; default?: number; message: string }
    | { kind: 'number'; min: number; max?: number; message: string }
    | { kind: 'string'; maxLength: number; message: string }
    | { kind: 'boolean' }
    /** A date (YYYY-MM-DD) or a UTC date-time (…T…Z) → epoch ms; a date is its first or last millisecond. */
    | { kind: 'date'; dayEdge: 'start' | 'end' }
    | { kind: 'enum'; values: readonly string[] }
    | { kind: 'enumArray'; values: readonly string[] }
  );

export type ParamSpecs = Record<string, ParamSpec>;

/**
 * The parameters of a query string: name → values in the order given, the bracketed form
 * (`a[]=x`, `a[0]=x`) filed under its base name. It remembers what a validator must refuse
 * although it decodes to something: names written bracketed, and parameters whose name or value
 * is not valid percent-encoding (filed under the name as far as it decodes).
 */
export class QueryParameters extends Map<string, string[]> {
  readonly bracketed = new Set<string>();
  readonly malformed = new Set<string>();
}

/** decodeURIComponent of a query-string component ("+" is a space), or null when it is malformed. */
function decodeComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * Splits a raw query string into parameter name → list of values, normalising the bracketed
 * form (`a[]=x`, `a[0]=x`) to its base name. Order of values is kept. A malformed
 * percent-encoding (`%zz`, a cut or invalid UTF-8 sequence) is recorded, never guessed at.
 */
export function parseQueryString(raw: string): QueryParameters {
  const result = new QueryParameters();
  let count = 0;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    count += 1;
    if (count > MAX_QUERY_PARAMETERS) {
      throw validationError([
        { parameter: '(query)', message: `must have at most ${MAX_QUERY_PARAMETERS} parameters` },
      ]);
    }
    const equals = part.indexOf('=');
    const rawName = equals === -1 ? part : part.slice(0, equals);
    const decodedName = decodeComponent(rawName);
    const value = equals === -1 ? '' : decodeComponent(part.slice(equals + 1));
    const fullName = decodedName ?? rawName;
    const name = fullName.replace(/\[\d*\]$/, '');
    if (name !== fullName) result.bracketed.add(name);
    if (decodedName === null || value === null) result.malformed.add(name);
    const values = result.get(name);
    if (values) values.push(value ?? '');
    else result.set(name, [value ?? '']);
  }
  return result;
}

/** Plain decimal digits, at most 15 before the point (exact as a double) and 6 after it. */
const INTEGER = /^\d{1,15}$/;
const DECIMAL = /^\d{1,15}(\.\d{1,6})?$/;
/** Digits that would be a number but for their size: more than 15 significant digits before any point. */
const TOO_LARGE = /^0*[1-9]\d{15,}(\.\d+)?$/;

/** A date, or a date-time in UTC with optional milliseconds: the only two forms accepted. */
export const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z)?$/;
const DAY_MS = 86_400_000;

/** The epoch milliseconds of a date or UTC date-time, or null unless it is a real calendar instant. */
export function parseDateParam(text: string, dayEdge: 'start' | 'end'): number | null {
  const m = DATE_PATTERN.exec(text);
  if (m === null) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1000) return null;
  const dayStart = Date.UTC(year, month - 1, day);
  const back = new Date(dayStart);
  // Date.UTC rolls 2026-02-30 over into March: the day must come back as written.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  if (m[4] === undefined) return dayEdge === 'start' ? dayStart : dayStart + DAY_MS - 1;
  const [hours, minutes, seconds] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  return dayStart + ((hours * 60 + minutes) * 60 + seconds) * 1000 + Number((m[7] ?? '0').padEnd(3, '0'));
}

export const DATE_MESSAGE =
  'must be a date YYYY-MM-DD or a UTC date-time YYYY-MM-DDTHH:MM:SS[.sss]Z that exists in the calendar (year ' +
  '1000 or later)';

function schemaOf(spec: ParamSpec): object {
  switch (spec.kind) {
    case 'integer':
      return { type: 'integer', minimum: spec.min, ...(spec.max === undefined ? {} : { maximum: spec.max }) };
    case 'number':
      return { type: 'number', minimum: spec.min, ...(spec.max === undefined ? {} : { maximum: spec.max }) };
    case 'string':
      return { type: 'string', maxLength: spec.maxLength };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'integer' };
    case 'enum':
      return { type: 'string', enum: [...spec.values] };
    case 'enumArray':
      return { type: 'array', maxItems: maxListValues(spec.values), items: { type: 'string', enum: [...spec.values] } };
  }
}

export type ParamValues = Record<string, number | string | boolean | string[] | undefined>;

interface ParamValidator {
  (query: Map<string, string[]>): ParamValues;
}

/** Checks across parameters, run on the parameters that are valid on their own. */
type CrossCheck = (valid: ParamValues) => ErrorDetail[];

/** Echoes a partner's input in a message, bounded. */
export const clip = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

const ajv = new Ajv({ allErrors: true, strict: true });

/**
 * Builds the validator of one endpoint's parameters. It lists every problem: unknown
 * parameters, malformed percent-encodings, scalars given twice or bracketed, wrong types,
 * numbers too large to be exact, out-of-range numbers, values outside an enum.
 */
export function paramValidator(specs: ParamSpecs, crossCheck: CrossCheck = () => []): ParamValidator {
  const validate = ajv.compile({
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, schemaOf(spec)])),
  });
  const known = Object.keys(specs);

  const messageFor = (error: ErrorObject, name: string, value: unknown): string => {
    const spec = specs[name];
    switch (spec.kind) {
      case 'boolean':
        return 'must be true or false (lower case)';
      case 'date':
        return DATE_MESSAGE;
      case 'enum':
        return `"${clip(String(value))}" is not one of ${spec.values.join(', ')}`;
      case 'enumArray': {
        if (error.keyword === 'maxItems') return `accepts at most ${maxListValues(spec.values)} distinct values`;
        const bad = (value as string[]).filter((v) => !spec.values.includes(v)).map((v) => `"${clip(v)}"`);
        return `${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not one of ${spec.values.join(', ')}`;
      }
      default:
        return spec.message;
    }
  };

  /** A scalar's text as the schema checks it, or a problem found before the schema. */
  const scalarInput = (spec: ParamSpec, text: string): { value: unknown } | { problem: string } => {
    switch (spec.kind) {
      case 'string':
      case 'enum':
        return { value: text };
      case 'boolean':
        return { value: text === 'true' ? true : text === 'false' ? false : text };
      case 'date':
        return { value: parseDateParam(text, spec.dayEdge) ?? text };
      default: {
        const raw = text.trim();
        if (TOO_LARGE.test(raw))
          return { problem: 'is too large: a number here has at most 15 digits before the decimal point' };
        return { value: (spec.kind === 'integer' ? INTEGER : DECIMAL).test(raw) ? Number(raw) : raw };
      }
    }
  };

  return (query) => {
    const details: ErrorDetail[] = [];
    const input: Record<string, unknown> = {};
    const { bracketed, malformed } = query instanceof QueryParameters ? query : new QueryParameters();
    for (const [name, values] of query) {
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (malformed.has(name)) {
        details.push({
          parameter: clip(name),
          message: 'is not valid percent-encoding (write "%" as %25, and encode text as UTF-8)',
        });
      } else if (spec === undefined) {
        details.push({
          parameter: clip(name),
          message:
            known.length > 0
              ? `is not a parameter of this endpoint (allowed: ${known.join(', ')})`
              : 'is not a parameter of this endpoint, which takes none',
        });
      } else if (spec.kind === 'enumArray') {
        input[name] = [
          ...new Set(
            values
              .flatMap((v) => v.split(','))
              .map((v) => v.trim())
              .filter((v) => v !== ''),
          ),
        ];
      } else if (values.length > 1) {
        details.push({ parameter: name, message: 'must be given once' });
      } else if (bracketed.has(name)) {
        details.push({ parameter: name, message: `takes one value, not a list: write ${name}=…, not ${name}[]=…` });
      } else {
        const checked = scalarInput(spec, values[0]);
        if ('problem' in checked) details.push({ parameter: name, message: checked.problem });
        else input[name] = checked.value;
      }
    }
    const invalid = new Set<string>(details.map((d) => d.parameter));
    if (!validate(input)) {
      for (const error of validate.errors ?? []) {
        const name = error.instancePath.split('/')[1];
        if (name === undefined || invalid.has(name)) continue;
        invalid.add(name);
        details.push({ parameter: name, message: messageFor(error, name, input[name]) });
      }
    }
    for (const [name, value] of Object.entries(input)) {
      const spec = specs[name];
      if (
        !invalid.has(name) &&
        spec?.kind === 'integer' &&
        spec.clampAbove !== undefined &&
        typeof value === 'number' &&
        value > spec.clampAbove
      ) {
        input[name] = spec.clampAbove;
      }
    }
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.required === true && !invalid.has(name) && input[name] === undefined)
        details.push({ parameter: name, message: 'is required' });
    }
    const valid = Object.fromEntries(Object.entries(input).filter(([name]) => !invalid.has(name))) as ParamValues;
    details.push(...crossCheck(valid));
    if (details.length > 0) throw validationError(details);
    return input as ParamValues;
  };
}
