// POST /external/v1/mcp: the MCP server for AI agents, on the official SDK, over Streamable HTTP in
// stateless mode: each POST gets a new server and transport (no session), answered as JSON (no SSE
// stream). The request has passed the API's layers like any other (key, status, rate, feature);
// the tools (mcpTools.ts) count their own calls: only a tools/call of a billable tool is billed.
//
// The SDK's low-level Server is used rather than McpServer: McpServer takes zod schemas and
// validates arguments itself, while these tools publish the JSON Schemas generated from the API's
// own parameter definitions and validate arguments through the REST endpoints' own parsers.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
// eslint-disable-next-line max-len -- one name from the SDK's module path: Prettier keeps it on one line
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Middleware } from 'koa';
import { InvalidBodyError, InvalidInputError, ServiceUnavailableError, type ErrorDetail } from '../../failures.js';
import { describeError, type Logger } from '../../log.js';
import { API_VERSION } from '../envelope.js';
import { featureNotAvailable } from '../middleware/subscriptionChecks.js';
import { scopeFor, scopeNotAllowed } from '../middleware/keyScopeChecks.js';
import { hasScope } from '../../subscriptions/keyRestrictions.js';
import { readJsonBody } from '../parameters/jsonBody.js';
import { ApiError, answerTo, type ErrorCode } from '../errors.js';
import { paramValidator, parseQueryString } from '../parameters/queryParams.js';
import type { AppState } from '../state.js';
import { invalidParamsAnswer } from './mcpParams.js';
import { TOOLS, type ToolContext, type ToolSpec } from './mcpTools.js';

/** The largest JSON-RPC message taken (the largest, create_alert's, is well under 16 KB). */
const MAX_MCP_BODY_BYTES = 64 * 1024;

const MCP_SERVER_INFO = { name: 'grants-api', title: 'Grants partner API', version: API_VERSION } as const;

const INSTRUCTIONS =
  'Tools over the grants catalog (Canadian and North American grants, loans, rebates and tax credits). ' +
  'Start with search_grants ' +
  ('(open=true for grants accepting applications now, status=FORECASTED for those announced but opening ' +
    'later); get_grant gives one grant in full, get_grant_history what changed in it and when; ' +
    'list_filter_values the values the filters take. ') +
  ("Each call of a catalog or alert tool counts toward the subscription's monthly allowance; get_usage (not " +
    'billed) tells what remains. ') +
  ('Errors come as tool errors whose text is {"error":{"code","message","details"?}}: fix the arguments ' +
    'named in details and call again.');

/** The request headers the transport reads (the rest of the request it never sees). */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

const noParams = paramValidator({});

type McpDeps = Omit<ToolContext, 'state'> & { log: Logger };

