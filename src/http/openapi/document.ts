// The OpenAPI 3.1 document of the partner API, generated from the code's own tables: the route
// table, each endpoint's parameter specs, the one Grant schema, the report schemas, the error
// table and the rate-limit headers. Nothing here is a second copy: change a table, the document follows.
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { DEFAULT_LIMIT, FACET_NAMES, MAX_LIMIT, MAX_WINDOW } from '../../grants/query.js';
import { GRANT_FIELDS, SERVED_FIELDS, grantSchema } from '../../grants/schema.js';
import { CROP_MARKER, DEFAULT_POST_TAG, DEFAULT_PRE_TAG, HIGHLIGHT_FIELDS } from '../../grants/highlighting.js';
import { RATE_LIMIT_HEADER_NAMES } from '../../ratelimit/headers.js';
import { CACHE_CONTROL, CONDITIONAL_ROUTES, namesTag } from '../middleware/conditionalRequests.js';
import { API_VERSION, JSON_CONTENT_TYPE } from '../envelope.js';
import { ERROR_MEANING, ERROR_STATUS, type ErrorCode } from '../errors.js';
import {
  ALERT_QUERY_PARAMS,
  GRANT_EXPORT_PARAMS,
  GRANT_SEARCH_PARAMS,
  SIMILAR_PARAMS,
} from '../parameters/grantSearchParams.js';
import { GRANT_SUGGEST_PARAMS } from '../parameters/suggestParams.js';
import { CHANGES_MAX_LIMIT, CHANGES_PARAMS } from '../handlers/changes.js';
import { HISTORY_PARAMS } from '../handlers/history.js';
import { VERSION_TYPES } from '../../grants/history.js';
import { CSV_CONTENT_TYPE, NDJSON_CONTENT_TYPE } from '../handlers/exportFormat.js';
import {
  ALERT_CODES,
  ALERT_OPERATIONS,
  ALERT_PATH_PARAMS,
  ALERT_SCHEMAS,
  ALERT_WEBHOOKS,
  alertOnlyCode,
} from './alertDocument.js';
import { scopeFor } from '../middleware/keyScopeChecks.js';
import { KEY_CODES, KEY_OPERATIONS, KEY_PATH_PARAMS, KEY_SCHEMAS, keyOnlyCode } from './keyDocument.js';
import {
  ANSWER_EXAMPLES,
  EXAMPLE_GRANT,
  EXAMPLE_META,
  EXPORT_EXAMPLES,
  VALIDATION_ERROR_EXAMPLE,
  type AnswerExample,
} from './examples.js';
import {
  DATE_MESSAGE,
  DATE_PATTERN,
  maxListValues,
  type ParamSpec,
  type ParamSpecs,
} from '../parameters/queryParams.js';
import { API_PREFIX, ROUTES, type RouteName, type RouteSpec } from '../routeTable.js';
import type { AppState } from '../state.js';
import { LIST_PARAMS } from '../parameters/commonGrantsSearch.js';
import {
  COMMON_GRANTS_OPERATIONS,
  COMMON_GRANTS_PATH_PARAM,
  COMMON_GRANTS_SCHEMAS,
  COMMON_GRANTS_TAG,
} from './commonGrantsDocument.js';
import { MCP_REQUEST_EXAMPLE, MCP_RESPONSE_EXAMPLE, MCP_SCHEMAS, MCP_TOOL_NAMES } from './mcpDocument.js';
import { LIMITS_REPORT_SCHEMA, USAGE_PARAMS, USAGE_REPORT_SCHEMA } from '../handlers/subscription.js';

/** Where the document is served, relative to API_PREFIX (no key, not billed, not counted). */
export const OPENAPI_PATH = '/openapi.json';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** A reference with the meaning of the field that holds it (OpenAPI 3.1 allows a description beside $ref). */
const described = (name: string, description: string): Schema => ({ ...ref(name), description });

/** Each route's query parameters, as its handler validates them. */
const ROUTE_PARAMS: Partial<Record<RouteName, ParamSpecs>> = {
  grants: GRANT_SEARCH_PARAMS,
  grantFilters: {},
  grantSuggest: GRANT_SUGGEST_PARAMS,
  grantChanges: CHANGES_PARAMS,
  grantExport: GRANT_EXPORT_PARAMS,
  grant: {},
  grantHistory: HISTORY_PARAMS,
  grantSimilar: SIMILAR_PARAMS,
  usage: USAGE_PARAMS,
  limits: {},
  commonGrantsOpportunities: LIST_PARAMS,
  commonGrantsSearch: {},
  commonGrantsOpportunity: {},
};

interface OperationDoc {
  /** Verb-first and never a reserved word of a client language (generators name methods after it). */
  operationId: string;
  summary: string;
  /** The named schema of the success envelope (none for the streamed export). */
  answer?: string;
  /** What the operation's description says beyond the feature, the billing and HEAD. */
  more?: string;
}

/** How a partner sees the grants still open first (the default order lists the oldest deadlines first). */
const OPEN_GRANTS_FIRST =
  'Without `search` or `sort`, grants come by deadline, the oldest first, closed grants included: ask for ' +
  '`open=true&sort=deadline` to get the grants still accepting applications, closing soonest first (those ' +
  'without a deadline last).';

/** The read-only routes' one operation each (the alert routes are described per method: alertDocument.ts). */
const OPERATIONS: Partial<Record<RouteName, OperationDoc>> = {
  grants: {
    operationId: 'searchGrants',
    summary: 'Search grants',
    answer: 'GrantSearchAnswer',
    more: OPEN_GRANTS_FIRST,
  },
  grantFilters: {
    operationId: 'getGrantFilters',
    summary: 'The values each filter can take',
    answer: 'GrantFiltersAnswer',
  },
  grantSuggest: {
    operationId: 'suggestGrants',
    summary: 'Completions of the text typed so far (search as you type)',
    answer: 'GrantSuggestAnswer',
    more:
      "Completes the last word typed from the catalog's words, grant titles and funder names, each with how " +
      'many grants it would find under the filters ' +
      '(and the words typed before it); the most grants first, then by text. Billed as a search.',
  },
  grantChanges: {
    operationId: 'getGrantChanges',
    summary: 'Changes to the catalog since a position (feed)',
    answer: 'GrantChangesAnswer',
  },
  grantExport: {
    operationId: 'exportGrants',
    summary: 'Every matching grant as NDJSON or CSV, streamed',
    more: 'The order is that of `GET /grants`; `open=true` keeps to the grants still accepting applications.',
  },
  grant: { operationId: 'getGrant', summary: 'One grant by id', answer: 'GrantAnswer' },
  grantHistory: {
    operationId: 'getGrantHistory',
    summary: "A grant's history: its versions, newest first",
    answer: 'GrantHistoryAnswer',
    more:
      'Each run of the indexer that adds, changes or removes the grant records a version: when, what ' +
      '(created, updated, deleted) and, for an update, ' +
      ("each field it changed with its value before and after. Versions are kept for the operator's " +
        "retention (a year by default); a removed grant's ") +
      ('history still answers while it holds a version (its last version is the deletion); an id neither in ' +
        'the catalog nor in the history is a 404.'),
  },
  grantSimilar: {
    operationId: 'getSimilarGrants',
    summary: 'The grants most like one grant, by their text',
    answer: 'GrantSimilarAnswer',
    more:
      "The grant's most distinctive words (title, funder, description; by tf-idf over the catalog) are " +
      'searched for, and each grant holding one is scored by ' +
      ('the rarity of the words it shares, weighted by the field it holds them in (title above funder above ' +
        'description); the best first, ties by id. ') +
      'The grant itself is never in the list. The filters apply as in `GET /grants`. An unknown id is a 404.',
  },
  usage: { operationId: 'getUsage', summary: 'Usage of this subscription', answer: 'UsageAnswer' },
  limits: { operationId: 'getLimits', summary: 'Limits and features of this subscription', answer: 'LimitsAnswer' },
};

