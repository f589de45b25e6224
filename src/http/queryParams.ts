// Query-string parameters: raw parsing (every array encoding) and declarative validation with ajv.
import { Ajv, type ErrorObject } from 'ajv';
import { validationError, type ErrorDetail } from './errors.js';

export const MAX_QUERY_PARAMETERS = 50;
export const MAX_ARRAY_VALUES = 20;

/** One parameter of an endpoint, as partners see it. */
export type ParamSpec =
  | { kind: 'integer'; min: number; max?: number; message: string }
  | { kind: 'number'; min: number; max?: number; message: string }
  | { kind: 'string'; maxLength: number; message: string }
  | { kind: 'enumArray'; values: readonly string[] };

export type ParamSpecs = Record<string, ParamSpec>;

/**
 * Splits a raw query string into parameter name → list of values, normalising the bracketed
 * form (`a[]=x`, `a[0]=x`) to its base name. Order of values is kept.
 */
export function parseQueryString(raw: string): Map<string, string[]> {
  const params = new URLSearchParams(raw);
  const result = new Map<string, string[]>();
  let count = 0;
  for (const [rawName, value] of params) {
    count += 1;
    if (count > MAX_QUERY_PARAMETERS) {
      throw validationError([{ parameter: '(query)', message: `must have at most ${MAX_QUERY_PARAMETERS} parameters` }]);
    }
    const name = rawName.replace(/\[\d*\]$/, '');
    const values = result.get(name);
    if (values) values.push(value);
    else result.set(name, [value]);
  }
  return result;
}

const INTEGER = /^\d{1,15}$/;
const DECIMAL = /^\d{1,15}(\.\d{1,6})?$/;

function schemaOf(spec: ParamSpec): object {
  switch (spec.kind) {
    case 'integer':
      return { type: 'integer', minimum: spec.min, ...(spec.max === undefined ? {} : { maximum: spec.max }) };
    case 'number':
      return { type: 'number', minimum: spec.min, ...(spec.max === undefined ? {} : { maximum: spec.max }) };
    case 'string':
      return { type: 'string', maxLength: spec.maxLength };
    case 'enumArray':
      return { type: 'array', maxItems: MAX_ARRAY_VALUES, items: { type: 'string', enum: [...spec.values] } };
  }
}

export type ParamValues = Record<string, number | string | string[] | undefined>;

export interface ParamValidator {
  (query: Map<string, string[]>): ParamValues;
}

/** Checks across parameters, run on the parameters that are valid on their own. */
export type CrossCheck = (valid: ParamValues) => ErrorDetail[];

/** Echoes a partner's input in a message, bounded. */
export const clip = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

const ajv = new Ajv({ allErrors: true, strict: true });

/**
 * Builds the validator of one endpoint's parameters. It lists every problem: unknown
 * parameters, scalars given twice, wrong types, out-of-range numbers, values outside an enum.
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
    if (spec.kind !== 'enumArray') return spec.message;
    if (error.keyword === 'maxItems') return `accepts at most ${MAX_ARRAY_VALUES} values`;
    const bad = (value as string[]).filter((v) => !spec.values.includes(v)).map((v) => `"${clip(v)}"`);
    return `${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not one of ${spec.values.join(', ')}`;
  };

  return (query) => {
    const details: ErrorDetail[] = [];
    const input: Record<string, unknown> = {};
    for (const [name, values] of query) {
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (spec === undefined) {
        details.push({
          parameter: clip(name),
          message: known.length > 0 ? `is not a parameter of this endpoint (allowed: ${known.join(', ')})` : 'is not a parameter of this endpoint, which takes none',
        });
      } else if (spec.kind === 'enumArray') {
        input[name] = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
      } else if (values.length > 1) {
        details.push({ parameter: name, message: 'must be given once' });
      } else if (spec.kind === 'string') {
        input[name] = values[0];
      } else {
        const raw = values[0].trim();
        input[name] = (spec.kind === 'integer' ? INTEGER : DECIMAL).test(raw) ? Number(raw) : raw;
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
    const valid = Object.fromEntries(Object.entries(input).filter(([name]) => !invalid.has(name))) as ParamValues;
    details.push(...crossCheck(valid));
    if (details.length > 0) throw validationError(details);
    return input as ParamValues;
  };
}
