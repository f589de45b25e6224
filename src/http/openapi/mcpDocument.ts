// The MCP endpoint's part of the OpenAPI document: the JSON-RPC messages it takes and answers, and
// an example. The tools themselves are described by the server (tools/list), not here.
type Schema = Record<string, unknown>;

/** The tools the server lists, named in the document's prose (a test checks it against handlers/mcpTools.ts). */
export const MCP_TOOL_NAMES = [
  'search_grants',
  'suggest_grants',
  'get_grant',
  'get_grant_history',
  'similar_grants',
  'list_filter_values',
  'get_changes',
  'get_usage',
  'create_alert',
  'list_alerts',
  'delete_alert',
] as const;

const id: Schema = { type: ['string', 'integer'], description: 'The id of the request, echoed in its response.' };

export const MCP_SCHEMAS: Schema = {
  JsonRpcMessage: {
    type: 'object',
    additionalProperties: true,
    required: ['jsonrpc'],
    description:
      'One JSON-RPC 2.0 message of the Model Context Protocol: a request (method and id: initialize, tools/list, ' +
      'tools/call, ping), a notification (method, no id: notifications/initialized) or a response. Batches ' +
      '(arrays) are not taken.',
    properties: {
      jsonrpc: { type: 'string', const: '2.0', description: 'Always "2.0".' },
      id,
      method: { type: 'string', description: 'The MCP method, e.g. tools/call.' },
      params: {
        type: 'object',
        additionalProperties: true,
        description: 'The parameters of the method; for tools/call, `name` and `arguments`.',
      },
    },
  },
  JsonRpcResponse: {
    type: 'object',
    additionalProperties: true,
    required: ['jsonrpc'],
    description:
      'The JSON-RPC 2.0 response to the request: `result` (for tools/call: `content`, `structuredContent` and ' +
      '`isError`; a tool error has isError true and a text {"error":{"code","message","details"?}} with the ' +
      'codes of this API) or `error` (a protocol error: unknown method, malformed params).',
    properties: {
      jsonrpc: { type: 'string', const: '2.0', description: 'Always "2.0".' },
      id,
      result: { type: 'object', additionalProperties: true, description: 'The result of the method.' },
      error: {
        type: 'object',
        additionalProperties: true,
        required: ['code', 'message'],
        description: 'A JSON-RPC error.',
        properties: {
          code: { type: 'integer', description: 'The JSON-RPC error code.' },
          message: { type: 'string', description: 'What went wrong.' },
        },
      },
    },
  },
};

export const MCP_REQUEST_EXAMPLE = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: {
    name: 'search_grants',
    arguments: {
      search: 'clean energy',
      eligibleProvinces: ['ONTARIO'],
      open: true,
      limit: 1,
      fields: ['id', 'title', 'deadline'],
    },
  },
};

export const MCP_RESPONSE_EXAMPLE = {
  jsonrpc: '2.0',
  id: 2,
  result: {
    content: [
      {
        type: 'text',
        text:
          '3 grants match; page 1 of 3.\n1. Clean Energy Retrofit Rebate (grt_0a1b2c3d); deadline: ' +
          '2026-12-31T23:59:59.000Z',
      },
    ],
    structuredContent: {
      data: [{ id: 'grt_0a1b2c3d', title: 'Clean Energy Retrofit Rebate', deadline: '2026-12-31T23:59:59.000Z' }],
      pagination: { page: 1, limit: 1, total: 3, totalPages: 3 },
    },
  },
};