/** The tags, in the order /docs shows them. */
const TAGS = [
  {
    name: 'grants',
    description: 'The grants catalog: search, filters, one grant, the changes feed and the export. Billable.',
  },
  { name: 'subscription', description: "Your subscription's usage, limits and features. Never billed." },
  {
    name: 'alerts',
    description:
      'Saved searches that POST signed webhooks when a grant enters, changes within or leaves their results. Billable.',
  },
  {
    name: 'keys',
    description:
      "Your subscription's API keys: list, create with restrictions (scopes, origins, IP ranges, expiry, " +
      'rate), revoke. Needs the keys:manage scope. Billable.',
  },
  COMMON_GRANTS_TAG,
  {
    name: 'mcp',
    description:
      'The MCP server for AI agents: the catalog and alerts as tools. Each tool call is billed as its endpoint is.',
  },
  {
    name: 'webhooks',
    description: 'What an alert POSTs to its URL (signed per Standard Webhooks); your receiver answers 2xx.',
  },
  { name: 'openapi', description: 'This document. No key needed; never billed.' },
];

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
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Schema).map(([name, property]) => [name, toSchema2020(property)]))
        : toSchema2020(value);
  }
  if (source.nullable === true && typeof source.type === 'string') out.type = [source.type, 'null'];
  return out;
}

/** The Grant as served: every field present. */
const servedGrant = (): Schema => ({
  ...(toSchema2020(grantSchema) as Schema),
  required: [...SERVED_FIELDS],
  description:
    'A grant of the catalog, every field present (unknown values null, empty lists []), in this field order.',
});

/** A parameter's JSON Schema (what OpenAPI publishes and the MCP tools take as arguments). */
export function paramSchema(spec: ParamSpec): Schema {
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
      return {
        type: 'array',
        maxItems: maxListValues(spec.values),
        uniqueItems: true,
        items: { type: 'string', enum: [...spec.values] },
      };
  }
}

/** What a parameter means (its definition's description), then its rule, written for a JSON value. */
function jsonParamDescription(name: string, spec: ParamSpec): string {
  const parts = [spec.description];
  if ('message' in spec) parts.push(`Must be ${spec.message.replace(/^must be /, '')}.`);
  if (spec.kind === 'date')
    parts.push(
      `Must be ${DATE_MESSAGE.replace(/^must be /, '')}; a date alone means its ` +
        `${spec.dayEdge === 'start' ? 'first' : 'last'} millisecond.`,
    );
  if (spec.kind === 'enumArray') parts.push('A JSON array; a grant matches when it has any of the values (OR).');
  if (name === 'sort') parts.push('Default: relevance with search words, else deadline; relevance needs search words.');
  return parts.join(' ');
}

/**
 * Parameters given as one JSON object instead of a query string (lists as JSON arrays, booleans
 * and numbers as JSON ones): an alert's `query`, an MCP tool's arguments.
 */
export function jsonParamsSchema(specs: ParamSpecs, required: readonly string[] = []): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [
        name,
        { ...paramSchema(spec), description: jsonParamDescription(name, spec), examples: [spec.example] },
      ]),
    ),
    ...(required.length === 0 ? {} : { required: [...required] }),
  };
}

/** The parameter's meaning (from its definition), then its rule and how to write it. */
function paramDescription(name: string, spec: ParamSpec): string {
  const parts: string[] = [spec.description];
  if ('message' in spec) parts.push(`Must be ${spec.message.replace(/^must be /, '')}.`);
  if (spec.kind === 'date')
    parts.push(
      `Must be ${DATE_MESSAGE.replace(/^must be /, '')}; a date alone means its ` +
        `${spec.dayEdge === 'start' ? 'first' : 'last'} millisecond.`,
    );
  if (spec.kind === 'enumArray') {
    const [a, b] = spec.example as readonly string[];
    const second = b ?? a;
    parts.push(
      `A list, written comma-separated: \`${name}=${a},${second}\` (values of one parameter are ORed, at ` +
        `most ${maxListValues(spec.values as readonly string[])} distinct). ` +
        (`The server also accepts the parameter repeated (\`${name}=${a}&${name}=${second}\`) and the ` +
          `bracketed form (\`${name}[]=${a}&${name}[]=${second}\`).`),
    );
  }
  if (spec.kind === 'integer' && spec.clampAbove !== undefined) {
    parts.push(
      `Above ${spec.clampAbove} it is served as ${spec.clampAbove} (\`pagination.limit\` gives the limit in ` +
        `effect)${spec.default === undefined ? '' : `; default ${spec.default}`}.`,
    );
  }
  if (name === 'limit' && spec.kind === 'integer' && spec.min === 0)
    parts.push('0 returns no grant: the total and the facets alone (`totalPages` 0); not with `cursor`.');
  if (name === 'sort') parts.push('Default: relevance with search words, else deadline; relevance needs search words.');
  if (name === 'cursor')
    parts.push(
      'Not with `page`; a cursor works only with the filters, search, sort and limit of the request that gave ' +
        'it; nextCursor is null on the last page.',
    );
  if (name === 'format')
    parts.push('`ndjson` (default): one grant per line; `csv`: a header row, then one grant per row.');
  if (spec.fillIn === false) parts.push(`For example \`${String(spec.example)}\`.`);
  return parts.join(' ');
}

/** The parameter's `example`, which /docs fills in, unless its definition keeps it to the description. */
const exampleOf = (spec: ParamSpec): Schema => (spec.fillIn === false ? {} : { example: spec.example });

function parameters(route: RouteSpec): Schema[] {
  const path = route.template
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => ({
      name: part.slice(1),
      in: 'path',
      required: true,
      description: 'The id of the grant (its `id` field). An unknown id, whatever its characters, is a 404.',
      schema: { type: 'string', minLength: 1 },
      example: EXAMPLE_GRANT.id,
    }));
  const query = Object.entries(ROUTE_PARAMS[route.name as RouteName] ?? {}).map(([name, spec]) => ({
    name,
    in: 'query',
    required: spec.required === true,
    description: paramDescription(name, spec),
    ...(spec.kind === 'enumArray' ? { style: 'form', explode: false } : {}),
    schema: paramSchema(spec),
    ...exampleOf(spec),
  }));
  return [...path, ...query];
}

