// The alert endpoints' part of the OpenAPI document: their schemas, request bodies, success
// statuses and the webhook events (OpenAPI 3.1 `webhooks`), from the same tables the handlers use.
import { ALERT_STATUSES, DELIVERY_STATUSES, EVENT_TYPES, MAX_ALERT_NAME, MAX_CLOSING_DAYS, MAX_URL_LENGTH, MIN_CLOSING_DAYS } from '../../alerts/model.js';
import type { RouteName } from '../routeTable.js';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

export const ALERT_LIST_PARAMS = {
  limit: { kind: 'integer', min: 1, default: 20, message: 'must be an integer ≥ 1 (above 100 it is served as 100)' },
  cursor: { kind: 'string', maxLength: 200, message: 'must be a nextCursor the API gave out' },
} as const;

/** Each alert route's `data` and list pagination. */
export const ALERT_ROUTE_DATA: Partial<Record<RouteName, { summary: string; data: Schema; pagination?: string }>> = {
  alerts: { summary: 'The alerts of this subscription, newest first; POST creates one', data: { type: 'array', items: ref('Alert') }, pagination: 'ListPagination' },
  alert: { summary: 'One alert; PATCH changes it, DELETE deletes it', data: ref('Alert') },
  alertSecret: { summary: 'Rotate the signing secret', data: ref('SecretRotation') },
  alertTest: { summary: 'Queue an alert.test event to the URL', data: ref('Delivery') },
  alertDeliveries: { summary: 'The delivery log of an alert, newest first', data: { type: 'array', items: ref('Delivery') }, pagination: 'ListPagination' },
  alertDeliveryRetry: { summary: 'Send a message again now (same webhook-id)', data: ref('Delivery') },
};

/** What a method of an alert route answers on success, when it is not the route's GET data with 200. */
export function alertSuccess(route: RouteName, method: string): { status: number; data: Schema; pagination?: string } | undefined {
  if (route === 'alerts' && method === 'POST') return { status: 201, data: ref('AlertCreated') };
  if (route === 'alert' && method === 'DELETE') return { status: 200, data: ref('AlertDeleted') };
  if (route === 'alertTest' || route === 'alertDeliveryRetry') return { status: 202, data: ref('Delivery') };
  return undefined;
}

/** The JSON body a method of an alert route takes. */
export function alertRequestBody(route: RouteName, method: string): Schema | undefined {
  if (route === 'alerts' && method === 'POST') return { required: true, content: { 'application/json': { schema: ref('AlertInput') } } };
  if (route === 'alert' && method === 'PATCH') return { required: true, content: { 'application/json': { schema: ref('AlertPatch') } } };
  return undefined;
}

export const ALERT_OPERATION_IDS: Record<string, string> = {
  'alerts POST': 'createAlert',
  'alert PATCH': 'updateAlert',
  'alert DELETE': 'deleteAlert',
  'alertSecret POST': 'rotateAlertSecret',
  'alertTest POST': 'testAlert',
  'alertDeliveryRetry POST': 'retryAlertDelivery',
};

const timestamp = { type: 'string', format: 'date-time' };

const alertFields = (required: boolean): Schema => ({
  name: { type: 'string', minLength: 1, maxLength: MAX_ALERT_NAME, description: 'A name for the partner to recognise the alert by.' },
  query: {
    type: 'object',
    description:
      'The filter parameters of GET /grants with the same names, meanings and validation (search, funderType, fundingType, eligibleProvinces, ' +
      'targetBeneficiaries, currency, applicationComplexity, sdgAlignment, isRecurring, amountMin, amountMax, open, deadlineFrom, deadlineTo, ' +
      'updatedSince); list filters as JSON arrays. Paging, sort, facets, fields and cursor are refused.',
    example: { search: 'clean energy', eligibleProvinces: ['ONTARIO'], targetBeneficiaries: ['SMALL_BUSINESS'], open: true },
  },
  url: { type: 'string', maxLength: MAX_URL_LENGTH, description: 'The https URL the events are POSTed to; private, loopback and metadata addresses are refused.' },
  events: {
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', enum: [...EVENT_TYPES] },
    description: required ? 'The events sent.' : 'The events sent; default all (grant.closing only with closingReminderDays).',
  },
  closingReminderDays: {
    type: ['integer', 'null'],
    minimum: MIN_CLOSING_DAYS,
    maximum: MAX_CLOSING_DAYS,
    description: 'Send grant.closing once when a followed grant\'s deadline is this many days away or less.',
  },
});

const alertSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'query', 'url', 'events', 'closingReminderDays', 'status', 'disabledReason', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', pattern: '^alt_', description: 'The alert id.' },
    ...alertFields(true),
    status: { type: 'string', enum: [...ALERT_STATUSES], description: 'ACTIVE delivers; PAUSED and DISABLED hold deliveries (events wait in the outbox).' },
    disabledReason: { type: ['string', 'null'], description: 'Why the alert was disabled (after repeated failures); null unless DISABLED.' },
    createdAt: timestamp,
    updatedAt: timestamp,
  },
};

const deliverySchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'grantId', 'status', 'attempts', 'lastAttempt', 'nextAttemptAt', 'createdAt'],
  properties: {
    id: { type: 'string', pattern: '^msg_', description: 'The message id, sent as the webhook-id header (stable across retries).' },
    type: { type: 'string', enum: [...EVENT_TYPES, 'alert.test'] },
    grantId: { type: ['string', 'null'], description: 'The grant of the event; null for alert.test.' },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    attempts: { type: 'integer', minimum: 0 },
    lastAttempt: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['at', 'statusCode', 'error', 'durationMs'],
          properties: { at: timestamp, statusCode: { type: ['integer', 'null'] }, error: { type: ['string', 'null'] }, durationMs: { type: 'integer', minimum: 0 } },
        },
      ],
    },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    createdAt: timestamp,
  },
};

export const ALERT_SCHEMAS: Schema = {
  Alert: alertSchema,
  AlertCreated: {
    ...alertSchema,
    required: [...(alertSchema.required as string[]), 'secret'],
    properties: { ...(alertSchema.properties as Schema), secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret, shown this once.' } },
  },
  AlertDeleted: { type: 'object', additionalProperties: false, required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true, type: 'boolean' } } },
  AlertInput: { type: 'object', additionalProperties: false, required: ['name', 'query', 'url'], properties: alertFields(false) },
  AlertPatch: {
    type: 'object',
    additionalProperties: false,
    properties: { ...alertFields(false), status: { type: 'string', enum: ['ACTIVE', 'PAUSED'], description: 'ACTIVE resumes a paused or disabled alert.' } },
  },
  SecretRotation: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'secret', 'previousSecretValidUntil'],
    properties: {
      id: { type: 'string' },
      secret: { type: 'string', pattern: '^whsec_', description: 'The new signing secret, shown this once.' },
      previousSecretValidUntil: { ...timestamp, description: 'Until then deliveries carry two signatures, one per secret.' },
    },
  },
  Delivery: deliverySchema,
  ListPagination: {
    type: 'object',
    additionalProperties: false,
    required: ['limit', 'nextCursor'],
    properties: { limit: { type: 'integer', minimum: 1, maximum: 100 }, nextCursor: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last.' } },
  },
  WebhookEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { type: 'string', enum: [...EVENT_TYPES, 'alert.test'] },
      timestamp: timestamp,
      data: {
        type: 'object',
        required: ['alert'],
        properties: {
          alert: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
          grant: { description: 'The whole grant (for grant.unmatched of a deleted grant: only its id).', type: 'object', required: ['id'] },
          reason: { type: ['string', 'null'], enum: ['deleted', 'no_longer_matches', null] },
          change: {
            type: ['object', 'null'],
            properties: { changedAt: timestamp, position: { type: 'string', description: 'The feed position of the change (a since token of GET /grants/changes).' } },
          },
        },
      },
    },
  },
};

/** OpenAPI 3.1 `webhooks`: what an alert POSTs to its URL. */
export const ALERT_WEBHOOKS: Schema = Object.fromEntries(
  [...EVENT_TYPES, 'alert.test'].map((type) => [
    type,
    {
      post: {
        operationId: `webhook${type.replace(/(^|\.)(\w)/g, (_m, _d, c: string) => c.toUpperCase())}`,
        summary: `The ${type} event`,
        description:
          'Signed per Standard Webhooks: webhook-id (stable across retries; de-duplicate on it), webhook-timestamp (Unix seconds) and ' +
          'webhook-signature (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, two space-separated during a secret rotation). Answer 2xx within ' +
          'the timeout; anything else is retried on the schedule.',
        tags: ['alerts'],
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
        responses: { 200: { description: 'Any 2xx acknowledges the event.' } },
      },
    },
  ]),
);
