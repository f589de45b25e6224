// A key as the partner sees it (GET /keys, POST /keys, /subscription/limits): never the key itself,
// only its id, display prefix, name and restrictions. The same JSON Schema documents it.
import { SCOPES, SCOPE_MEANING, type KeyRestrictions } from '../../subscriptions/keyRestrictions.js';
import type { ApiKeyInfo } from '../../subscriptions/port.js';
import { MAX_RATE_LIMIT } from '../../subscriptions/tiers.js';

type Schema = Record<string, unknown>;

/** The restrictions as served (the expiry is a field of the key beside them). */
export const presentRestrictions = (r: KeyRestrictions) => ({
  scopes: r.scopes,
  origins: r.origins,
  ips: r.ips,
  rateLimit: r.rateLimit,
});

export function presentKey(
  key: Pick<ApiKeyInfo, 'id' | 'prefix' | 'name' | 'restrictions' | 'createdAt' | 'lastUsedAt' | 'revokedAt'>,
) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    restrictions: presentRestrictions(key.restrictions),
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    expiresAt: key.restrictions.expiresAt,
    revokedAt: key.revokedAt,
  };
}

/** The schema, or null (`type` as a list: client generators take it where they refuse a "null" branch). */
const nullable = (schema: Schema, description: string): Schema => ({
  ...schema,
  type: [schema.type, 'null'],
  description,
});
const instant = { type: 'string', format: 'date-time' };

export const SCOPE_SCHEMA: Schema = {
  type: 'string',
  enum: [...SCOPES],
  description: `A scope: ${SCOPES.map((s) => `\`${s}\` (${SCOPE_MEANING[s]})`).join('; ')}.`,
};

export const RESTRICTIONS_SCHEMA: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['scopes', 'origins', 'ips', 'rateLimit'],
  description: 'What the key may do, from where and how fast; null in a field: not restricted that way.',
  properties: {
    scopes: nullable({ type: 'array', items: SCOPE_SCHEMA }, 'The scopes the key may use; null: every scope.'),
    origins: nullable(
      { type: 'array', items: { type: 'string' } },
      'The web page origins a browser may call with the key; null: any.',
    ),
    ips: nullable(
      { type: 'array', items: { type: 'string' } },
      'The IPv4/IPv6 CIDR ranges requests must come from; null: any address.',
    ),
    rateLimit: nullable(
      { type: 'integer', minimum: 1, maximum: MAX_RATE_LIMIT },
      "The key's own requests per second, inside the subscription's rate; null: the subscription's.",
    ),
  },
};

export const KEY_SCHEMA: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'prefix', 'name', 'restrictions', 'createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt'],
  description: 'An API key of the subscription (never the key itself).',
  properties: {
    id: { type: 'string', description: 'The id of the key (for DELETE /keys/{id}).' },
    prefix: { type: 'string', description: 'The first characters of the key, to recognise it by.' },
    name: nullable({ type: 'string' }, 'The name given at creation; null for keys made without one.'),
    restrictions: {
      $ref: '#/components/schemas/KeyRestrictions',
      description: 'What the key may do, from where and how fast.',
    },
    createdAt: { ...instant, description: 'When the key was created.' },
    lastUsedAt: nullable(instant, 'When the key was last used (updated with the usage log); null: never.'),
    expiresAt: nullable(instant, 'When the key stops working (401 from then on); null: never.'),
    revokedAt: nullable(instant, 'When a rotated key stops working (a future instant); null: not revoked.'),
  },
};
