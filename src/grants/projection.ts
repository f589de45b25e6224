// A served grant projected on the fields a partner asked for (`fields=`): what every search page,
// the similar grants and the NDJSON export send. Pure: JSON text in, JSON text out.
import type { ServedGrant } from './schema.js';

/**
 * A grant's JSON text with only `fields` (id first, canonical order); the text unchanged when every field is wanted.
 */
export function projectGrantJson(json: string, fields: readonly (keyof ServedGrant)[] | null): string {
  if (fields === null) return json;
  const grant = JSON.parse(json) as ServedGrant;
  return JSON.stringify(Object.fromEntries(fields.map((field) => [field, grant[field]])));
}
