// The MCP server (POST /external/v1/mcp) through the SDK's own client and Streamable HTTP transport
// against a real API on a real port: the tools listed with their generated schemas, each one called,
// search_grants answering what GET /grants answers, errors as tool errors with the API's codes,
// the key required, and the tool calls billed and counted under /mcp.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { GRANT_SEARCH_PARAMS } from '../../src/http/parameters/grantSearchParams.js';
import { MCP_TOOL_NAMES } from '../../src/http/openapi/mcpDocument.js';
import { TOOLS } from '../../src/http/handlers/mcpTools.js';
import { paramSchema } from '../../src/http/openapi/document.js';
import { API_PREFIX } from '../../src/http/routeTable.js';
import { MAX_MONTHLY_LIMIT, MAX_RATE_LIMIT } from '../../src/subscriptions/tiers.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { checkedFetch } from '../support/checkedFetch.js';
import { logLines } from '../support/logLines.js';

const MCP = `${API_PREFIX}/mcp`;

/** A tool error's body: the API's error as its text holds it. */
function errorOf(result: CallToolResult): {
  code: string;
  message: string;
  details?: { parameter: string; message: string }[];
} {
  expect(result.isError, JSON.stringify(result)).to.equal(true);
  expect(result.structuredContent).to.equal(undefined);
  const content = result.content[0];
  if (content.type !== 'text') throw new Error('a tool error answers text');
  return JSON.parse(content.text).error;
}

