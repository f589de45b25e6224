// The key endpoints' part of the OpenAPI document: their operations (in the alert operations'
// shape, so one generator describes both), schemas and path parameter.
import {
  MAX_EXPIRY_MS,
  MAX_IP_RANGES,
  MAX_KEY_NAME,
  MAX_ORIGINS,
  MAX_ORIGIN_LENGTH,
  SCOPES,
} from '../../subscriptions/keyRestrictions.js';
import { MAX_RATE_LIMIT } from '../../subscriptions/tiers.js';
import type { AlertOperationDoc } from './alertDocument.js';
import { EXAMPLE_META } from './examples.js';
import type { RouteName } from '../routeTable.js';
import { KEY_SCHEMA, RESTRICTIONS_SCHEMA, SCOPE_SCHEMA } from '../handlers/keyPresentation.js';

type Schema = Record<string, unknown>;

const EXAMPLE_KEY = {
  id: 'key_Yi1xV2NvZGVXaWRnZXQ',
  prefix: 'gk_live_Xa3d',
  name: 'Search widget on partner.example',
  restrictions: {
    scopes: ['grants:search', 'grants:read'],
    origins: ['https://partner.example'],
    ips: null,
    rateLimit: 5,
  },
  createdAt: '2026-11-23T09:00:00.000Z',
  lastUsedAt: null,
  expiresAt: '2027-11-23T00:00:00.000Z',
  revokedAt: null,
};
const answer = (data: unknown) => ({ success: true, data, meta: EXAMPLE_META });

export const KEY_OPERATIONS: Record<string, AlertOperationDoc> = {
  'keys GET': {
    operationId: 'listKeys',
    summary: 'The active keys of this subscription (never the keys themselves)',
    status: 200,
    answer: 'KeyListAnswer',
    params: {},
    example: answer([EXAMPLE_KEY]),
  },
  'keys POST': {
    operationId: 'createKey',
    summary: "Create a key with at most the calling key's rights (the key is shown this once)",
    status: 201,
    answer: 'KeyCreatedAnswer',
    body: 'KeyInput',
    bodyExample: {
      name: EXAMPLE_KEY.name,
      scopes: EXAMPLE_KEY.restrictions.scopes,
      origins: EXAMPLE_KEY.restrictions.origins,
      rateLimit: EXAMPLE_KEY.restrictions.rateLimit,
    },
    params: {},
    example: answer({ ...EXAMPLE_KEY, apiKey: 'gk_live_Xa3dQm9vU2t5TGluZTQyUnRvb1NreUxpbmU' }),
  },
  'key DELETE': {
    operationId: 'revokeKey',
    summary: 'Revoke a key (at once, on every instance)',
    status: 200,
    answer: 'KeyRevokedAnswer',
    params: {},
    example: answer({ id: EXAMPLE_KEY.id, revoked: true }),
  },
};

export const KEY_PATH_PARAMS: Record<string, { description: string; example: string }> = {
  id: {
    description:
      "The id of the key (its `id` field); another subscription's key is a 404. To try it on /docs: create " +
      'a key (POST /keys) and paste the `id` of its answer.',
    example: EXAMPLE_KEY.id,
  },
};

/** Whether an operation of the key routes can answer this code (and a code only they answer is refused elsewhere). */
export function keyOnlyCode(code: string, route: RouteName, method: string): boolean {
  if (code === 'KEY_RESTRICTIONS_EXCEEDED') return route === 'key' || (route === 'keys' && method === 'POST');
  if (code === 'LAST_UNRESTRICTED_KEY') return route === 'key';
  if (code === 'PAYLOAD_TOO_LARGE' || code === 'UNSUPPORTED_MEDIA_TYPE') return route === 'keys' && method === 'POST';
  if (code === 'ALERT_LIMIT_REACHED' || code === 'IDEMPOTENCY_KEY_REUSED') return false;
  return true;
}

export const KEY_CODES = ['KEY_RESTRICTIONS_EXCEEDED', 'LAST_UNRESTRICTED_KEY'];

const YEARS = Math.round(MAX_EXPIRY_MS / (365 * 86_400_000));

export const KEY_SCHEMAS: Schema = {
  Scope: SCOPE_SCHEMA,
  KeyRestrictions: RESTRICTIONS_SCHEMA,
  Key: KEY_SCHEMA,
  KeyCreated: {
    ...KEY_SCHEMA,
    description: 'The key just created, with the key itself (shown this once: it is stored only as a hash).',
    required: [...(KEY_SCHEMA.required as string[]), 'apiKey'],
    properties: {
      ...(KEY_SCHEMA.properties as Schema),
      apiKey: {
        type: 'string',
        pattern: '^gk_live_',
        description: 'The key, shown this once: send it as `Authorization: Bearer <key>`.',
      },
    },
  },
  KeyRevoked: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'revoked'],
    description: 'The key revoked.',
    properties: {
      id: { type: 'string', description: 'The id of the key revoked.' },
      revoked: { type: 'boolean', const: true, description: 'Always true.' },
    },
  },
  KeyInput: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    description:
      "A new key. A restriction left out is the calling key's (so the new key never has more rights than " +
      "the caller); one given must lie within the caller's.",
    properties: {
      name: { type: 'string', minLength: 1, maxLength: MAX_KEY_NAME, description: 'A name to recognise the key by.' },
      scopes: {
        type: 'array',
        minItems: 1,
        maxItems: SCOPES.length,
        uniqueItems: true,
        items: { $ref: '#/components/schemas/Scope' },
        description: 'The scopes the key may use.',
      },
      origins: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_ORIGINS,
        items: { type: 'string', maxLength: MAX_ORIGIN_LENGTH, examples: ['https://partner.example'] },
        description:
          'Exact origins (scheme://host[:port]) a browser may call from; a browser request from any other origin ' +
          'is a 403 ORIGIN_NOT_ALLOWED.',
      },
      ips: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_IP_RANGES,
        items: { type: 'string', maxLength: 64, examples: ['203.0.113.0/24'] },
        description:
          'IPv4 or IPv6 addresses or CIDR ranges requests must come from; any other address is a 403 IP_NOT_ALLOWED.',
      },
      expiresAt: {
        type: 'string',
        format: 'date-time',
        description: `When the key stops working (401 from then on); in the future, at most ${YEARS} years ahead.`,
      },
      rateLimit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_RATE_LIMIT,
        description: "The key's own requests per second, at most the subscription's rate.",
      },
    },
  },
};
