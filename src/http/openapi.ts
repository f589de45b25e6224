// The OpenAPI 3.1 document of the partner API, generated from the code's own tables: the route
// table, each endpoint's parameter specs, the one Grant schema, the report schemas, the error
// table and the rate-limit headers. Nothing here is a second copy: change a table, the document follows.
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { DEFAULT_LIMIT, FACET_NAMES, MAX_LIMIT, MAX_WINDOW } from '../grants/query.js';
import { GRANT_FIELDS, grantSchema } from '../grants/schema.js';
import { RATE_LIMIT_HEADER_NAMES } from '../ratelimit/headers.js';
import { CACHE_CONTROL, CONDITIONAL_ROUTES } from './conditional.js';
import { API_VERSION, JSON_CONTENT_TYPE } from './envelope.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { GRANT_EXPORT_PARAMS, GRANT_SEARCH_PARAMS } from './grantSearchParams.js';
import { CHANGES_MAX_LIMIT, CHANGES_PARAMS } from './changesRoute.js';
import { CSV_CONTENT_TYPE, NDJSON_CONTENT_TYPE } from './exportFormat.js';
import { DATE_MESSAGE, DATE_PATTERN, MAX_ARRAY_VALUES, type ParamSpec, type ParamSpecs } from './queryParams.js';
import { API_PREFIX, ROUTES, type RouteName, type RouteSpec } from './routeTable.js';
import type { AppState } from './state.js';
import { LIMITS_REPORT_SCHEMA, USAGE_PARAMS, USAGE_REPORT_SCHEMA } from './subscriptionRoutes.js';

/** Where the document is served, relative to API_PREFIX (no key, not billed, not counted). */
export const OPENAPI_PATH = '/openapi.json';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** Each route's query parameters, as its handler validates them. */
const ROUTE_PARAMS: Record<RouteName, ParamSpecs> = {
  grants: GRANT_SEARCH_PARAMS,
  grantFilters: {},
  grantChanges: CHANGES_PARAMS,
  grantExport: GRANT_EXPORT_PARAMS,
  grant: {},
  usage: USAGE_PARAMS,
  limits: {},
};

/** Each route's `data` and whether its envelope has pagination and facets. */
const ROUTE_DATA: Record<RouteName, { summary: string; data: Schema; paged?: true; pagination?: string; export?: true }> = {
  grants: { summary: 'Search grants', data: { type: 'array', items: ref('GrantFields') }, paged: true },
  grantFilters: { summary: 'The values each filter can take', data: ref('FilterOptions') },
  grantChanges: { summary: 'Changes to the catalog since a position (feed)', data: { type: 'array', items: ref('ChangeEntry') }, pagination: 'ChangesPagination' },
  grantExport: { summary: 'Every matching grant as NDJSON or CSV, streamed', data: ref('GrantFields'), export: true },
  grant: { summary: 'One grant by id', data: ref('Grant') },
  usage: { summary: 'Usage of this subscription', data: ref('UsageReport') },
  limits: { summary: 'Limits and features of this subscription', data: ref('LimitsReport') },
};

/**
 * A schema of the codebase (ajv's draft-07 dialect with `nullable`) as JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1: `nullable: true` becomes a "null" type; `$id` and defaults of the
 * source-record form (the served form has every field) are dropped.
 */
function toSchema2020(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toSchema2020);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  const source = schema as Schema;
  for (const [key, value] of Object.entries(source)) {
    if (key === 'nullable' || key === '$id' || key === 'default') continue;
    out[key] = toSchema2020(value);
  }
  if (source.nullable === true && typeof source.type === 'string') out.type = [source.type, 'null'];
  return out;
}

/** The Grant as served: every field present. */
const servedGrant = (): Schema => ({ ...(toSchema2020(grantSchema) as Schema), required: [...GRANT_FIELDS] });