describe('MCP server (POST /mcp) through the SDK client', function () {
  let api: TestApi;
  const clients: Client[] = [];

  async function connect(key: string | null = api.key): Promise<Client> {
    const client = new Client({ name: 'grants-api-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(api.url + MCP), {
      requestInit: key === null ? {} : { headers: { Authorization: `Bearer ${key}` } },
      // Each request and answer checked against the OpenAPI document. Refused on purpose: a call
      // without a key, and the GET with which the client probes for an event stream (a 405).
      fetch: (url, init) => checkedFetch({ invalidRequest: key === null || init?.method === 'GET' })(url, init),
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** A subscription of its own (so its usage holds only the calls of one test), and its key. */
  function newSubscription(overrides: { monthlyLimit?: number } = {}): { id: string; key: string } {
    const created = api.deps.subscriptions.create({
      name: 'mcp',
      tier: 'ENTERPRISE',
      rateLimit: MAX_RATE_LIMIT,
      monthlyLimit: overrides.monthlyLimit ?? MAX_MONTHLY_LIMIT,
    });
    return { id: created.subscription.id, key: created.apiKey };
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  before(async function () {
    api = await startTestApi();
  });
  after(async function () {
    for (const client of clients) await client.close().catch(() => undefined);
    await api?.stop();
  });

  it('lists every tool with a description for a model, its generated input schema and an output schema', async function () {
    const client = await connect();
    expect(client.getServerVersion()?.name).to.equal('grants-api');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal([...MCP_TOOL_NAMES]);
    expect(TOOLS.map((t) => t.name)).to.deep.equal([...MCP_TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.description, tool.name).to.be.a('string').with.length.above(80);
      expect(tool.inputSchema.type, tool.name).to.equal('object');
      expect(tool.outputSchema?.type, tool.name).to.equal('object');
      expect(JSON.stringify(tool.outputSchema), tool.name).not.to.include('$ref');
    }
    const search = tools.find((t) => t.name === 'search_grants')!;
    expect(search.description)
      .to.include('open=true')
      .and.to.include('accepting applications now')
      .and.to.include('status=FORECASTED');
    // Generated from GRANT_SEARCH_PARAMS, as OpenAPI is: every parameter, its schema, description and example.
    const properties = search.inputSchema.properties as Record<string, any>;
    expect(Object.keys(properties)).to.deep.equal(Object.keys(GRANT_SEARCH_PARAMS));
    for (const [name, spec] of Object.entries(GRANT_SEARCH_PARAMS)) {
      const { description, examples, ...schema } = properties[name];
      expect(schema, name).to.deep.equal(paramSchema(spec));
      expect(description, name).to.include(spec.description);
      expect(examples, name).to.deep.equal([spec.example]);
    }
    expect(properties.eligibleProvinces.type).to.equal('array');
    expect(search.outputSchema!.required).to.deep.equal(['data', 'pagination']);
    expect(search.annotations?.readOnlyHint).to.equal(true);
    expect(tools.find((t) => t.name === 'delete_alert')!.annotations?.destructiveHint).to.equal(true);
  });

  it('search_grants answers the grants, pagination and facets GET /grants answers for the same parameters', async function () {
    const client = await connect();
    const cases: { args: Record<string, unknown>; query: string }[] = [
      { args: {}, query: '' },
      // search_grants has typos on and relaxed matching (frequency) by default; GET /grants has neither.
      { args: { search: 'energy', limit: 5 }, query: 'search=energy&limit=5&typos=auto&matching=frequency' },
      { args: { search: 'agricultre', limit: 5 }, query: 'search=agricultre&limit=5&typos=auto&matching=frequency' },
      { args: { search: 'agricultre', typos: 'off' }, query: 'search=agricultre&typos=off&matching=frequency' },
      { args: { search: 'arts energy', limit: 5 }, query: 'search=arts+energy&limit=5&typos=auto&matching=frequency' },
      { args: { search: 'arts energy', matching: 'all' }, query: 'search=arts+energy&matching=all&typos=auto' },
      {
        args: {
          eligibleProvinces: ['ONTARIO', 'QUEBEC'],
          open: true,
          sort: '-amountMax',
          limit: 7,
          page: 2,
          facets: ['fundingType', 'funderType'],
          fields: ['id', 'title', 'deadline'],
        },
        query:
          'eligibleProvinces=ONTARIO,QUEBEC&open=true&sort=-amountMax&limit=7&page=2&facets=fundingType,' +
          'funderType&fields=id,title,deadline',
      },
      {
        args: {
          fundingType: ['GRANT'],
          amountMin: 10000,
          deadlineFrom: '2020-01-01',
          limit: 0,
          facets: ['eligibleProvinces'],
        },
        query: 'fundingType=GRANT&amountMin=10000&deadlineFrom=2020-01-01&limit=0&facets=eligibleProvinces',
      },
      { args: { cursor: '*', limit: 3, sort: 'title' }, query: 'cursor=*&limit=3&sort=title' },
      {
        args: { status: ['FORECASTED'], sort: 'opensAt', limit: 5, facets: ['status'] },
        query: 'status=FORECASTED&sort=opensAt&limit=5&facets=status',
      },
    ];
    let nonEmpty = 0;
    for (const { args, query } of cases) {
      const rest = await api.request(`${API_PREFIX}/grants?${query}`);
      expect(rest.status, query).to.equal(200);
      const result = await call(client, 'search_grants', args);
      expect(result.isError ?? false, JSON.stringify(result.content)).to.equal(false);
      const { success: _s, meta: _m, ...withoutEnvelope } = rest.body;
      expect(result.structuredContent, query).to.deep.equal(withoutEnvelope);
      const text = (result.content[0] as { text: string }).text;
      expect(text, query).to.include(`${rest.body.pagination.total.toLocaleString('en-US')} grant`);
      if (rest.body.data.length > 0) {
        nonEmpty += 1;
        expect(text).to.include(rest.body.data[0].id);
        // Each grant's line says where it stands, and when a forecasted one opens.
        if (args.status !== undefined)
          expect(text).to.include(`status: FORECASTED; opens: ${rest.body.data[0].opensAt}`);
      }
    }
    expect(nonEmpty, 'the cases must compare real grants').to.be.at.least(3);
    // The default is what relaxes: no grant holds both words, and the tool still finds grants.
    expect((await api.request(`${API_PREFIX}/grants?search=arts+energy`)).body.pagination.total).to.equal(0);
    expect(
      (
        (await call(client, 'search_grants', { search: 'arts energy' })).structuredContent as {
          pagination: { total: number };
        }
      ).pagination.total,
    ).to.be.above(0);
  });

  it('search_grants highlights and crops as GET /grants does, and shows the passages in its text', async function () {
    const client = await connect();
    const args = {
      search: 'energy',
      typos: 'off',
      matching: 'all',
      highlight: ['title'],
      crop: 'description:12',
      fields: ['id'],
      limit: 5,
    };
    const result = await call(client, 'search_grants', args);
    const rest = await api.request(
      `${API_PREFIX}/grants?search=energy&highlight=title&crop=description:12&fields=id&limit=5`,
    );
    const data = (result.structuredContent as { data: { highlights: Record<string, string | null> }[] }).data;
    expect(data).to.deep.equal(rest.body.data);
    expect(data.length).to.be.above(0);
    expect(
      data.some((g) => g.highlights.title?.includes('<mark>') || g.highlights.description?.includes('<mark>')),
    ).to.equal(true);
    const text = result.content[0].type === 'text' ? result.content[0].text : '';
    expect(text).to.contain('   description: ');
    const bad = errorOf(
      await call(client, 'search_grants', { search: 'energy', highlight: ['summary'], crop: 'description:0' }),
    );
    expect(bad.details!.map((d) => d.parameter)).to.have.members(['highlight', 'crop']);
  });

  it('a bad argument is a tool error VALIDATION_ERROR listing every problem, as GET /grants lists them', async function () {
    const client = await connect();
    const error = errorOf(
      await call(client, 'search_grants', { limit: -1, funderType: ['PIRATE'], open: 'yes', bogus: 1 }),
    );
    expect(error.code).to.equal('VALIDATION_ERROR');
    expect(error.message).to.equal('4 arguments are invalid; see details.');
    const byName = Object.fromEntries(error.details!.map((d) => [d.parameter, d.message]));
    expect(Object.keys(byName)).to.have.members(['limit', 'funderType', 'open', 'bogus']);
    expect(byName.open).to.equal('must be true or false (a JSON boolean)');
    expect(byName.bogus).to.match(/^is not a parameter of this endpoint \(allowed: search, /);
    const rest = await api.request(`${API_PREFIX}/grants?limit=-1&funderType=PIRATE`, { invalidRequest: true });
    expect(byName.limit).to.equal(rest.body.error.details.find((d: any) => d.parameter === 'limit').message);
    expect(byName.funderType).to.equal(rest.body.error.details.find((d: any) => d.parameter === 'funderType').message);
    const one = errorOf(await call(client, 'search_grants', { sort: 'relevance' }));
    expect(one.message).to.match(/^Invalid argument "sort": relevance needs search words/);
  });

  it('a grant\'s amounts read as words: none stated, only a ceiling, only a floor, a range; never a "?"', async function () {
    const client = await connect();
    const grants = (await api.request(`${API_PREFIX}/grants?limit=100&fields=id,amountMin,amountMax`)).body.data as {
      id: string;
      amountMin: number | null;
      amountMax: number | null;
    }[];
    const none = grants.find((g) => g.amountMin === null && g.amountMax === null);
    const both = grants.find((g) => g.amountMin !== null && g.amountMax !== null && g.amountMin !== g.amountMax);
    expect(none, 'a fixture grant without amounts').to.not.equal(undefined);
    expect(both, 'a fixture grant with a range').to.not.equal(undefined);
    // The grant's line, the first of get_grant's text (the description follows it).
    const text = async (id: string) =>
      ((await call(client, 'get_grant', { id })).content[0] as { text: string }).text.split('\n')[0];
    expect(await text(none!.id))
      .to.include('amount: not stated')
      .and.not.include('?');
    expect(await text(both!.id)).to.match(/amount: [\d,]+ [A-Z]{3} to [\d,]+ [A-Z]{3}/);
  });

  it('similar_grants answers as GET /grants/{id}/similar; an unknown id is NOT_FOUND, bad arguments a VALIDATION_ERROR naming them', async function () {
    const client = await connect();
    const id = 'grt_7f0ef37c';
    const similar = await call(client, 'similar_grants', {
      id,
      limit: 3,
      fields: ['title', 'funder'],
      eligibleProvinces: ['ONTARIO'],
    });
    const rest = (
      await api.request(`${API_PREFIX}/grants/${id}/similar?limit=3&fields=title,funder&eligibleProvinces=ONTARIO`)
    ).body;
    expect(similar.structuredContent).to.deep.equal({ data: rest.data, pagination: rest.pagination });
    expect(rest.data).to.have.length(3);
    const lines = (similar.content[0] as { text: string }).text.split('\n');
    expect(lines[0]).to.equal(`${rest.pagination.total} similar grants found; the 3 most similar:`);
    expect(lines[1]).to.equal(`1. ${rest.data[0].title} (${rest.data[0].id}); funder: ${rest.data[0].funder}`);
    expect(errorOf(await call(client, 'similar_grants', { id: 'grt_nothere' }))).to.deep.equal({
      code: 'NOT_FOUND',
      message: 'No grant has the id "grt_nothere".',
    });
    expect(errorOf(await call(client, 'similar_grants', { limit: 51 })).details).to.deep.equal([
      { parameter: 'id', message: 'is required' },
      { parameter: 'limit', message: 'must be an integer from 1 to 50' },
    ]);
  });

  it('suggest_grants answers the completions GET /grants/suggest answers for the same parameters; q is required', async function () {
    const client = await connect();
    for (const args of [
      { q: 'energy ef' },
      { q: 'agri', type: ['words', 'funders'], limit: 8, eligibleProvinces: ['QUEBEC'] },
      { q: 'agricultre', open: true },
    ]) {
      const query = Object.entries(args)
        .map(([name, value]) => `${name}=${encodeURIComponent(Array.isArray(value) ? value.join(',') : String(value))}`)
        .join('&');
      const rest = (await api.request(`${API_PREFIX}/grants/suggest?${query}`)).body.data;
      expect(rest.length, query).to.be.above(0);
      const result = await call(client, 'suggest_grants', args);
      expect(result.structuredContent, query).to.deep.equal({ data: rest });
      expect((result.content[0] as { text: string }).text).to.include(rest[0].text);
    }
    expect(errorOf(await call(client, 'suggest_grants', {})).details).to.deep.equal([
      { parameter: 'q', message: 'is required' },
    ]);
    expect(
      errorOf(await call(client, 'suggest_grants', { q: 'a'.repeat(101), limit: 21 })).details!.map(
        (d: { parameter: string }) => d.parameter,
      ),
    ).to.have.members(['q', 'limit']);
  });

  it('get_grant, list_filter_values, get_changes and get_grant_history answer as their endpoints; an unknown id is NOT_FOUND', async function () {
    const client = await connect();
    const first = (await api.request(`${API_PREFIX}/grants?limit=1`)).body.data[0];
    const grant = await call(client, 'get_grant', { id: first.id });
    expect(grant.structuredContent).to.deep.equal({
      data: (await api.request(`${API_PREFIX}/grants/${first.id}`)).body.data,
    });
    expect((grant.content[0] as { text: string }).text).to.include(first.title);
    const missing = errorOf(await call(client, 'get_grant', { id: 'grt_nothere' }));
    expect(missing).to.deep.equal({ code: 'NOT_FOUND', message: 'No grant has the id "grt_nothere".' });
    expect(errorOf(await call(client, 'get_grant', {})).details).to.deep.equal([
      { parameter: 'id', message: 'is required' },
    ]);

    const filters = await call(client, 'list_filter_values');
    expect(filters.structuredContent).to.deep.equal({
      data: (await api.request(`${API_PREFIX}/grants/filters`)).body.data,
    });

    const changes = await call(client, 'get_changes', { since: '0', limit: 3 });
    const restChanges = (await api.request(`${API_PREFIX}/grants/changes?since=0&limit=3`)).body;
    expect(changes.structuredContent).to.deep.equal({ data: restChanges.data, pagination: restChanges.pagination });
    expect((changes.structuredContent as any).data).to.have.length(3);
    expect(errorOf(await call(client, 'get_changes', { limit: 0 })).code).to.equal('VALIDATION_ERROR');

    const history = await call(client, 'get_grant_history', { id: first.id, limit: 5 });
    const restHistory = (await api.request(`${API_PREFIX}/grants/${first.id}/history?limit=5`)).body;
    expect(history.structuredContent).to.deep.equal({ data: restHistory.data, pagination: restHistory.pagination });
    expect((history.structuredContent as any).data.at(-1)).to.include({ type: 'created' });
    expect((history.content[0] as { text: string }).text).to.match(/ created$/m);
    expect(errorOf(await call(client, 'get_grant_history', { id: 'grt_nothere' })).code).to.equal('NOT_FOUND');
    expect(errorOf(await call(client, 'get_grant_history', { id: first.id, cursor: 'nope' })).details).to.deep.equal([
      {
        parameter: 'cursor',
        message:
          'is not a cursor this API gave out: leave it out for the newest versions, then send each ' +
          'pagination.nextCursor as it comes',
      },
    ]);
  });

  it("create_alert, list_alerts and delete_alert manage the subscription's alerts as /alerts does", async function () {
    const client = await connect();
    const created = await call(client, 'create_alert', {
      name: 'Ontario rebates',
      query: { eligibleProvinces: ['ONTARIO'], fundingType: ['REBATE'], open: true },
      url: 'https://partner.example/hooks/grants',
    });
    expect(created.isError ?? false, JSON.stringify(created.content)).to.equal(false);
    const alert = (created.structuredContent as any).data;
    expect(alert.id).to.match(/^alt_/);
    expect(alert.secret).to.match(/^whsec_/);
    const rest = await api.request(`${API_PREFIX}/alerts/${alert.id}`);
    expect(rest.body.data.query).to.deep.equal({ eligibleProvinces: ['ONTARIO'], fundingType: ['REBATE'], open: true });

    const listed = await call(client, 'list_alerts', { limit: 10 });
    const restList = (await api.request(`${API_PREFIX}/alerts?limit=10`)).body;
    expect(listed.structuredContent).to.deep.equal({ data: restList.data, pagination: restList.pagination });
    expect((listed.structuredContent as any).data.map((a: any) => a.id)).to.include(alert.id);

    const bad = errorOf(
      await call(client, 'create_alert', {
        name: '',
        query: { page: 2, funderType: ['PIRATE'] },
        url: 'http://127.0.0.1/',
      }),
    );
    expect(bad.code).to.equal('VALIDATION_ERROR');
    expect(bad.details!.map((d) => d.parameter)).to.have.members(['name', 'query.page', 'query.funderType', 'url']);

    expect((await call(client, 'delete_alert', { id: alert.id })).structuredContent).to.deep.equal({
      data: { id: alert.id, deleted: true },
    });
    expect((await api.request(`${API_PREFIX}/alerts/${alert.id}`)).status).to.equal(404);
    expect(errorOf(await call(client, 'delete_alert', { id: alert.id })).code).to.equal('NOT_FOUND');
  });

  it('a missing or unknown key is a 401 before any MCP message is read', async function () {
    let refused: unknown;
    try {
      await connect(null);
    } catch (error) {
      refused = error;
    }
    // The SDK's StreamableHTTPError: the HTTP status as its code, the API's error body in its message.
    expect((refused as { code?: number }).code).to.equal(401);
    expect(String(refused)).to.include('UNAUTHORIZED');
    const raw = await api.request(MCP, {
      method: 'POST',
      key: 'gk_live_unknown',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      invalidRequest: true,
    });
    expect(raw.status).to.equal(401);
    expect(raw.body.error.code).to.equal('UNAUTHORIZED');
  });

  it('answers GET and DELETE with 405 (no SSE stream, no session), and refuses what is not one JSON-RPC message in the envelope', async function () {
    const get = await api.request(MCP, { headers: { Accept: 'text/event-stream' }, invalidRequest: true });
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
    expect((await api.request(MCP, { method: 'DELETE', invalidRequest: true })).status).to.equal(405);
    // Each is refused on purpose, but the last.
    const post = (body: string, headers: Record<string, string> = {}, invalidRequest = true) =>
      api.request(MCP, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body,
        invalidRequest,
      });
    const batch = await post(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]));
    expect(batch.status).to.equal(400);
    expect(batch.body.error.details[0].message).to.match(/^must be one JSON-RPC message/);
    const notRpc = await post(JSON.stringify({ hello: 'world' }));
    expect(notRpc.status).to.equal(400);
    expect(notRpc.body.error.code).to.equal('VALIDATION_ERROR');
    const notAccepted = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      Accept: 'application/json',
    });
    expect(notAccepted.status).to.equal(406);
    expect(notAccepted.body.error.code).to.equal('NOT_ACCEPTABLE');
    const oldVersion = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      'MCP-Protocol-Version': '1999-01-01',
    });
    expect(oldVersion.status).to.equal(400);
    // Without a session, a lone tools/list is answered (stateless): the JSON-RPC response as JSON.
    const lone = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), {}, false);
    expect(lone.status).to.equal(200);
    expect(lone.headers.get('content-type')).to.match(/^application\/json/);
    const answer = lone.body;
    expect(answer.id).to.equal(7);
    expect(answer.result.tools).to.have.length(MCP_TOOL_NAMES.length);
  });

  it('hostile arguments over HTTP: nested 20,000 deep a 400 VALIDATION_ERROR; arguments that are no object a plain JSON-RPC invalid params; never an internal error', async function () {
    const { destination, raw: logged } = logLines();
    const watched = await startTestApi({ LOG_LEVEL: 'info' }, { logDestination: destination });
    try {
      const post = async (body: string) => {
        const res = await fetch(watched.url + MCP, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${watched.key}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
          body,
        });
        return { status: res.status, body: await res.json(), nosniff: res.headers.get('x-content-type-options') };
      };
      const toolCall = (name: string, args: string) =>
        `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;
      const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
      // 20,000 levels, as the arguments, inside a known argument and under an unknown one, for every tool.
      for (const tool of MCP_TOOL_NAMES) {
        for (const args of [deep(20_000), `{"search":${deep(20_000)}}`, `{"zz":${deep(20_000)}}`]) {
          const answer = await post(toolCall(tool, args));
          expect(answer.status, `${tool}: ${JSON.stringify(answer.body).slice(0, 300)}`).to.equal(400);
          expect(answer.body.error.code).to.equal('VALIDATION_ERROR');
          expect(answer.body.error.details).to.deep.equal([
            { parameter: '(body)', message: 'nests arrays and objects deeper than 32 levels' },
          ]);
          expect(answer.nosniff).to.equal('nosniff');
        }
      }
      // Nested within the bound, under an argument no tool takes: an ordinary tool error naming it.
      const shallow = await post(toolCall('search_grants', `{"zz":${deep(28)}}`));
      expect(shallow.status).to.equal(200);
      expect(JSON.parse(shallow.body.result.content[0].text).error).to.include({ code: 'VALIDATION_ERROR' });
      // Arguments that are no JSON object: the JSON-RPC error "invalid params", in words, nothing of the validator's.
      for (const [args, got] of [
        ['[1]', 'an array'],
        ['"text"', 'a string'],
        ['5', 'a number'],
        ['true', 'a boolean'],
        ['null', 'null'],
      ]) {
        const answer = await post(toolCall('search_grants', args));
        expect(answer.status).to.equal(200);
        expect(answer.body).to.deep.equal({
          jsonrpc: '2.0',
          id: 9,
          error: {
            code: -32602,
            message: `Invalid params of tools/call: "params.arguments" must be a JSON object (got ${got}).`,
          },
        });
      }
      const noName = await post('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7,"arguments":[]}}');
      expect(noName.body.error).to.deep.equal({
        code: -32602,
        message:
          'Invalid params of tools/call: "params.name" must be a string (got a number); "params.arguments" must ' +
          'be a JSON object (got an array).',
      });
      const badCursor = await post('{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":5}}');
      expect(badCursor.body.error).to.deep.equal({
        code: -32602,
        message: 'Invalid params of tools/list: "params.cursor" must be a string (got a number).',
      });
      const lines = logged.join('');
      expect(lines).not.to.match(/"level":"error"|Maximum call stack|RangeError|INTERNAL_ERROR/);
    } finally {
      await watched.stop();
    }
  });

  it('bills each tool call of a billable tool, never the handshake, the listing or get_usage; usage lists them under /mcp', async function () {
    const { key } = newSubscription();
    const client = await connect(key);
    await client.listTools();
    await client.ping();
    await call(client, 'search_grants', { search: 'energy' });
    await call(client, 'search_grants', { limit: -1 }); // an invalid call is billed, as a 400 of GET /grants is
    await call(client, 'list_filter_values');
    const id = ((await call(client, 'search_grants', { limit: 1 })) as any).structuredContent.data[0].id;
    await call(client, 'get_grant', { id });
    const viaTool = (await call(client, 'get_usage', { days: 1 })).structuredContent as any;
    const usage = (await api.request(`${API_PREFIX}/subscription/usage?days=1`, { key })).body.data;
    expect(usage.currentMonth.calls).to.equal(5);
    expect(usage.statistics.topEndpoints).to.deep.equal([{ endpoint: '/mcp', calls: 5 }]);
    expect(usage.statistics.totalCalls).to.equal(5); // the tool calls (this GET is logged once answered)
    expect(viaTool.data.currentMonth.calls).to.equal(5);
    expect(viaTool.data.statistics.topEndpoints).to.deep.equal([{ endpoint: '/mcp', calls: 5 }]);
  });

  it('a used-up allowance and a missing feature are tool errors, not billed; the handshake still works', async function () {
    const { id, key } = newSubscription({ monthlyLimit: 2 });
    api.deps.subscriptions.setFeature(id, 'grants.read', false);
    const client = await connect(key);
    const refused = errorOf(await call(client, 'get_grant', { id: 'grt_d4fd65d2' }));
    expect(refused.code).to.equal('FEATURE_NOT_AVAILABLE');
    expect(refused.message).to.include('"grants.read" feature needed by the tool get_grant');
    expect((await call(client, 'search_grants', { limit: 1 })).isError ?? false).to.equal(false);
    expect((await call(client, 'search_grants', { limit: 1 })).isError ?? false).to.equal(false);
    const over = errorOf(await call(client, 'search_grants', { limit: 1 }));
    expect(over.code).to.equal('QUOTA_EXCEEDED');
    expect((await client.listTools()).tools).to.have.length(MCP_TOOL_NAMES.length);
    const usage = (await api.request(`${API_PREFIX}/subscription/usage?days=1`, { key })).body.data;
    expect(usage.currentMonth.calls).to.equal(2);
    expect(usage.statistics.topEndpoints).to.deep.equal([{ endpoint: '/mcp', calls: 2 }]);
  });
});