/** Headers by reference to components.headers. */
const headerRefs = (names: readonly string[]): Schema =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** The codes each error status of an operation can carry. */
function errorStatuses(route: RouteSpec): Map<number, ErrorCode[]> {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => {
    if (code === 'METHOD_NOT_ALLOWED') return false; // only for methods the operation does not have
    // The MCP endpoint bills each tool call: a used-up allowance is a tool error there, not a 429.
    if (code === 'QUOTA_EXCEEDED') return route.billable && route.billedByHandler !== true;
    if (code === 'NOT_FOUND') return route.template.includes(':');
    if (code === 'SYNC_EXPIRED') return route.name === 'grantChanges';
    if (code === 'NOT_ACCEPTABLE') return route.name === 'mcp';
    if (code === 'PAYLOAD_TOO_LARGE' || code === 'UNSUPPORTED_MEDIA_TYPE')
      return route.name === 'mcp' || route.name === 'commonGrantsSearch';
    if (ALERT_CODES.includes(code) || KEY_CODES.includes(code)) return false;
    return true;
  });
  return byStatus(codes);
}

function byStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const statuses = new Map<number, ErrorCode[]>();
  for (const code of codes) statuses.set(ERROR_STATUS[code], [...(statuses.get(ERROR_STATUS[code]) ?? []), code]);
  return new Map([...statuses].sort(([a], [b]) => a - b));
}

/** The headers an error of this status always carries (the rate-limit headers come with some errors; see the guide). */
const errorHeaders = (status: number): string[] => [
  'X-Request-Id',
  ...(status === 429 || status === 503 ? ['Retry-After'] : []),
  ...(status === 401 ? ['WWW-Authenticate'] : []),
];

function errorResponse(status: number, codes: ErrorCode[], example?: unknown, schema = 'ErrorEnvelope'): Schema {
  const noBody = status === 431 ? ' A 431 refused before its method is known has no body.' : '';
  return {
    description: `${codes.map((code) => `\`${code}\`: ${ERROR_MEANING[code]}.`).join(' ')}${noBody}`,
    headers: headerRefs(errorHeaders(status)),
    content: { 'application/json': { schema: ref(schema), ...(example === undefined ? {} : { example }) } },
    // The codes this status carries here (error.code is one of them); the response check of the tests reads it.
    'x-error-codes': codes,
  };
}

function successEnvelope(description: string, data: Schema, extra: Schema = {}): Schema {
  const paged = 'pagination' in extra;
  return {
    type: 'object',
    additionalProperties: false,
    description,
    required: ['success', 'data', ...(paged ? ['pagination'] : []), 'meta'],
    properties: {
      success: { type: 'boolean', const: true, description: 'Always true in an answer that succeeded.' },
      data,
      ...extra,
      meta: described('Meta', 'About this answer.'),
    },
  };
}

/** The named success envelopes, one per JSON operation. */
const ANSWERS: Record<string, Schema> = {
  GrantSearchAnswer: successEnvelope(
    'A page of grants matching the search.',
    { type: 'array', description: 'The grants of this page, in the order asked.', items: ref('GrantFields') },
    {
      pagination: described('Pagination', 'Where this page lies in the results.'),
      facets: described('Facets', 'The value counts asked for in `facets`; absent without `facets`.'),
      suggestion: {
        description:
          'Present with `search`: a "did you mean", or null. Set when the search found fewer than 3 grants and ' +
          'respelling its unknown or rare words (each replaced by the closest catalog word within the typo rule ' +
          'of `typos`, the most frequent on ties) finds more, with the same filters and `typos`.',
        type: ['object', 'null'],
        additionalProperties: false,
        required: ['search', 'total'],
        properties: {
          search: {
            type: 'string',
            description: 'The search with its misspelt words replaced: send it as `search` to see the grants.',
            examples: ['broadband internet'],
          },
          total: {
            type: 'integer',
            minimum: 1,
            description: 'How many grants it finds, with the same filters and `typos`.',
            examples: [12],
          },
        },
        examples: [{ search: 'broadband internet', total: 12 }, null],
      },
    },
  ),
  GrantSuggestAnswer: successEnvelope('The completions of the typed text, the most grants first, then by text.', {
    type: 'array',
    description:
      'At most `limit` completions; empty when nothing completes the last word under the filters (or the text ' +
      'holds no word).',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['text', 'type', 'count'],
      properties: {
        text: {
          type: 'string',
          description:
            'A word: the typed text with its last word completed (folded, lower case), the words before it as ' +
            'typed. A title or funder: the whole name, as written.',
          examples: ['clean energy'],
        },
        type: {
          type: 'string',
          enum: ['word', 'title', 'funder'],
          description: 'What was completed: a catalog word, a grant title or a funder name.',
        },
        count: {
          type: 'integer',
          minimum: 1,
          description:
            'How many grants, under the filters and the words typed before, hold the word (as written, in any ' +
            'text field), bear the title, or come from the funder.',
          examples: [7],
        },
      },
    },
  }),
  GrantFiltersAnswer: successEnvelope(
    'The values present in the catalog for each filter.',
    described('FilterOptions', 'The values of each filter.'),
  ),
  GrantChangesAnswer: successEnvelope(
    'A page of the changes feed.',
    { type: 'array', description: 'The changes after `since`, oldest first.', items: ref('ChangeEntry') },
    { pagination: described('ChangesPagination', 'Where to read the feed next.') },
  ),
  GrantAnswer: successEnvelope('One grant.', described('Grant', 'The grant.')),
  GrantHistoryAnswer: successEnvelope(
    "A page of a grant's history, newest first.",
    { type: 'array', description: 'The versions of this page, newest first.', items: ref('GrantVersion') },
    { pagination: described('ListPagination', 'Where to read the next (older) page.') },
  ),
  GrantSimilarAnswer: successEnvelope(
    'The grants most like the grant asked for, the most similar first.',
    {
      type: 'array',
      description: 'The similar grants, the most similar first (at most `limit`).',
      items: ref('GrantFields'),
    },
    {
      pagination: described(
        'Pagination',
        'Always one page: `total` counts every grant found similar under the filters (sharing at least one of ' +
          'the words searched).',
      ),
    },
  ),
  UsageAnswer: successEnvelope('The usage report of the subscription.', described('UsageReport', 'The usage report.')),
  LimitsAnswer: successEnvelope(
    'The limits and features of the subscription.',
    described('LimitsReport', 'The limits report.'),
  ),
  AlertAnswer: successEnvelope('One alert.', described('Alert', 'The alert.')),
  AlertCreatedAnswer: successEnvelope(
    'The alert created, with its signing secret (shown this once).',
    described('AlertCreated', 'The alert and its secret.'),
  ),
  AlertDeletedAnswer: successEnvelope('The alert deleted.', described('AlertDeleted', 'Which alert was deleted.')),
  AlertListAnswer: successEnvelope(
    'A page of alerts, newest first.',
    { type: 'array', description: 'The alerts of this page.', items: ref('Alert') },
    { pagination: described('ListPagination', 'Where to read the next page.') },
  ),
  SecretRotationAnswer: successEnvelope(
    'The new signing secret (shown this once).',
    described('SecretRotation', 'The new secret.'),
  ),
  KeyListAnswer: successEnvelope('The active keys of the subscription, oldest first.', {
    type: 'array',
    description: 'The keys.',
    items: ref('Key'),
  }),
  KeyCreatedAnswer: successEnvelope(
    'The key created, with the key itself (shown this once).',
    described('KeyCreated', 'The key and its value.'),
  ),
  KeyRevokedAnswer: successEnvelope('The key revoked.', described('KeyRevoked', 'Which key was revoked.')),
  DeliveryAnswer: successEnvelope('One message of the delivery log.', described('Delivery', 'The message.')),
  DeliveryListAnswer: successEnvelope(
    'A page of the delivery log, newest first.',
    { type: 'array', description: 'The messages of this page.', items: ref('Delivery') },
    { pagination: described('ListPagination', 'Where to read the next page.') },
  ),
};

/** One method of a configuration route: an alert route (alertDocument.ts) or a key route (keyDocument.ts). */
function configOperation(route: RouteSpec, method: string): Schema {
  const name = route.name as RouteName;
  const isKey = route.template.startsWith('/keys');
  const doc = (isKey ? KEY_OPERATIONS : ALERT_OPERATIONS)[`${name} ${method}`];
  const pathDocs = isKey ? KEY_PATH_PARAMS : ALERT_PATH_PARAMS;
  const pathParams = route.template
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => ({
      name: part.slice(1),
      in: 'path',
      required: true,
      ...pathDocs[part.slice(1)],
      schema: { type: 'string', minLength: 1 },
    }));
  const query = Object.entries(doc.params).map(([param, spec]) => ({
    name: param,
    in: 'query',
    required: false,
    description: paramDescription(param, spec),
    schema: paramSchema(spec),
    ...exampleOf(spec),
  }));
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter(
    (code) =>
      code !== 'METHOD_NOT_ALLOWED' &&
      code !== 'SYNC_EXPIRED' &&
      // POST /alerts: a 404 replays an Idempotency-Key whose alert was deleted since (its secret with it).
      (code !== 'NOT_FOUND' || route.template.includes(':') || (!isKey && name === 'alerts' && method === 'POST')) &&
      (isKey ? keyOnlyCode(code, name, method) : alertOnlyCode(code, name, method) && !KEY_CODES.includes(code)),
  );
  const responses: Schema = {
    [doc.status]: {
      description: doc.status === 202 ? 'Accepted: the message is queued for delivery.' : 'The envelope with the data.',
      headers: headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES]),
      content: {
        'application/json': {
          schema: ref(doc.answer),
          examples: {
            example: { summary: `${method} ${API_PREFIX}${openapiTemplate(route.template)}`, value: doc.example },
          },
        },
      },
    },
  };
  for (const [status, statusCodes] of byStatus(codes)) responses[status] = errorResponse(status, statusCodes);
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description:
      `Needs the \`${route.feature}\` feature and the \`${scopeFor(route, method)}\` scope. Counts toward ` +
      `the monthly allowance.` +
      (method === 'GET' ? ' `HEAD` on the same path answers the same status and headers, without the body.' : '') +
      (method === 'POST' && !isKey
        ? ' Send an `Idempotency-Key` header to make a retry safe: the same key and body within 24 hours replay ' +
          'the first answer.'
        : '') +
      (method === 'POST' && isKey
        ? ' Takes no `Idempotency-Key`: replaying the answer would mean keeping the new key in clear; a retry ' +
          'makes a second key, which `GET /keys` lists.'
        : ''),
    tags: [isKey ? 'keys' : 'alerts'],
    parameters: [...pathParams, ...query, ...(method === 'POST' && !isKey ? [IDEMPOTENCY_KEY] : [])],
    ...(doc.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref(doc.body),
                ...(doc.bodyExample === undefined ? {} : { example: doc.bodyExample }),
              },
            },
          },
        }),
    responses,
  };
}

