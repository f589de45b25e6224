// Checks a request against the OpenAPI document the server generates, strictly, as a client
// generated from the document would have to write it: the path must be a path of the document
// and the method one of its operations; every query parameter must be declared by that operation
// and written in its declared style (a list of `style: form, explode: false` is one
// comma-separated value, never the name repeated or bracketed), once, with a value its schema
// accepts; required parameters, the declared headers the request sets, the credentials the
// operation's security asks for, and the JSON body (its Content-Type and its schema) likewise.
// The test client (checkedFetch.ts) runs it on every request of the HTTP suites. Requests outside
// the API prefix (health, metrics, the reference page) are not API operations and are not checked.
import { document, resolve, validatorOf, type Schema } from './openapiDocument.js';

export interface CheckedRequest {
  method: string;
  /** The path and query as sent on the wire (percent-encoded). */
  pathAndQuery: string;
  headers: Headers;
  /** The body as sent; '' when there is none. */
  body: string;
}

export interface RequestCheckOptions {
  /**
   * The request writes a list parameter in a form the document's descriptions say the server
   * also accepts but its declared style does not describe: the name repeated (`a=X&a=Y`),
   * bracketed (`a[]=X`) or indexed (`a[0]=X`), in any mix, its items trimmed, empty items and
   * repeats dropped. Only that is let through: the items must still be values the schema allows
   * (at most 20 distinct), and everything else (undeclared names, scalars given twice, other
   * parameters) is checked as usual.
   */
  tolerantLists?: boolean;
}

/** The document's base path (its one server), e.g. /external/v1. */
export const BASE_PATH = (document.servers as Array<{ url: string }>)[0].url;

interface PathTemplate {
  template: string;
  pattern: RegExp;
  names: string[];
}

// Concrete paths match before templated ones (as OpenAPI requires): /grants/filters is never /grants/{id}.
const TEMPLATES: PathTemplate[] = Object.keys(document.paths)
  .map((template) => {
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const source = template
      .split(/\{[^}]+\}/)
      .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('([^/]+)');
    return { template, pattern: new RegExp(`^${source}$`), names };
  })
  .sort((a, b) => a.names.length - b.names.length);

export interface Located {
  template: string;
  /** The operation of the method on that path; undefined when the path has no such method. */
  operation?: Schema;
  /** The path parameters as sent (still percent-encoded). */
  rawParams: Record<string, string>;
}

/** The path of the document a request path names (relative to the base path), or undefined. */
export function locate(method: string, path: string): Located | undefined {
  if (!path.startsWith(BASE_PATH)) return undefined;
  const relative = path.slice(BASE_PATH.length);
  for (const { template, pattern, names } of TEMPLATES) {
    const match = pattern.exec(relative);
    if (match === null) continue;
    const rawParams = Object.fromEntries(names.map((name, i) => [name, match[i + 1]]));
    // HEAD is documented in prose as the GET of its path without the body.
    const operation = document.paths[template][method === 'HEAD' ? 'get' : method.toLowerCase()] as Schema | undefined;
    return { template, operation, rawParams };
  }
  return undefined;
}

/** The operation's parameters (path-level ones included, references followed). */
function parametersOf(template: string, operation: Schema): Schema[] {
  const own = ((operation.parameters ?? []) as Schema[]).map(resolve);
  const shared = ((document.paths[template].parameters ?? []) as Schema[]).map(resolve);
  return [...own, ...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in))];
}

