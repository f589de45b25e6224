// The JSON Schemas of the MCP tools, generated, never written twice: the arguments from the same
// parameter definitions the REST endpoints validate and OpenAPI publishes (ParamSpecs, paramSchema),
// the results from the OpenAPI document's own answer schemas without their envelope, references inlined.
import { jsonParamsSchema, openapiDocument } from '../openapi/document.js';

export type Schema = Record<string, unknown>;

/**
 * The input schema of a tool whose arguments are these parameters (lists as JSON arrays): the document's own JSON form
 * of them.
 */
export const argumentsSchema = jsonParamsSchema;

const COMPONENTS = (openapiDocument() as { components: { schemas: Record<string, Schema> } }).components.schemas;
const REF = '#/components/schemas/';

/**
 * A schema of the OpenAPI document with every reference replaced by what it names (a description beside a reference
 * kept).
 */
function inline(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inline);
  if (schema === null || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as Schema;
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inline(value)]));
  if (typeof $ref !== 'string') return own;
  if (!$ref.startsWith(REF) || COMPONENTS[$ref.slice(REF.length)] === undefined)
    throw new Error(`unknown schema reference ${$ref}`);
  return { ...(inline(COMPONENTS[$ref.slice(REF.length)]) as Schema), ...own };
}

/** A schema of the OpenAPI document's components, references inlined (e.g. an argument object such as AlertInput). */
export const componentSchema = (name: string): Schema => inline({ $ref: `${REF}${name}` }) as Schema;

/**
 * A REST answer's schema (a success envelope of the OpenAPI document) without its envelope: `data` and, when paged,
 * `pagination` and `facets`.
 */
export function answerWithoutEnvelope(answer: string): Schema {
  const envelope = componentSchema(answer) as { properties: Schema; required: string[] };
  const { success: _success, meta: _meta, ...properties } = envelope.properties;
  return {
    ...envelope,
    required: envelope.required.filter((name) => name !== 'success' && name !== 'meta'),
    properties,
  };
}