const IDEMPOTENCY_KEY: Schema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  // No `example`: /docs would fill the same key into every POST, and a key sent with another request is a 409.
  description:
    'A key of yours (1 to 255 printable characters) that makes this POST safe to retry: the same key and body ' +
    'within 24 hours answer as the first time and change nothing. A signing secret in that answer is replayed ' +
    'from its encrypted copy while its alert exists; once the alert is deleted, a replay is a 404. A new key for ' +
    'each new request: for example `create-alert-7f3c2a`.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const jsonExample = (name: string, example: AnswerExample): Schema => ({
  [name]: { summary: `GET ${API_PREFIX}${example.request}`, value: example.value },
});

function operation(route: RouteSpec): Schema {
  const name = route.name as RouteName;
  const { operationId, summary, answer, more } = OPERATIONS[name]!;
  const conditional = CONDITIONAL_ROUTES.has(name);
  const successHeaders = ['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, ...(conditional ? CONDITIONAL_HEADERS : [])];
  let ok: Schema;
  if (answer === undefined) {
    ok = {
      description:
        'Every match, streamed: one grant per line (ndjson), or a header row then one grant per row (csv). ' +
        'X-Export-Count tells how many follow; a stream cut short by a failure ends early (fewer grants than the ' +
        'count).',
      headers: headerRefs([...successHeaders, ...EXPORT_HEADERS]),
      content: {
        [NDJSON_CONTENT_TYPE]: {
          schema: {
            type: 'string',
            description:
              'Newline-delimited JSON: each line one grant as [GrantFields](#/components/schemas/GrantFields) ' +
              '(the fields asked for, id always), each line ending with \\n. The line schema is also in ' +
              '`x-item-schema` (the `itemSchema` of OpenAPI 3.2).',
          },
          'x-item-schema': ref('GrantFields'),
          examples: {
            rebatesInOntario: {
              summary: `GET ${API_PREFIX}${EXPORT_EXAMPLES.ndjson.request}`,
              value: EXPORT_EXAMPLES.ndjson.text,
            },
          },
        },
        [CSV_CONTENT_TYPE]: {
          schema: {
            type: 'string',
            description:
              'CSV (RFC 4180, CRLF line ends): a header row of field names, then one grant per row; the columns ' +
              'are the fields of [GrantFields](#/components/schemas/GrantFields) asked for, id first. null is an ' +
              'empty cell, a list its values joined with `|`.',
          },
          examples: {
            rebatesInOntario: {
              summary: `GET ${API_PREFIX}${EXPORT_EXAMPLES.csv.request}`,
              value: EXPORT_EXAMPLES.csv.text,
            },
          },
        },
      },
    };
  } else {
    ok = {
      description: 'The envelope with the data.',
      headers: headerRefs(successHeaders),
      content: {
        'application/json': {
          schema: ref(answer),
          examples: jsonExample('fixtureCatalog', ANSWER_EXAMPLES[name as keyof typeof ANSWER_EXAMPLES]),
        },
      },
    };
  }
  const responses: Schema = { 200: ok };
  if (conditional) {
    responses[304] = {
      description:
        'Not modified: If-None-Match names the current ETag. No body; not counted toward the monthly allowance ' +
        '(the per-second rate is spent).',
      headers: headerRefs(successHeaders),
    };
  }
  for (const [status, codes] of errorStatuses(route)) {
    responses[status] = errorResponse(
      status,
      codes,
      name === 'grants' && status === 400 ? VALIDATION_ERROR_EXAMPLE.value : undefined,
    );
  }
  return {
    operationId,
    summary,
    description:
      `Needs the \`${route.feature}\` feature and the \`${route.scope}\` scope. ` +
      (route.billable
        ? 'Counts toward the monthly allowance.'
        : 'Not billable: never counts toward the monthly allowance.') +
      ' `HEAD` on the same path answers the same status and headers, without the body.' +
      (more === undefined ? '' : ` ${more}`),
    tags: [route.template.split('/')[1]],
    parameters: [...parameters(route), ...(conditional ? [{ $ref: '#/components/parameters/If-None-Match' }] : [])],
    responses,
  };
}

/**
 * A CommonGrants route's one operation (commonGrantsDocument.ts): the protocol's answer shapes, errors in
 * CommonGrantsErrorEnvelope.
 */
function commonGrantsOperation(route: RouteSpec): Schema {
  const doc = COMMON_GRANTS_OPERATIONS[route.name as RouteName]!;
  const method = route.methods[0] === 'POST' ? 'POST' : 'GET';
  const responses: Schema = {
    200: {
      description: 'The answer in the shape of the protocol.',
      headers: headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES]),
      content: {
        'application/json': {
          schema: ref(doc.answer),
          examples: { fixtureCatalog: { summary: `${method} ${API_PREFIX}${doc.request}`, value: doc.example } },
        },
      },
    },
  };
  for (const [status, codes] of errorStatuses(route))
    responses[status] = errorResponse(status, codes, undefined, 'CommonGrantsErrorEnvelope');
  const pathParams = route.template
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => ({
      name: part.slice(1),
      in: 'path',
      required: true,
      ...COMMON_GRANTS_PATH_PARAM,
      schema: { type: 'string', minLength: 1 },
    }));
  const query = Object.entries(ROUTE_PARAMS[route.name as RouteName] ?? {}).map(([name, spec]) => ({
    name,
    in: 'query',
    required: false,
    description: paramDescription(name, spec),
    schema: paramSchema(spec),
    example: spec.example,
  }));
  return {
    [method.toLowerCase()]: {
      operationId: doc.operationId,
      summary: doc.summary,
      description:
        `Needs the \`${route.feature}\` feature and the \`${route.scope}\` scope. Counts toward the monthly ` +
        `allowance.` +
        (method === 'GET' ? ' `HEAD` on the same path answers the same status and headers, without the body.' : '') +
        ` ${doc.description}`,
      tags: [COMMON_GRANTS_TAG.name],
      parameters: [...pathParams, ...query],
      ...(doc.body === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: ref(doc.body),
                  examples: { fixtureCatalog: { summary: 'The body of the example answer', value: doc.exampleBody } },
                },
              },
            },
          }),
      responses,
    },
  };
}

