// Parameters given as a JSON object (an alert's `query`, an MCP tool's arguments) instead of a query
// string: each value checked for its JSON type, then written as the query-string parameter it
// stands for, so that the endpoint's own validator (queryParams.ts) judges it: one definition, two doors.
import { InvalidInputError, type ErrorDetail } from '../../failures.js';
import { QueryParameters, type ParamSpecs } from './queryParams.js';

/**
 * `json` as query-string parameters: a list as a JSON array of strings, a boolean as a JSON
 * boolean, a number as a JSON number, anything else as a JSON string. A value of the wrong JSON
 * type is left out and added to `details` (named by `at`); a name without a spec is passed on as
 * text, for the validator to refuse by name.
 */
export function jsonAsParameters(
  json: Record<string, unknown>,
  specs: ParamSpecs,
  details: ErrorDetail[],
  at: (name: string) => string = (name) => name,
): QueryParameters {
  const params = new QueryParameters();
  for (const [name, value] of Object.entries(json)) {
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    const wrongType = (expected: string) => details.push({ parameter: at(name), message: `must be ${expected}` });
    switch (spec?.kind) {
      case undefined:
        params.set(name, [typeof value === 'string' ? value : (JSON.stringify(value) ?? '')]);
        break;
      case 'enumArray':
        if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) wrongType('a JSON array of strings');
        else params.set(name, value.length === 0 ? [] : [value.join(',')]);
        break;
      case 'boolean':
        if (typeof value !== 'boolean') wrongType('true or false (a JSON boolean)');
        else params.set(name, [String(value)]);
        break;
      case 'number':
      case 'integer':
        if (typeof value !== 'number' || !Number.isFinite(value)) wrongType('a JSON number');
        else params.set(name, [String(value)]);
        break;
      default:
        if (typeof value !== 'string') wrongType('a JSON string');
        else params.set(name, [value]);
    }
  }
  return params;
}

/**
 * Parses a JSON object of parameters with an endpoint's own parser (which validates them as it
 * validates a query string); throws InvalidInputError listing every problem, those of JSON type
 * first, each parameter once.
 */
export function parseJsonParameters<T>(
  json: Record<string, unknown>,
  specs: ParamSpecs,
  parse: (params: QueryParameters) => T,
  at: (name: string) => string = (name) => name,
): T {
  const problems: ErrorDetail[] = [];
  const params = jsonAsParameters(json, specs, problems, at);
  try {
    const parsed = parse(params);
    if (problems.length === 0) return parsed;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    for (const d of error.details) {
      const named = { parameter: at(d.parameter), message: d.message };
      if (!problems.some((p) => p.parameter === named.parameter)) problems.push(named);
    }
  }
  throw new InvalidInputError(problems);
}
