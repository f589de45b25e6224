// The OpenAPI document the server generates, as the test checks read it: one ajv (JSON Schema
// 2020-12, the dialect of OpenAPI 3.1) holding its components, a compiled validator per schema,
// and its local references resolved. Shared by the response check (openapiCheck.ts) and the
// request check (openapiRequestCheck.ts).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openapiDocument } from '../../src/http/openapi/document.js';

export type Schema = Record<string, any>;

export const document = openapiDocument() as Schema;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
ajv.addSchema({ $id: 'openapi', components: document.components });

/** The document's local references made absolute, so a schema of one response compiles alone. */
function absolute(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `openapi${value}` : absolute(value),
    ]),
  );
}

const compiled = new WeakMap<object, ValidateFunction>();
/** The compiled validator of a schema of the document (compiled once per schema object). */
export function validatorOf(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(absolute(schema) as Schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** An item of the document with its `$ref` (to a place of the same document) followed. */
export const resolve = (item: Schema): Schema =>
  typeof item.$ref === 'string'
    ? resolve(
        item.$ref
          .slice(2)
          .split('/')
          .reduce((at: any, key: string) => at[key], document),
      )
    : item;

/**
 * The problems of a value against a schema of the document (its $refs resolved in the document); empty when it
 * conforms.
 */
export function schemaProblems(schema: Schema, value: unknown): string[] {
  const validate = validatorOf(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message}`);
}