/** POST /mcp: JSON-RPC in, JSON-RPC out; its tools are described by the server itself (tools/list). */
function mcpOperation(route: RouteSpec): Schema {
  const headers = headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES]);
  const responses: Schema = {
    200: {
      description: 'The JSON-RPC response (one JSON object; no SSE stream is opened).',
      headers,
      content: {
        'application/json': {
          schema: ref('JsonRpcResponse'),
          examples: { searchGrants: { summary: 'tools/call search_grants', value: MCP_RESPONSE_EXAMPLE } },
        },
      },
    },
    202: { description: 'A notification or a response was accepted; no body.', headers },
  };
  for (const [status, codes] of errorStatuses(route)) responses[status] = errorResponse(status, codes);
  return {
    operationId: 'postMcpMessage',
    summary: 'MCP server for AI agents (JSON-RPC over Streamable HTTP)',
    description:
      `The Model Context Protocol server: register this URL in an MCP client (Streamable HTTP transport) ` +
      `with your key as \`Authorization: Bearer <key>\`. ` +
      ('Stateless: no session, each POST carries one JSON-RPC message (GET and DELETE are 405: no SSE ' +
        'stream, no session to end). ') +
      (`Needs the \`${route.feature}\` feature; each tool also needs the feature and the key scope of the ` +
        `endpoint it mirrors (a missing scope is a tool error \`SCOPE_NOT_ALLOWED\`). `) +
      (`Tools: ${MCP_TOOL_NAMES.map((name) => `\`${name}\``).join(', ')}; \`tools/list\` describes each with ` +
        `its input and output schema. `) +
      ('Each tools/call of a tool whose endpoint is billable counts one call toward the monthly allowance ' +
        '(get_usage is not billed); initialize, tools/list and notifications are never billed. ') +
      ('Every POST spends the per-second rate. A tool refused (invalid arguments, unknown id, allowance used ' +
        'up, missing feature) answers a tool error ') +
      '(`isError: true`) whose text is `{"error":{"code","message","details"?}}` with the codes below.',
    tags: ['mcp'],
    parameters: [],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref('JsonRpcMessage'),
          examples: { searchGrants: { summary: 'tools/call search_grants', value: MCP_REQUEST_EXAMPLE } },
        },
      },
    },
    responses,
  };
}

/** The headers of a conditional route's 200 and 304 (conditionalRequests.ts). */
const CONDITIONAL_HEADERS = ['ETag', 'Cache-Control', 'Vary'];
const EXPORT_HEADERS = ['X-Export-Count', 'Content-Disposition'];

const IF_NONE_MATCH: Schema = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of an answer you hold (or several, comma-separated): a 304 with no body when it is still current; ' +
    'a 304 is not counted toward the monthly allowance.',
  schema: { type: 'string', maxLength: 4096 },
  example: 'W/"J6A071rvPgOx5II7haMBrVO6Cec"',
};

const openapiTemplate = (template: string): string => template.replace(/:([A-Za-z]+)/g, '{$1}');