function paramSchema(spec: ParamSpec): Schema {
  switch (spec.kind) {
    case 'integer':
    case 'number':
      return {
        type: spec.kind,
        minimum: spec.min,
        ...(spec.max === undefined ? {} : { maximum: spec.max }),
        ...('default' in spec && spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'string':
      return { type: 'string', maxLength: spec.maxLength };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', pattern: DATE_PATTERN.source };
    case 'enum':
      return { type: 'string', enum: [...spec.values] };
    case 'enumArray':
      return { type: 'array', maxItems: MAX_ARRAY_VALUES, uniqueItems: true, items: { type: 'string', enum: [...spec.values] } };
  }
}

function paramDescription(name: string, spec: ParamSpec): string {
  const parts: string[] = [];
  if ('message' in spec) parts.push(`Must be ${spec.message.replace(/^must be /, '')}.`);
  if (spec.kind === 'date') parts.push(`Must be ${DATE_MESSAGE.replace(/^must be /, '')}; a date alone means its ${spec.dayEdge === 'start' ? 'first' : 'last'} millisecond.`);
  if (spec.kind === 'enumArray') parts.push(`Repeat the parameter or separate values with commas (at most ${MAX_ARRAY_VALUES}).`);
  if (spec.kind === 'integer' && spec.clampAbove !== undefined) {
    parts.push(`Above ${spec.clampAbove} it is served as ${spec.clampAbove} (\`pagination.limit\` gives the limit in effect)${spec.default === undefined ? '' : `; default ${spec.default}`}.`);
  }
  if (name === 'limit' && spec.kind === 'integer' && spec.min === 0) parts.push('0 returns no grant: the total and the facets alone (`totalPages` 0); not with `cursor`.');
  if (name === 'sort') parts.push('Default: relevance with search words, else deadline; a leading "-" sorts descending.');
  if (name === 'cursor') {
    parts.push(
      'Cursor paging: `*` for the first page, then the `pagination.nextCursor` of each answer (null on the last page). Reaches every match; ' +
        'not with `page`; a cursor works only with the filters, search, sort and limit of the request that gave it.',
    );
  }
  if (name === 'format') parts.push('`ndjson` (default): one grant per line; `csv`: a header row, then one grant per row.');
  return parts.join(' ');
}

function parameters(route: RouteSpec): Schema[] {
  const path = route.template
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => ({ name: part.slice(1), in: 'path', required: true, schema: { type: 'string', minLength: 1 } }));
  const query = Object.entries(ROUTE_PARAMS[route.name as RouteName]).map(([name, spec]) => {
    const description = paramDescription(name, spec);
    return {
      name,
      in: 'query',
      required: false,
      ...(description === '' ? {} : { description }),
      ...(spec.kind === 'enumArray' ? { style: 'form', explode: true } : {}),
      schema: paramSchema(spec),
    };
  });
  return [...path, ...query];
}

const RATE_LIMIT_HEADERS = RATE_LIMIT_HEADER_NAMES;

/** Response headers by reference; `required` marks the rate-limit headers as always sent (X-Request-Id always is). */
function headers(names: readonly string[], required: boolean): Schema {
  return Object.fromEntries(
    names.map((name) => [name, required && name !== 'X-Request-Id' ? { ...HEADER_DOCS[name], required: true } : { $ref: `#/components/headers/${name}` }]),
  );
}

/** The statuses an operation can answer with an error, and the codes of each. */
function errorStatuses(route: RouteSpec): Map<number, ErrorCode[]> {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => {
    if (code === 'METHOD_NOT_ALLOWED') return false; // only for methods the operation does not have
    if (code === 'QUOTA_EXCEEDED') return route.billable;
    if (code === 'NOT_FOUND') return route.template.includes(':');
    if (code === 'SYNC_EXPIRED') return route.name === 'grantChanges';
    return true;
  });
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return byStatus;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A parameter is invalid; error.details lists every problem.',
  401: 'No key, a malformed Authorization header, or a key that is not valid.',
  403: 'The subscription is not active, or does not include the feature this endpoint needs.',
  404: 'No resource exists at this path.',
  410: 'The since token is older than the changes kept; start again from since=0.',
  414: 'The URL is too long.',
  429: 'The per-second rate or the monthly allowance is used up; see Retry-After.',
  500: 'An internal error; quote the request id.',
  503: 'A dependency is unavailable, the search ran past its time budget, or the service is overloaded; retry after Retry-After.',
};

function errorResponse(status: number, codes: ErrorCode[], withBody: boolean): Schema {
  const withLimits = status !== 401 && status !== 414 && status !== 500 && status !== 503;
  const names = ['X-Request-Id', ...(withLimits ? RATE_LIMIT_HEADERS : []), ...(status === 429 || status === 503 ? ['Retry-After'] : []), ...(status === 401 ? ['WWW-Authenticate'] : [])];
  const body = {
    allOf: [ref('ErrorEnvelope'), { properties: { error: { properties: { code: { enum: codes } } } } }],
  };
  return {
    description: `${ERROR_DESCRIPTIONS[status] ?? 'An error.'} Codes: ${codes.join(', ')}.`,
    headers: headers(names, false),
    ...(withBody ? { content: { 'application/json': { schema: body } } } : {}),
  };
}

