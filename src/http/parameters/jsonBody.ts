// Reading a request's JSON body within bounds: application/json only, at most `limit` bytes, UTF-8
// that decodes without a single invalid sequence (nothing is silently repaired), and at most
// MAX_JSON_DEPTH levels of nested arrays and objects. What breaks a bound is refused in the API's
// envelope before any handler walks the value.
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { InvalidBodyError } from '../../failures.js';
import { ApiError } from '../errors.js';

const MAX_BODY_BYTES = 16 * 1024;

/** The deepest nesting of arrays and objects a JSON body may have (the API's own bodies need 5). */
const MAX_JSON_DEPTH = 32;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether `value` nests arrays and objects deeper than `max` levels (a scalar is level 0); stops looking past `max`.
 */
function nestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => nestedDeeperThan(child, max - 1));
}

/**
 * The request's JSON body, parsed; 415 for another type, 413 past `limit` bytes, 400 for invalid UTF-8, bad JSON or
 * nesting past MAX_JSON_DEPTH.
 */
export async function readJsonBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<unknown> {
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.');
  }
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${limit / 1024} KB.`);
    }
    throw new InvalidBodyError([{ parameter: '(body)', message: 'could not be read' }]);
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new InvalidBodyError([{ parameter: '(body)', message: 'is not valid UTF-8' }]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidBodyError([{ parameter: '(body)', message: 'is not valid JSON' }]);
  }
  if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
    throw new InvalidBodyError([
      { parameter: '(body)', message: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  }
  return parsed;
}

/**
 * The request's JSON body as an object; 415 for another type, 413 past 16 KB, 400 for bad JSON or another JSON value.
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  const parsed = await readJsonBody(ctx);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidBodyError([{ parameter: '(body)', message: 'must be a JSON object' }]);
  }
  return parsed as Record<string, unknown>;
}