/** Every response header, each as it is on the answers that declare it (always sent there). */
const HEADER_DOCS: Record<string, Schema> = {
  'X-Request-Id': {
    description: 'The id of this request; quote it when reporting a problem.',
    schema: { type: 'string', pattern: '^req_[A-Za-z0-9_-]{24}$' },
    example: EXAMPLE_META.requestId,
  },
  'RateLimit-Policy': {
    description: 'The per-second and monthly quotas (IETF httpapi RateLimit draft).',
    schema: { type: 'string' },
    example: '"second";q=50;w=1, "month";q=100000;w=2592000',
  },
  RateLimit: {
    description: 'What remains of each quota and in how many seconds it resets.',
    schema: { type: 'string' },
    example: '"second";r=49;t=1, "month";r=98750;t=658800',
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per second.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '50',
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current second.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '49',
  },
  'X-RateLimit-Reset': {
    description: 'When the current second window resets, in epoch seconds.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795424401',
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1',
  },
  'WWW-Authenticate': {
    description: 'The Bearer challenge.',
    schema: { type: 'string' },
    example: 'Bearer realm="grants-api"',
  },
  ETag: {
    description: "A validator of the answer's content (not of meta); send it back in If-None-Match.",
    schema: { type: 'string', pattern: '^(W/)?"[A-Za-z0-9_-]+"$' },
    example: 'W/"J6A071rvPgOx5II7haMBrVO6Cec"',
  },
  'Cache-Control': {
    description: 'Keep the answer privately; revalidate (If-None-Match) before reusing it.',
    schema: { type: 'string', const: CACHE_CONTROL },
    example: CACHE_CONTROL,
  },
  Vary: {
    description: 'The request headers the answer depends on.',
    schema: { type: 'string', pattern: 'Authorization' },
    example: 'Authorization, Accept-Encoding',
  },
  'X-Export-Count': {
    description: 'How many grants the export holds: fewer received means the stream was cut.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '2',
  },
  'Content-Disposition': {
    description: 'The file name to save the export as: grants-<date of the request>.<ndjson|csv>.',
    schema: { type: 'string' },
    example: 'attachment; filename="grants-2026-11-23.csv"',
  },
};

const countSchema = (description: string): Schema => ({ type: 'integer', minimum: 0, description });

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
  'Send your API key on every call (all but this document) as `Authorization: Bearer <key>`. A missing, ' +
    'malformed, revoked or expired key is a 401 (' +
    codeList(401) +
    '). Here, paste it under **Authorize**, then use **Try it out** on any operation.',
  '',
  '## Open grants first',
  `${OPEN_GRANTS_FIRST} For example \`GET ${API_PREFIX}/grants?open=true&sort=deadline&eligibleProvinces=ONTARIO\`.`,
  '',
  'A key may carry restrictions: scopes (what it may call), origins (the web pages it may be used from), IP ' +
    'ranges, an expiry and a rate of its own ' +
    ("inside the subscription's. A call outside its scopes is a 403 `SCOPE_NOT_ALLOWED` naming the scope " +
      'needed; a browser request from an origin it ') +
    ('does not list is a 403 `ORIGIN_NOT_ALLOWED` (origins stop other web pages, not scripts: IP ranges are ' +
      'the real boundary); a request from another ') +
    ('address is a 403 `IP_NOT_ALLOWED`; past its expiry it is a 401. `GET /subscription/limits` shows the ' +
      'calling key and its restrictions; the `keys` ') +
    "operations list, create (with at most the calling key's rights) and revoke keys.",
  '',
  '## Limits and billing',
  'Each subscription has a per-second rate and a monthly allowance (UTC calendar month). Every authenticated ' +
    'response carries the `RateLimit-Policy`/`RateLimit` and `X-RateLimit-*` headers (errors too, from the rate ' +
    'check on: 400, 403, 404, 410, 429). Over the rate: 429 `RATE_LIMITED`; allowance used up: 429 ' +
    '`QUOTA_EXCEEDED` (both with `Retry-After`). Only the grant endpoints count toward the allowance; ' +
    '`/subscription/*` and this document never do.',
  '',
  '## HEAD',
  'Every GET operation below also answers `HEAD` on the same path: the status and headers its `GET` would send, ' +
    'without the body, authenticated, limited and billed as the `GET`. The `HEAD` operations are left out of this ' +
    'document so that each operation is listed once.',
  '',
  '## Lists in the query',
  'A list parameter (`eligibleProvinces`, `facets`, `fields`, …) is written comma-separated: ' +
    '`eligibleProvinces=QUEBEC,ONTARIO`. The server also accepts it repeated ' +
    '(`eligibleProvinces=QUEBEC&eligibleProvinces=ONTARIO`) or bracketed (`eligibleProvinces[]=QUEBEC`).',
  '',
  '## Conditional requests and compression',
  'The grant endpoints send an `ETag`; send it back in `If-None-Match` to get a 304 with no body when nothing ' +
    'changed. A 304 is not counted toward the monthly allowance (it spends the per-second rate). Answers of 1 KB ' +
    'or more are gzip- or brotli-compressed when `Accept-Encoding` allows.',
  '',
  '## Paging and sync',
  `\`GET /grants\` pages with \`page\` and \`limit\` (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}) and ` +
    `reaches the first ${MAX_WINDOW.toLocaleString('en-US')} matches; ` +
    ('`pagination` gives `total` and `totalPages`; `limit=0` gives the total and the facets alone. A `limit` ' +
      "above an endpoint's maximum is clamped to it (`pagination.limit` says so). Cursor paging (`cursor=*`, " +
      'then each `pagination.nextCursor`) reaches every match. ') +
    '`GET /grants/export` (feature `grants.export`) streams every match as NDJSON or CSV in one call. ' +
    'To keep a copy in sync, read `GET /grants/changes` from `since=0`, then poll it with ' +
    ('the last `pagination.nextSince` forever: each grant once at its latest change, and a tombstone ' +
      '(`deleted: true`) for each grant removed.'),
  '',
  '## Your usage',
  "`GET /subscription/usage?days=N` gives this month's calls against the allowance and, over the last N UTC " +
    'days, the total, the top ' +
    ('endpoints and `statistics.daily` (one entry per day, days without calls included). The partner console ' +
      'at [/console](/console) draws them: ') +
    'paste a key to see the tier, the limits, the allowance used and the calls per day.',
  '',
  '## AI agents (MCP)',
  `An AI agent reaches the API as tools through the Model Context Protocol at \`POST ${API_PREFIX}/mcp\` ` +
    `(Streamable HTTP, stateless). ` +
    ('Register it in an MCP client with your key (the README\'s "AI agents (MCP)" section shows the same for ' +
      'other clients):'),
  '',
  '```json',
  JSON.stringify(
    {
      mcpServers: {
        grants: {
          type: 'http',
          url: `https://<this host>${API_PREFIX}/mcp`,
          headers: { Authorization: 'Bearer <key>' },
        },
      },
    },
    null,
    2,
  ),
  '```',
  '',
  `The tools (${MCP_TOOL_NAMES.map((name) => `\`${name}\``).join(', ')}) take the parameters of the ` +
    `endpoints they mirror and answer their data without the envelope. ` +
    ('Each tool call counts toward the allowance as its endpoint does and appears as `/mcp` in the usage ' +
      'statistics; the handshake and the tool list are free. ') +
    'See the [mcp operation](#/mcp).',
  '',
  '## Errors',
  'Every error comes in one envelope: `{ "success": false, "error": { "code", "message", "details"? }, "meta" ' +
    '}`; a 400 lists every invalid parameter in `error.details`. Quote `meta.requestId` (also the `X-Request-Id` ' +
    'header) when reporting a problem. The codes:',
  '',
  '| status | code | meaning |',
  '|---|---|---|',
  ...(Object.entries(ERROR_STATUS) as [ErrorCode, number][]).map(
    ([code, status]) => `| ${status} | \`${code}\` | ${ERROR_MEANING[code]} |`,
  ),
].join('\n');