const types = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A parameter's text as the value its schema describes (a number, a boolean), else the text itself. */
function typed(schema: Schema, text: string): unknown {
  const t = types(schema);
  // An integer is written in decimal digits (1e3 and 0x10 are not integers on the wire); a number as JSON writes it.
  if (t.includes('integer') && !t.includes('number') && /^-?\d+$/.test(text)) return Number(text);
  if (t.includes('number') && NUMBER.test(text)) return Number(text);
  if (t.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (t.includes('null') && text === '') return null;
  return text;
}

/** Whether a parameter is a list written one item per occurrence (explode) or as one delimited value. */
function explodes(param: Schema): boolean {
  const style = param.style ?? (param.in === 'query' ? 'form' : 'simple');
  return param.explode ?? style === 'form';
}

const DELIMITERS: Record<string, string> = { form: ',', simple: ',', spaceDelimited: ' ', pipeDelimited: '|' };

/** The value of a (non-exploded) parameter from its one text: a list split at its style's delimiter, else a scalar. */
function valueOf(param: Schema, text: string): unknown {
  const schema = resolve(param.schema ?? {});
  if (param.content !== undefined) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (!types(schema).includes('array')) return typed(schema, text);
  const items = resolve(schema.items ?? {});
  if (text === '') return [];
  return text.split(DELIMITERS[param.style ?? 'form'] ?? ',').map((item) => typed(items, item));
}

/** Percent-decoding of a query component as form encoding reads it (`+` is a space); undefined when malformed. */
function decodeComponent(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** The schema-check of a set of named values, compiled once per operation and location. */
const groupSchemas = new WeakMap<object, Map<string, Schema>>();
function groupSchema(operation: Schema, where: string, params: Schema[]): Schema {
  let byPlace = groupSchemas.get(operation);
  if (byPlace === undefined) groupSchemas.set(operation, (byPlace = new Map()));
  let schema = byPlace.get(where);
  if (schema === undefined) {
    schema = {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
      required: params.filter((p) => p.required === true).map((p) => p.name),
    };
    byPlace.set(where, schema);
  }
  return schema;
}

function schemaProblemsOf(schema: Schema, value: unknown, label: (path: string) => string): string[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => {
    if (e.keyword === 'required')
      return `${label(`/${(e.params as { missingProperty: string }).missingProperty}`)} is required and missing`;
    return `${label(e.instancePath)} ${e.message}`;
  });
}

/** The query of a request against the operation's query parameters. */
function queryProblems(
  where: string,
  operation: Schema,
  params: Schema[],
  search: string,
  options: RequestCheckOptions,
): string[] {
  const problems: string[] = [];
  const declared = new Map(params.filter((p) => p.in === 'query').map((p) => [p.name as string, p]));
  const given = new Map<string, string[]>();
  const raw = search.startsWith('?') ? search.slice(1) : search;
  for (const part of raw === '' ? [] : raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    const text = decodeComponent(eq < 0 ? '' : part.slice(eq + 1));
    if (name === undefined || text === undefined) {
      problems.push(`${where}: query "${part.slice(0, 80)}" is not valid percent-encoding`);
      continue;
    }
    let key = name;
    const bracketed = /^(.+)\[(\d*)\]$/.exec(name);
    if (
      options.tolerantLists === true &&
      bracketed !== null &&
      types(resolve(declared.get(bracketed[1])?.schema ?? {})).includes('array')
    )
      key = bracketed[1];
    if (!declared.has(key)) {
      problems.push(
        `${where}: query parameter "${name}" is not declared by the operation (it declares ` +
          `${[...declared.keys()].join(', ') || 'none'})`,
      );
      continue;
    }
    given.set(key, [...(given.get(key) ?? []), text]);
  }
  const values: Record<string, unknown> = {};
  for (const [name, texts] of given) {
    const param = declared.get(name) as Schema;
    const isList = types(resolve(param.schema ?? {})).includes('array');
    if (isList && (explodes(param) || options.tolerantLists === true)) {
      // One item per occurrence (each occurrence may itself be a delimited list when tolerated).
      const items = explodes(param) ? texts : texts.flatMap((t) => t.split(DELIMITERS[param.style ?? 'form'] ?? ','));
      // Tolerated as the descriptions say: items trimmed, empty ones and repeats dropped.
      const kept =
        options.tolerantLists === true ? [...new Set(items.map((t) => t.trim()).filter((t) => t !== ''))] : items;
      values[name] = kept.map((t) => typed(resolve(resolve(param.schema).items ?? {}), t));
    } else if (texts.length > 1) {
      problems.push(
        isList
          ? `${where}: list parameter "${name}" is given ${texts.length} times; the document declares style ` +
              `${param.style ?? 'form'}, explode false: one value, comma-separated (${name}=a,b)`
          : `${where}: query parameter "${name}" is given ${texts.length} times; it takes one value`,
      );
    } else values[name] = valueOf(param, texts[0]);
  }
  const queryParams = [...declared.values()];
  problems.push(
    ...schemaProblemsOf(
      groupSchema(operation, 'query', queryParams),
      values,
      (path) =>
        `${where}: query parameter ${path
          .slice(1)
          .replace(/\//g, '[')
          .replace(/\[(\d+)/g, '[$1]')}`,
    ),
  );
  return problems;
}

/** Whether the request carries the credentials one of the operation's security requirements asks for. */
function credentialProblems(where: string, operation: Schema, headers: Headers): string[] {
  const requirements = (operation.security ?? document.security ?? []) as Array<Record<string, string[]>>;
  if (requirements.length === 0) return [];
  const satisfied = requirements.some((requirement) =>
    Object.keys(requirement).every((name) => {
      const scheme = resolve(document.components.securitySchemes[name]);
      if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer')
        return /^bearer [A-Za-z0-9\-._~+/]+=*$/i.test(headers.get('authorization') ?? '');
      if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic')
        return /^basic \S+$/i.test(headers.get('authorization') ?? '');
      if (scheme.type === 'apiKey' && scheme.in === 'header') return headers.get(scheme.name) !== null;
      return false;
    }),
  );
  if (satisfied) return [];
  const asked = requirements.map((r) => Object.keys(r).join(' + ') || 'none').join(' or ');
  return [
    `${where}: the request lacks the credentials the operation's security asks for (${asked}: ` +
      `Authorization: Bearer <key>)`,
  ];
}

/** The body of a request against the operation's requestBody. */
function bodyProblems(where: string, operation: Schema, headers: Headers, body: string): string[] {
  const spec = operation.requestBody === undefined ? undefined : resolve(operation.requestBody);
  if (body === '') return spec?.required === true ? [`${where}: the document requires a request body`] : [];
  if (spec === undefined) return [`${where}: a request body where the document declares none`];
  const contentType = headers.get('content-type');
  const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const listed = Object.keys(spec.content ?? {});
  if (!listed.includes(media))
    return [
      `${where}: request Content-Type is ${contentType ?? '(none)'}, not one the document lists (${listed.join(', ')})`,
    ];
  if (media !== 'application/json' && !media.endsWith('+json')) return [];
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [`${where}: the request body is not JSON`];
  }
  const schema = spec.content[media].schema as Schema | undefined;
  return schema === undefined
    ? []
    : schemaProblemsOf(schema, value, (path) => `${where}: request body ${path || '(root)'}`);
}