/** An error as a tool error: the API's error code and message (and details), as the REST error body holds them. */
function toolError(thrown: unknown, state: AppState, log: Logger): CallToolResult {
  let error: { code: ErrorCode; message: string; details?: readonly ErrorDetail[] };
  if (thrown instanceof InvalidInputError) {
    // The REST message names a query parameter or a body field; a tool takes arguments.
    const { details } = thrown;
    error = {
      code: 'VALIDATION_ERROR',
      message:
        details.length === 1
          ? `Invalid argument "${details[0].parameter}": ${details[0].message}.`
          : `${details.length} arguments are invalid; see details.`,
      details,
    };
  } else {
    const answer = thrown instanceof ApiError ? thrown : answerTo(thrown);
    if (answer === undefined) {
      (state.log ?? log).error('unhandled error in an MCP tool', {
        requestId: state.requestId,
        ...describeError(thrown),
      });
      error = {
        code: 'INTERNAL_ERROR',
        message: `An internal error occurred; quote request id ${state.requestId} when reporting it.`,
      };
    } else {
      if (thrown instanceof ServiceUnavailableError)
        (state.log ?? log).warn('dependency unavailable', { requestId: state.requestId, reason: thrown.message });
      error = {
        code: answer.code,
        message: answer.message,
        ...(answer.details === undefined ? {} : { details: answer.details }),
      };
    }
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

/** Runs one tool call: the tool's feature and the key's scope, then its billing (as its REST route), then the tool. */
async function callTool(
  tool: ToolSpec,
  args: Record<string, unknown>,
  context: ToolContext,
  log: Logger,
): Promise<CallToolResult> {
  try {
    const { route } = tool;
    const caller = context.state.caller!;
    if (!caller.subscription.features[route.feature]) throw featureNotAvailable(route.feature, `the tool ${tool.name}`);
    // A tool that changes something needs its endpoint's write scope (create_alert, delete_alert).
    const scope = scopeFor(route, tool.annotations.readOnlyHint ? 'GET' : 'POST');
    if (scope !== null && !hasScope(caller.restrictions, scope)) throw scopeNotAllowed(scope, `the tool ${tool.name}`);
    if (route.billable) await context.state.bill!();
    const answer = await tool.run(args, context);
    return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
  } catch (thrown) {
    return toolError(thrown, context.state, log);
  }
}

/** A server for one request: the tools, run for this request's caller. */
function mcpServer(context: ToolContext, log: Logger): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (tool === undefined) {
      return toolError(
        new ApiError(404, 'NOT_FOUND', `No tool is named "${request.params.name}"; tools/list gives the tools.`),
        context.state,
        log,
      );
    }
    return callTool(tool, request.params.arguments ?? {}, context, log);
  });
  return server;
}

export function mcpHandler(deps: McpDeps): Middleware<AppState> {
  const { log, ...parts } = deps;
  return async function mcp(ctx) {
    // What the transport would refuse in JSON-RPC is refused here first, in the API's envelope.
    const accept = ctx.get('Accept');
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      throw new ApiError(
        406,
        'NOT_ACCEPTABLE',
        'Send "Accept: application/json, text/event-stream", as the MCP Streamable HTTP transport asks.',
      );
    }
    noParams(parseQueryString(ctx.querystring));
    const version = ctx.get('MCP-Protocol-Version');
    if (version !== '' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const detail = {
        parameter: 'MCP-Protocol-Version',
        message: `must be one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
      };
      throw new ApiError(400, 'VALIDATION_ERROR', `The MCP-Protocol-Version header ${detail.message}.`, [detail]);
    }
    const message = await readJsonBody(ctx, MAX_MCP_BODY_BYTES);
    if (Array.isArray(message)) {
      throw new InvalidBodyError([
        {
          parameter: '(body)',
          message: 'must be one JSON-RPC message: batches are not taken (MCP dropped them in 2025-06-18)',
        },
      ]);
    }
    if (!JSONRPCMessageSchema.safeParse(message).success) {
      throw new InvalidBodyError([
        {
          parameter: '(body)',
          message:
            'must be a JSON-RPC 2.0 message: jsonrpc "2.0" and a method (with an id for a request), or a response',
        },
      ]);
    }
    const invalidParams = invalidParamsAnswer(message as JSONRPCMessage);
    if (invalidParams !== null) {
      ctx.status = 200;
      ctx.body = invalidParams;
      return;
    }
    const headers = new Headers();
    for (const name of TRANSPORT_HEADERS) {
      const value = ctx.get(name);
      if (value !== '') headers.set(name, value);
    }
    const server = mcpServer({ ...parts, state: ctx.state }, log);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(
        new Request(new URL(ctx.path, 'http://mcp.invalid'), { method: 'POST', headers }),
        { parsedBody: message },
      );
      const text = await response.text();
      ctx.status = response.status;
      response.headers.forEach((value, name) => ctx.set(name, value));
      // An empty body keeps its status (Koa would turn a null body into a 204).
      ctx.body = text;
      if (text === '') ctx.remove('Content-Type');
    } finally {
      await server.close();
    }
  };
}