function successEnvelope(route: RouteSpec): Schema {
  const { data, paged, pagination } = ROUTE_DATA[route.name as RouteName];
  const required = ['success', 'data', ...(paged || pagination ? ['pagination'] : []), 'meta'];
  return {
    type: 'object',
    additionalProperties: false,
    required,
    properties: {
      success: { const: true },
      data,
      ...(paged ? { pagination: ref('Pagination'), facets: ref('Facets') } : {}),
      ...(pagination ? { pagination: ref(pagination) } : {}),
      meta: ref('Meta'),
    },
  };
}

function operation(route: RouteSpec, method: string): Schema {
  const withBody = method === 'GET';
  const { summary, export: isExport } = ROUTE_DATA[route.name as RouteName];
  const conditional = CONDITIONAL_ROUTES.has(route.name as RouteName);
  const exportHeaders = isExport ? { 'X-Export-Count': { ...EXPORT_HEADER_DOCS['X-Export-Count'], required: true }, 'Content-Disposition': { ...EXPORT_HEADER_DOCS['Content-Disposition'], required: true } } : {};
  const content = isExport
    ? { [NDJSON_CONTENT_TYPE]: { schema: ref('GrantFields') }, [CSV_CONTENT_TYPE]: { schema: { type: 'string' } } }
    : { 'application/json': { schema: successEnvelope(route) } };
  const responses: Schema = {
    200: {
      description: isExport
        ? 'Every match, streamed: one grant per line (ndjson) or per row after a header row (csv). X-Export-Count tells how many follow; a stream cut short by a failure ends early (fewer grants than the count).'
        : withBody
          ? 'The envelope with the data.'
          : 'The headers a GET would send, without the body.',
      headers: { ...headers(['X-Request-Id', ...RATE_LIMIT_HEADERS, ...(conditional ? CONDITIONAL_HEADERS : [])], true), ...exportHeaders },
      ...(withBody ? { content } : {}),
    },
  };
  if (conditional) {
    responses[304] = {
      description: 'Not modified: If-None-Match names the current ETag. No body; not counted toward the monthly allowance (the per-second rate is spent).',
      headers: headers(['X-Request-Id', ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS], true),
    };
  }
  for (const [status, codes] of errorStatuses(route)) responses[status] = errorResponse(status, codes, withBody);
  return {
    operationId: method === 'GET' ? route.name : `${route.name}Head`,
    summary: method === 'GET' ? summary : `${summary} (headers only)`,
    description:
      `Needs the "${route.feature}" feature. ` +
      (route.billable ? 'Counts toward the monthly allowance.' : 'Not billable: never counts toward the monthly allowance.'),
    tags: [route.template.split('/')[1]],
    parameters: [...parameters(route), ...(conditional ? [IF_NONE_MATCH] : [])],
    responses,
  };
}

/** The headers of a conditional route's 200 and 304 (conditional.ts). */
const CONDITIONAL_HEADERS = ['ETag', 'Cache-Control', 'Vary'];

const IF_NONE_MATCH: Schema = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an answer you hold (or several, comma-separated): a 304 with no body when it is still current; a 304 is not counted toward the monthly allowance.',
  schema: { type: 'string', maxLength: 4096 },
};

const openapiTemplate = (template: string): string => template.replace(/:([A-Za-z]+)/g, '{$1}');