/**
 * The ways a request departs from the document (empty when it conforms). Requests outside the
 * base path and CORS preflights (OPTIONS) are not API operations: always empty.
 */
export function requestProblems(request: CheckedRequest, options: RequestCheckOptions = {}): string[] {
  const url = new URL(request.pathAndQuery, 'http://x');
  const method = request.method.toUpperCase();
  if (method === 'OPTIONS' || (url.pathname !== BASE_PATH && !url.pathname.startsWith(`${BASE_PATH}/`))) return [];
  // The redirect of /external/v1/docs to the reference page (/docs) is outside the contract.
  if (method === 'GET' && (url.pathname === `${BASE_PATH}/docs` || url.pathname === `${BASE_PATH}/docs/`)) return [];
  const located = locate(method, url.pathname);
  if (located === undefined) return [`${method} ${url.pathname}: no path of the document matches it`];
  const where = `${method} ${located.template}`;
  if (located.operation === undefined) return [`${where}: the document has no ${method} operation on this path`];
  const { operation } = located;
  const params = parametersOf(located.template, operation);
  const problems: string[] = [];

  const pathParams = params.filter((p) => p.in === 'path');
  const pathValues: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(located.rawParams)) {
    const param = pathParams.find((p) => p.name === name);
    let text: string | undefined;
    try {
      text = decodeURIComponent(raw);
    } catch {
      text = undefined;
    }
    if (param === undefined) problems.push(`${where}: path parameter {${name}} is not declared`);
    else if (text === undefined)
      problems.push(`${where}: path parameter {${name}} "${raw.slice(0, 80)}" is not valid percent-encoding`);
    pathValues[name] = param === undefined ? raw : valueOf(param, text ?? raw);
  }
  problems.push(
    ...schemaProblemsOf(
      groupSchema(operation, 'path', pathParams),
      pathValues,
      (path) => `${where}: path parameter ${path.slice(1)}`,
    ),
  );

  const headerParams = params.filter((p) => p.in === 'header');
  const headerValues: Record<string, unknown> = {};
  for (const param of headerParams) {
    const value = request.headers.get(param.name);
    if (value !== null) headerValues[param.name] = valueOf(param, value);
  }
  problems.push(
    ...schemaProblemsOf(
      groupSchema(operation, 'header', headerParams),
      headerValues,
      (path) => `${where}: header ${path.slice(1)}`,
    ),
  );

  problems.push(...queryProblems(where, operation, params, url.search, options));
  problems.push(...credentialProblems(where, operation, request.headers));
  problems.push(...bodyProblems(where, operation, request.headers, request.body));
  return problems;
}
