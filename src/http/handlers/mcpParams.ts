// The params of the MCP requests this server answers, checked before the SDK sees them: a request
// whose params do not fit its method (tools/call with `arguments` that are no JSON object, say) is
// answered with the JSON-RPC error "invalid params" in plain words, naming the field and the JSON
// type it takes, instead of the SDK's dump of its validator's issues.
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { clip } from '../parameters/queryParams.js';

interface Checkable {
  safeParse(value: unknown):
    | { success: true }
    | {
        success: false;
        error: { issues: readonly { code: string; path: readonly PropertyKey[]; expected?: unknown }[] };
      };
}

/** The requests whose params are checked here: the methods this server answers. */
const REQUESTS: Record<string, Checkable> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/** A validator's name of a type, in a partner's words. */
const TYPE_WORDS: Record<string, string> = {
  object: 'a JSON object',
  record: 'a JSON object',
  array: 'a JSON array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

/** The JSON type of a value, as a partner would name it. */
function jsonType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const at = (message: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined,
    message,
  );

/**
 * The JSON-RPC error answering a request whose params its method does not take, or null when they
 * fit (or the message is no request of these methods: the SDK answers those).
 */
export function invalidParamsAnswer(message: JSONRPCMessage): JSONRPCMessage | null {
  if (!isJSONRPCRequest(message) || !Object.hasOwn(REQUESTS, message.method)) return null;
  const checked = REQUESTS[message.method].safeParse(message);
  if (checked.success) return null;
  const problems = checked.error.issues.slice(0, 5).map((issue) => {
    const name = `"${issue.path.map((key) => clip(String(key))).join('.')}"`;
    const expected = typeof issue.expected === 'string' ? TYPE_WORDS[issue.expected] : undefined;
    if (issue.code === 'invalid_type' && expected !== undefined)
      return `${name} must be ${expected} (got ${jsonType(at(message, issue.path))})`;
    return `${name} is not what ${message.method} takes`;
  });
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: ErrorCode.InvalidParams, message: `Invalid params of ${message.method}: ${problems.join('; ')}.` },
  };
}