const HEADER_DOCS: Record<string, Schema> = {
  'X-Request-Id': { description: 'The id of this request; quote it when reporting a problem.', schema: { type: 'string', pattern: '^req_[A-Za-z0-9_-]{24}$' } },
  'RateLimit-Policy': { description: 'The per-second and monthly quotas (IETF httpapi RateLimit draft).', schema: { type: 'string' } },
  RateLimit: { description: 'What remains of each quota and in how many seconds it resets.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per second.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current second.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'X-RateLimit-Reset': { description: 'When the current second window resets, in epoch seconds.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'WWW-Authenticate': { description: 'The Bearer challenge.', schema: { type: 'string' } },
  ETag: { description: 'A weak validator of the answer\'s content (not of meta); send it back in If-None-Match.', schema: { type: 'string', pattern: '^W/"[A-Za-z0-9_-]+"$' } },
  'Cache-Control': { description: 'Keep the answer privately; revalidate (If-None-Match) before reusing it.', schema: { const: CACHE_CONTROL } },
  Vary: { description: 'The request headers the answer depends on.', schema: { type: 'string', pattern: 'Authorization' } },
};

const EXPORT_HEADER_DOCS: Record<string, Schema> = {
  'X-Export-Count': { description: 'How many grants the export holds: fewer received means the stream was cut.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'Content-Disposition': { description: 'attachment; filename="grants-<date>.<ndjson|csv>"', schema: { type: 'string' } },
};

const countSchema = { type: 'integer', minimum: 0 };

const codeList = (status: number): string =>
  (Object.entries(ERROR_STATUS) as [ErrorCode, number][])
    .filter(([, s]) => s === status)
    .map(([code]) => `\`${code}\``)
    .join(', ');

/** The partner guide in brief, shown at the top of /docs; the numbers come from the same tables as the server's. */
const GUIDE = [
  'Read-only access to the grants catalog.',
  '',
  '## Authentication',
  'Send your API key on every call (all but this document) as `Authorization: Bearer <key>`. A missing, malformed or revoked key is a 401 (' +
    codeList(401) +
    '). Here, paste it under **Authorize**, then use **Try it out** on any operation.',
  '',
  '## Limits and billing',
  'Each subscription has a per-second rate and a monthly allowance (UTC calendar month). Every authenticated response carries the ' +
    '`RateLimit-Policy`/`RateLimit` and `X-RateLimit-*` headers. Over the rate: 429 `RATE_LIMITED`; allowance used up: 429 `QUOTA_EXCEEDED` ' +
    '(both with `Retry-After`). Only the grant endpoints count toward the allowance; `/subscription/*` and this document never do.',
  '',
  '## Conditional requests and compression',
  'The grant endpoints send an `ETag`; send it back in `If-None-Match` to get a 304 with no body when nothing changed. A 304 is not counted ' +
    'toward the monthly allowance (it spends the per-second rate). Answers of 1 KB or more are gzip- or brotli-compressed when `Accept-Encoding` allows.',
  '',
  '## Paging and sync',
  `\`GET /grants\` pages with \`page\` and \`limit\` (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}) and reaches the first ${MAX_WINDOW.toLocaleString('en-US')} matches; ` +
    '`pagination` gives `total` and `totalPages`; `limit=0` gives the total and the facets alone. A `limit` above an endpoint\'s maximum is clamped to it (`pagination.limit` says so). Cursor paging (`cursor=*`, then each `pagination.nextCursor`) reaches every match. ' +
    '`GET /grants/export` (feature `grants.export`) streams every match as NDJSON or CSV in one call. ' +
    'To keep a copy in sync, read `GET /grants/changes` from `since=0`, then poll it with ' +
    'the last `pagination.nextSince` forever: each grant once at its latest change, and a tombstone (`deleted: true`) for each grant removed.',
  '',
  '## Your usage',
  '`GET /subscription/usage?days=N` gives this month\'s calls against the allowance and, over the last N UTC days, the total, the top ' +
    'endpoints and `statistics.daily` (one entry per day, days without calls included). The partner console at [/console](/console) draws them: ' +
    'paste a key to see the tier, the limits, the allowance used and the calls per day.',
  '',
  '## Errors',
  'Every error comes in one envelope: `{ "success": false, "error": { "code", "message", "details"? }, "meta" }`; a 400 lists every ' +
    'invalid parameter in `error.details`. Quote `meta.requestId` (also the `X-Request-Id` header) when reporting a problem.',
].join('\n');

/** The OpenAPI 3.1 document, generated from the tables. */
export function openapiDocument(): Schema {
  const paths: Schema = {};
  for (const route of ROUTES as readonly RouteSpec[]) {
    paths[openapiTemplate(route.template)] = Object.fromEntries(route.methods.map((method) => [method.toLowerCase(), operation(route, method)]));
  }
  paths[OPENAPI_PATH] = {
    head: {
      operationId: 'openapiHead',
      summary: 'This document (headers only)',
      tags: ['openapi'],
      security: [],
      responses: {
        200: { description: 'The headers a GET would send.', headers: { ETag: { schema: { type: 'string' }, required: true } } },
        304: { description: 'Unchanged since the ETag sent in If-None-Match.' },
        414: errorResponse(414, ['URI_TOO_LONG'], false),
      },
    },
    get: {
      operationId: 'openapi',
      summary: 'This document',
      description: 'Needs no key; never billed or counted. Send If-None-Match with the ETag to get a 304 when unchanged.',
      tags: ['openapi'],
      security: [],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document.',
          headers: { ETag: { schema: { type: 'string' }, required: true } },
          content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
        },
        304: { description: 'Unchanged since the ETag sent in If-None-Match.' },
        414: errorResponse(414, ['URI_TOO_LONG'], true),
      },
    },
  };
  const grant = servedGrant();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grants partner API',
      version: API_VERSION,
      description: GUIDE,
    },
    servers: [{ url: API_PREFIX }],
    security: [{ bearerKey: [] }],
    paths,
    components: {
      securitySchemes: { bearerKey: { type: 'http', scheme: 'bearer', description: 'Your API key.' } },
      headers: Object.fromEntries(
        Object.entries(HEADER_DOCS).map(([name, doc]) => [name, { ...doc, ...(name === 'X-Request-Id' ? { required: true } : {}) }]),
      ),
      schemas: {
        Grant: grant,
        GrantFields: { ...grant, required: ['id'], description: 'A grant with the fields asked for in `fields` (every field by default); id always.' },
        FilterOptions: {
          type: 'object',
          additionalProperties: false,
          required: ['funderTypes', 'fundingTypes', 'eligibleProvinces', 'targetBeneficiaries', 'currencies'],
          properties: Object.fromEntries(
            ['funderTypes', 'fundingTypes', 'eligibleProvinces', 'targetBeneficiaries', 'currencies'].map((name) => [name, { type: 'array', items: { type: 'string' } }]),
          ),
        },
        UsageReport: USAGE_REPORT_SCHEMA,
        LimitsReport: LIMITS_REPORT_SCHEMA,
        Pagination: {
          type: 'object',
          additionalProperties: false,
          required: ['page', 'limit', 'total', 'totalPages'],
          properties: {
            page: { type: 'integer', minimum: 1 },
            limit: { type: 'integer', minimum: 0, maximum: MAX_LIMIT },
            total: countSchema,
            totalPages: countSchema,
            nextCursor: { type: ['string', 'null'], description: 'Cursor paging only: the cursor of the next page, null on the last page.' },
          },
        },
        ChangesPagination: {
          type: 'object',
          additionalProperties: false,
          required: ['limit', 'hasMore', 'nextSince'],
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: CHANGES_MAX_LIMIT },
            hasMore: { type: 'boolean', description: 'True when more changes are there now: call again at once with nextSince.' },
            nextSince: { type: 'string', description: 'The since of the next call (the since sent when nothing was new): poll with it forever.' },
          },
        },
        ChangeEntry: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'deleted', 'changedAt', 'grant'],
          description: 'A grant at its latest change, or a tombstone (deleted true, grant null) of a grant removed from the catalog.',
          oneOf: [
            { properties: { deleted: { const: false }, grant: ref('Grant') } },
            { properties: { deleted: { const: true }, grant: { type: 'null' } } },
          ],
          properties: {
            id: { type: 'string' },
            deleted: { type: 'boolean' },
            changedAt: { type: 'string', format: 'date-time' },
            grant: { anyOf: [ref('Grant'), { type: 'null' }] },
          },
        },
        Facets: {
          type: 'object',
          additionalProperties: false,
          description: 'Present when `facets` was asked: each facet asked, in the order asked.',
          properties: Object.fromEntries(FACET_NAMES.map((name) => [name, { type: 'array', items: ref('FacetCount') }])),
        },
        FacetCount: {
          type: 'object',
          additionalProperties: false,
          required: ['value', 'count'],
          properties: { value: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
        },
        Meta: {
          type: 'object',
          additionalProperties: false,
          required: ['timestamp', 'requestId', 'version'],
          properties: { timestamp: { type: 'string', format: 'date-time' }, requestId: { type: 'string' }, version: { const: API_VERSION } },
        },
        ErrorEnvelope: {
          type: 'object',
          additionalProperties: false,
          required: ['success', 'error', 'meta'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              additionalProperties: false,
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
                details: {
                  type: 'array',
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['parameter', 'message'],
                    properties: { parameter: { type: 'string' }, message: { type: 'string' } },
                  },
                },
              },
            },
            meta: ref('Meta'),
          },
        },
      },
    },
  };
}

/** The document as served and committed: two-space JSON and a final newline. */
export const openapiJson = (): string => `${JSON.stringify(openapiDocument(), null, 2)}\n`;

/**
 * If-None-Match as RFC 9110 §13.1.2 reads it (weak comparison, `*`). Unlike Koa's ctx.fresh it
 * ignores the request's Cache-Control, which fetch() sets to no-cache with any conditional header.
 */
function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === '') return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** Serves the document at API_PREFIX + OPENAPI_PATH to anyone, with an ETag; answered before authentication. */
export function serveOpenapi(): Middleware<AppState> {
  const json = openapiJson();
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  const path = API_PREFIX + OPENAPI_PATH;
  return async function serveOpenapi(ctx, next) {
    if (ctx.path !== path || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.status = 200;
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'no-cache');
    if (matchesEtag(ctx.get('If-None-Match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = json;
  };
}