/** The schemas of the document besides the Grant and the answers. */
function schemas(): Schema {
  const grant = servedGrant();
  const grantFields = {
    ...grant,
    required: ['id'],
    properties: {
      ...(grant.properties as Schema),
      highlights: described(
        'Highlights',
        'With `highlight` or `crop`: the fields they name, highlighted (absent otherwise).',
      ),
    },
    description:
      'A grant with the fields asked for in `fields` (every field by default); id always; `highlights` last, ' +
      'with `highlight` or `crop`.',
  };
  const fieldChanges: Schema = { type: ['array', 'null'], items: ref('FieldChange') };
  const changeEntry = (deleted: boolean): Schema => ({
    type: 'object',
    additionalProperties: false,
    required: ['id', 'deleted', 'changedAt', 'changes', 'grant'],
    description: deleted
      ? 'A tombstone: the grant with this id was removed from the catalog; remove it from your copy.'
      : 'A grant at its latest change: store it in your copy (it replaces any earlier version).',
    properties: {
      id: { type: 'string', description: deleted ? 'The id of the grant removed.' : 'The id of the grant changed.' },
      deleted: {
        type: 'boolean',
        const: deleted,
        description: deleted ? 'Always true: the grant was removed.' : 'Always false: the grant is in the catalog.',
      },
      changedAt: {
        type: 'string',
        format: 'date-time',
        description: deleted ? 'When the grant was removed.' : 'When this version of the grant entered the catalog.',
      },
      changes: deleted
        ? { const: null, description: 'Always null for a removal.' }
        : {
            ...fieldChanges,
            description:
              'The fields the latest change updated, each with its value before and after; null when the change ' +
              'added the grant (or was recorded before fields were). A grant changed more than once since your ' +
              'last read shows its latest change here: GET /grants/{id}/history holds them all.',
          },
      grant: deleted
        ? { const: null, description: 'Always null: a removed grant has no content.' }
        : { ...ref('Grant'), description: 'The grant as GET /grants/{id} serves it.' },
    },
  });
  return {
    Grant: grant,
    GrantFields: grantFields,
    Highlights: {
      type: 'object',
      additionalProperties: false,
      description:
        "Present with `highlight` or `crop`: for each field they name, the field's text HTML-escaped (`&`, " +
        '`<`, `>`, `"` and `\'` as entities), ' +
        (`each word the search matched between \`highlightPreTag\` and \`highlightPostTag\` (default ` +
          `\`${DEFAULT_PRE_TAG}\` and \`${DEFAULT_POST_TAG}\`); `) +
        (`a cropped field is its best passage, with \`${CROP_MARKER}\` where text was cut. Null for a field ` +
          `the grant leaves empty. Without a search, no word is marked.`),
      properties: Object.fromEntries(
        HIGHLIGHT_FIELDS.map((field) => [
          field,
          { type: ['string', 'null'], description: `The \`${field}\` field, highlighted.` },
        ]),
      ),
      examples: [
        {
          title: 'Clean <mark>Energy</mark> Fund',
          description:
            '…supports community <mark>energy</mark> projects &amp; <mark>solar</mark> installations in rural Ontario…',
        },
      ],
    },
    ...ANSWERS,
    ...ALERT_SCHEMAS,
    ...KEY_SCHEMAS,
    AlertQuery: {
      ...jsonParamsSchema(ALERT_QUERY_PARAMS),
      description:
        'The filters of an alert: the filter parameters of GET /grants with the same names, meanings and ' +
        'validation, as one JSON object (lists as JSON arrays, booleans and numbers as JSON ones). Paging, sort, ' +
        'facets, fields, cursor and highlights are refused.',
    },
    ...MCP_SCHEMAS,
    ...COMMON_GRANTS_SCHEMAS,
    FilterOptions: {
      type: 'object',
      additionalProperties: false,
      description: 'For each filter, the distinct values present in the catalog, sorted.',
      required: ['funderTypes', 'fundingTypes', 'eligibleProvinces', 'targetBeneficiaries', 'currencies'],
      properties: Object.fromEntries(
        (
          [
            ['funderTypes', 'funderType'],
            ['fundingTypes', 'fundingType'],
            ['eligibleProvinces', 'eligibleProvinces'],
            ['targetBeneficiaries', 'targetBeneficiaries'],
            ['currencies', 'currency'],
          ] as const
        ).map(([name, param]) => [
          name,
          {
            type: 'array',
            items: { type: 'string' },
            description: `The values of the \`${param}\` filter that some grant carries.`,
          },
        ]),
      ),
    },
    UsageReport: USAGE_REPORT_SCHEMA,
    LimitsReport: LIMITS_REPORT_SCHEMA,
    Pagination: {
      type: 'object',
      additionalProperties: false,
      description: 'Where this page lies in the results.',
      required: ['page', 'limit', 'total', 'totalPages'],
      properties: {
        page: { type: 'integer', minimum: 1, description: 'The number of this page, from 1.' },
        limit: {
          type: 'integer',
          minimum: 0,
          maximum: MAX_LIMIT,
          description:
            'Grants per page, as served (a larger limit asked is served as the maximum; 0 for the counts alone).',
        },
        total: countSchema('How many grants match, in all.'),
        totalPages: countSchema('How many pages of this size the matches fill (0 when nothing matches).'),
        nextCursor: {
          type: ['string', 'null'],
          description: 'Cursor paging only: the cursor of the next page, null on the last page.',
        },
      },
    },
    ChangesPagination: {
      type: 'object',
      additionalProperties: false,
      description: 'Where to read the feed next.',
      required: ['limit', 'hasMore', 'nextSince'],
      properties: {
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: CHANGES_MAX_LIMIT,
          description: 'Changes per answer, as served (a larger limit asked is served as the maximum).',
        },
        hasMore: {
          type: 'boolean',
          description: 'True when more changes are there now: call again at once with nextSince.',
        },
        nextSince: {
          type: 'string',
          description: 'The since of the next call (the since sent when nothing was new): poll with it forever.',
        },
      },
    },
    ChangeEntry: {
      description:
        'One change of the catalog: a grant at its latest change, or a tombstone of a grant removed. `deleted` ' +
        'tells which.',
      oneOf: [ref('GrantChange'), ref('GrantTombstone')],
    },
    GrantChange: changeEntry(false),
    GrantTombstone: changeEntry(true),
    GrantVersion: {
      type: 'object',
      additionalProperties: false,
      required: ['changedAt', 'type', 'changes'],
      description: 'One version of a grant: a run of the indexer that added, changed or removed it.',
      properties: {
        changedAt: {
          type: 'string',
          format: 'date-time',
          description: 'When the version entered the catalog (the run that made it).',
        },
        type: {
          type: 'string',
          enum: [...VERSION_TYPES],
          description:
            'created: the grant entered the catalog; updated: some of its fields changed; deleted: it left the ' +
            'catalog (its last version).',
        },
        changes: {
          ...fieldChanges,
          description:
            "For an update, each field it changed, in the order of the grant's fields; null for created and deleted.",
        },
      },
    },
    FieldChange: {
      type: 'object',
      additionalProperties: false,
      required: ['field', 'from', 'to'],
      description: 'One field an update changed: "deadline moved from … to …".',
      properties: {
        field: { type: 'string', enum: [...GRANT_FIELDS], description: 'The field of the grant.' },
        from: { description: 'Its value before, as the grant held it (null when unknown).' },
        to: { description: 'Its value after, as the grant holds it (null when unknown).' },
      },
      examples: [{ field: 'deadline', from: '2026-12-31T23:59:59.000Z', to: '2027-01-31T23:59:59.000Z' }],
    },
    Facets: {
      type: 'object',
      additionalProperties: false,
      description: 'Present when `facets` was asked: each facet asked, in the order asked.',
      properties: Object.fromEntries(
        FACET_NAMES.map((name) => [
          name,
          {
            type: 'array',
            items: ref('FacetCount'),
            description:
              `The values of \`${name}\` among the matches (ignoring the request's own \`${name}\` filter), ` +
              `by count.`,
          },
        ]),
      ),
    },
    FacetCount: {
      type: 'object',
      additionalProperties: false,
      description: 'One value of a facet and how many grants carry it.',
      required: ['value', 'count'],
      properties: {
        value: { type: 'string', description: 'The value.' },
        count: { type: 'integer', minimum: 1, description: 'How many matching grants carry it.' },
      },
    },
    Meta: {
      type: 'object',
      additionalProperties: false,
      description: 'About this answer.',
      required: ['timestamp', 'requestId', 'version'],
      properties: {
        timestamp: { type: 'string', format: 'date-time', description: 'When the answer was made (UTC).' },
        requestId: {
          type: 'string',
          description: 'The id of this request (also the X-Request-Id header); quote it when reporting a problem.',
        },
        version: { type: 'string', const: API_VERSION, description: 'The version of the API.' },
      },
    },
    ErrorEnvelope: {
      type: 'object',
      additionalProperties: false,
      description: 'Every error answer.',
      required: ['success', 'error', 'meta'],
      properties: {
        success: { type: 'boolean', const: false, description: 'Always false in an error answer.' },
        error: described('ErrorBody', 'What went wrong.'),
        meta: described('Meta', 'About this answer.'),
      },
    },
    ErrorBody: {
      type: 'object',
      additionalProperties: false,
      description: 'What went wrong.',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: Object.keys(ERROR_STATUS),
          description: 'The error code: what to do about it depends on it alone.',
        },
        message: { type: 'string', description: 'A sentence for a person: what went wrong and what to do.' },
        details: {
          type: 'array',
          description: 'With VALIDATION_ERROR: every invalid parameter and why.',
          items: ref('ErrorDetail'),
        },
      },
    },
    ErrorDetail: {
      type: 'object',
      additionalProperties: false,
      description: 'One invalid parameter.',
      required: ['parameter', 'message'],
      properties: {
        parameter: { type: 'string', description: 'The name of the parameter.' },
        message: { type: 'string', description: 'Why it is invalid.' },
      },
    },
  };
}

