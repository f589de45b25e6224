// Checks a response against the OpenAPI document the server generates: the operation of its
// method and path must list its status, its headers must be there and match, its body must match
// the schema (ajv, JSON Schema 2020-12). The test client (api.ts) runs it on every response of
// the HTTP suites, so the document cannot drift from what the server sends.
import { OPENAPI_PATH } from '../../src/http/openapi/document.js';
import { API_PREFIX } from '../../src/http/routeTable.js';
import { document, resolve, validatorOf, type Schema } from './openapiDocument.js';

export interface CheckedResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The document's path templates as patterns of a full request path (a `{parameter}` takes one
 * non-empty segment, one trailing slash tolerated), the most specific first (the fewest
 * parameters), as the server's router picks among the routes a path matches.
 */
const PATH_PATTERNS = Object.keys(document.paths)
  .map((template) => ({
    template,
    parameters: template.split('/').filter((segment) => segment.startsWith('{')).length,
    pattern: new RegExp(
      `^${(API_PREFIX + template)
        .split('/')
        .map((segment) => (segment.startsWith('{') ? '[^/]+' : escapeRegExp(segment)))
        .join('/')}/?$`,
    ),
  }))
  .sort((a, b) => a.parameters - b.parameters);

/** The operation a request names, or why the document has none for it. */
function operationOf(method: string, path: string): { operation?: Schema; where: string; template?: string } {
  const template =
    path === API_PREFIX + OPENAPI_PATH
      ? OPENAPI_PATH
      : PATH_PATTERNS.find(({ pattern }) => pattern.test(path))?.template;
  if (template === undefined) return { where: `no path of the document matches ${path}` };
  // HEAD is left out of the document (its prose says so): a HEAD answers as the GET of its path, without the body.
  const operation = document.paths[template]?.[method === 'HEAD' ? 'get' : method.toLowerCase()] as Schema | undefined;
  return { operation, where: `${method} ${template}`, template };
}

/**
 * The schema of the errors on a path of the document: its operations' (the CommonGrants routes have their own), else
 * the envelope's.
 */
function errorSchemaOf(template: string | undefined): Schema {
  const operations = Object.values((template === undefined ? {} : document.paths[template]) ?? {}) as Schema[];
  const unauthorized = operations.find((op) => op?.responses?.['401'] !== undefined)?.responses['401'] as
    Schema | undefined;
  return (unauthorized?.content?.['application/json']?.schema as Schema | undefined) ?? ERROR_ENVELOPE;
}

/**
 * Throws (so the test fails) when the response does not conform to the document. Requests
 * outside the API prefix (health, docs) and CORS preflights are not API operations and pass.
 */
export function checkResponse(method: string, pathAndQuery: string, response: CheckedResponse): void {
  const path = new URL(pathAndQuery, 'http://x').pathname;
  if (method === 'OPTIONS' || (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`))) return;
  // The redirect of /external/v1/docs to the reference page (/docs) is outside the contract.
  if (response.status === 302 && (path === `${API_PREFIX}/docs` || path === `${API_PREFIX}/docs/`)) return;
  const problems: string[] = [];
  const { operation, where, template } = operationOf(method, path);
  let spec: Schema | undefined;
  if (operation === undefined) {
    // A path or method the API does not have: an error in the envelope (404, 405, 414, 401).
    if (response.status < 400)
      problems.push(`${where}: a ${response.status} for a request the document has no operation for`);
    spec = {
      headers: { 'X-Request-Id': document.components.headers['X-Request-Id'] },
      content: { 'application/json': { schema: errorSchemaOf(template) } },
    };
    if (method === 'HEAD') delete spec.content;
  } else {
    spec = operation.responses[String(response.status)] as Schema | undefined;
    if (spec === undefined)
      problems.push(
        `${where}: status ${response.status} is not in the document (it lists ` +
          `${Object.keys(operation.responses).join(', ')})`,
      );
    else if (method === 'HEAD') spec = { ...spec, content: undefined };
    const codes = spec?.['x-error-codes'] as string[] | undefined;
    const code = (response.body as { error?: { code?: unknown } } | null)?.error?.code;
    if (codes !== undefined && code !== undefined && !codes.includes(code as string)) {
      problems.push(
        `${where} ${response.status}: error code ${String(code)} is not one the document gives this status ` +
          `(${codes.join(', ')})`,
      );
    }
  }
  if (spec !== undefined) {
    for (const [name, item] of Object.entries((spec.headers ?? {}) as Schema)) {
      const header = resolve(item);
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required === true) problems.push(`${where} ${response.status}: header ${name} is missing`);
      } else if (header.schema !== undefined && !validatorOf(header.schema)(value)) {
        problems.push(`${where} ${response.status}: header ${name} "${value}" does not match its schema`);
      }
    }
    const schema = spec.content?.['application/json']?.schema as Schema | undefined;
    const streamed = Object.keys((spec.content ?? {}) as Schema).filter((type) => type !== 'application/json');
    if (schema === undefined && streamed.length > 0) {
      // A streamed export: its Content-Type must be one the document lists; NDJSON lines must match the line schema.
      const type = response.headers.get('content-type') ?? '';
      const listed = streamed.find((t) => t === type);
      if (listed === undefined)
        problems.push(`${where} ${response.status}: Content-Type is ${type}, not one of ${streamed.join(', ')}`);
      else if (spec.content[listed]['x-item-schema'] !== undefined) {
        const validate = validatorOf(spec.content[listed]['x-item-schema'] as Schema);
        const bad = response.text
          .split('\n')
          .filter((line) => line !== '')
          .find((line) => !validate(JSON.parse(line)));
        if (bad !== undefined)
          problems.push(
            `${where} ${response.status}: an NDJSON line does not match the document: ${bad.slice(0, 200)}`,
          );
      }
    } else if (schema === undefined) {
      if (response.text !== '') problems.push(`${where} ${response.status}: a body where the document has none`);
    } else {
      if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) {
        problems.push(
          `${where} ${response.status}: Content-Type is ${response.headers.get('content-type')}, not application/json`,
        );
      }
      const validate = validatorOf(schema);
      if (!validate(response.body)) {
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
        problems.push(`${where} ${response.status}: the body does not match the document: ${errors.join('; ')}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`Response does not conform to openapi.json:\n  ${problems.join('\n  ')}`);
}