/** The OpenAPI 3.1 document, generated from the tables. */
export function openapiDocument(): Schema {
  const paths: Schema = {};
  for (const route of ROUTES as readonly RouteSpec[]) {
    paths[openapiTemplate(route.template)] =
      route.name === 'mcp'
        ? { post: mcpOperation(route) }
        : route.protocol === 'commonGrants'
          ? commonGrantsOperation(route)
          : OPERATIONS[route.name as RouteName] !== undefined
            ? { get: operation(route) }
            : Object.fromEntries(
                route.methods.filter((m) => m !== 'HEAD').map((m) => [m.toLowerCase(), configOperation(route, m)]),
              );
  }
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenapiDocument',
      summary: 'This document',
      description:
        'Needs no key; never billed or counted. Send If-None-Match with the ETag to get a 304 when unchanged.',
      tags: ['openapi'],
      security: [],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document.',
          headers: headerRefs(['X-Request-Id', 'ETag']),
          content: {
            'application/json': {
              schema: { type: 'object', description: 'An OpenAPI 3.1 document.', additionalProperties: true },
            },
          },
        },
        304: {
          description: 'Unchanged since the ETag sent in If-None-Match.',
          headers: headerRefs(['X-Request-Id', 'ETag']),
        },
        ...Object.fromEntries(
          [...byStatus(['BAD_REQUEST', 'REQUEST_TIMEOUT', 'URI_TOO_LONG', 'REQUEST_TOO_LARGE'])].map(
            ([status, codes]) => [status, errorResponse(status, codes)],
          ),
        ),
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grants partner API',
      version: API_VERSION,
      description: GUIDE,
      contact: {
        name: 'Grants API partner support',
        url: 'https://grants.example.com/support',
        email: 'partners@grants.example.com',
      },
      license: { name: 'Proprietary: for subscribed partners only', url: 'https://grants.example.com/terms' },
    },
    servers: [{ url: API_PREFIX, description: 'This server' }],
    security: [{ bearerKey: [] }],
    tags: TAGS,
    paths,
    webhooks: ALERT_WEBHOOKS,
    components: {
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: 'Your API key: `Authorization: Bearer <key>`.' },
      },
      parameters: { 'If-None-Match': IF_NONE_MATCH },
      headers: Object.fromEntries(Object.entries(HEADER_DOCS).map(([name, doc]) => [name, { ...doc, required: true }])),
      schemas: schemas(),
    },
  };
}

/** The document as served and committed: two-space JSON and a final newline. */
export const openapiJson = (): string => `${JSON.stringify(openapiDocument(), null, 2)}\n`;

/** Serves the document at API_PREFIX + OPENAPI_PATH to anyone, with an ETag; answered before authentication. */
export function serveOpenapi(): Middleware<AppState> {
  const json = openapiJson();
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  const path = API_PREFIX + OPENAPI_PATH;
  return function serveOpenapi(ctx, next) {
    if (ctx.path !== path || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.status = 200;
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'no-cache');
    if (namesTag(ctx.get('If-None-Match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = json;
  };
}
