// The alert endpoints' part of the OpenAPI document: their schemas, request bodies, success
// statuses and the webhook events (OpenAPI 3.1 `webhooks`), from the same tables the handlers use.
import {
  ALERT_STATUSES,
  DELIVERY_STATUSES,
  EVENT_TYPES,
  MAX_ALERT_NAME,
  MAX_CLOSING_DAYS,
  MAX_URL_LENGTH,
  MIN_CLOSING_DAYS,
} from '../../alerts/model.js';
import { EXAMPLE_META } from './examples.js';
import { ALERT_LIST_PARAMS } from '../parameters/alertListParams.js';
import type { ParamSpecs } from '../parameters/queryParams.js';
import type { RouteName } from '../routeTable.js';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** One operation of the alert endpoints: its method, answer and example. */
export interface AlertOperationDoc {
  operationId: string;
  summary: string;
  status: number;
  /** The named success envelope (components.schemas). */
  answer: string;
  /** The JSON body it takes (a components.schemas name). */
  body?: string;
  /** An example of that body, which /docs fills in: valid as it stands, so "Try it out" succeeds. */
  bodyExample?: unknown;
  params: ParamSpecs;
  example: unknown;
}

const EXAMPLE_ALERT = {
  id: 'alt_Qm9vU2t5TGluZTQyUnQ',
  name: 'Ontario clean energy for small businesses',
  query: {
    search: 'clean energy',
    eligibleProvinces: ['ONTARIO'],
    targetBeneficiaries: ['SMALL_BUSINESS'],
    open: true,
  },
  url: 'https://partner.example/hooks/grants',
  events: ['grant.matched', 'grant.updated', 'grant.unmatched', 'grant.closing', 'grant.opened'],
  closingReminderDays: 7,
  status: 'ACTIVE',
  disabledReason: null,
  createdAt: '2026-11-23T09:00:00.000Z',
  updatedAt: '2026-11-23T09:00:00.000Z',
};
const EXAMPLE_DELIVERY = {
  id: 'msg_c2VudE9uY2VBbmRPbmx5T25jZQ',
  type: 'grant.matched',
  grantId: 'grt_0a1b2c3d',
  status: 'DELIVERED',
  attempts: 1,
  lastAttempt: { at: '2026-11-23T09:05:01.200Z', statusCode: 200, error: null, durationMs: 84 },
  nextAttemptAt: null,
  createdAt: '2026-11-23T09:05:01.100Z',
};
const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2sz0PkIP1hs=';
const answer = (data: unknown, extra: Record<string, unknown> = {}) => ({
  success: true,
  data,
  ...extra,
  meta: EXAMPLE_META,
});
const listPage = { limit: 20, nextCursor: null };

export const ALERT_OPERATIONS: Record<string, AlertOperationDoc> = {
  'alerts GET': {
    operationId: 'listAlerts',
    summary: 'The alerts of this subscription, newest first',
    status: 200,
    answer: 'AlertListAnswer',
    params: ALERT_LIST_PARAMS,
    example: answer([EXAMPLE_ALERT], { pagination: listPage }),
  },
  'alerts POST': {
    operationId: 'createAlert',
    summary: 'Create an alert (its signing secret is shown this once)',
    status: 201,
    answer: 'AlertCreatedAnswer',
    body: 'AlertInput',
    bodyExample: {
      name: EXAMPLE_ALERT.name,
      query: EXAMPLE_ALERT.query,
      url: EXAMPLE_ALERT.url,
      events: EXAMPLE_ALERT.events,
      closingReminderDays: EXAMPLE_ALERT.closingReminderDays,
    },
    params: {},
    example: answer({ ...EXAMPLE_ALERT, secret: EXAMPLE_SECRET }),
  },
  'alert GET': {
    operationId: 'getAlert',
    summary: 'One alert (never its secret)',
    status: 200,
    answer: 'AlertAnswer',
    params: {},
    example: answer(EXAMPLE_ALERT),
  },
  'alert PATCH': {
    operationId: 'updateAlert',
    summary: 'Change an alert, pause or resume it',
    status: 200,
    answer: 'AlertAnswer',
    body: 'AlertPatch',
    bodyExample: { status: 'PAUSED' },
    params: {},
    example: answer({ ...EXAMPLE_ALERT, status: 'PAUSED', updatedAt: '2026-11-24T08:00:00.000Z' }),
  },
  'alert DELETE': {
    operationId: 'deleteAlert',
    summary: 'Delete an alert (its pending deliveries are dropped)',
    status: 200,
    answer: 'AlertDeletedAnswer',
    params: {},
    example: answer({ id: EXAMPLE_ALERT.id, deleted: true }),
  },
  'alertSecret POST': {
    operationId: 'rotateAlertSecret',
    summary: 'Rotate the signing secret (both sign for 24 hours)',
    status: 200,
    answer: 'SecretRotationAnswer',
    params: {},
    example: answer({
      id: EXAMPLE_ALERT.id,
      secret: EXAMPLE_SECRET,
      previousSecretValidUntil: '2026-11-24T09:00:00.000Z',
    }),
  },
  'alertTest POST': {
    operationId: 'testAlert',
    summary: 'Queue an alert.test event to the URL',
    status: 202,
    answer: 'DeliveryAnswer',
    params: {},
    example: answer({
      ...EXAMPLE_DELIVERY,
      type: 'alert.test',
      grantId: null,
      status: 'PENDING',
      attempts: 0,
      lastAttempt: null,
      nextAttemptAt: '2026-11-23T09:05:01.100Z',
    }),
  },
  'alertDeliveries GET': {
    operationId: 'listAlertDeliveries',
    summary: 'The delivery log of an alert, newest first',
    status: 200,
    answer: 'DeliveryListAnswer',
    params: ALERT_LIST_PARAMS,
    example: answer([EXAMPLE_DELIVERY], { pagination: listPage }),
  },
  'alertDeliveryRetry POST': {
    operationId: 'retryAlertDelivery',
    summary: 'Send a message again now (same webhook-id)',
    status: 202,
    answer: 'DeliveryAnswer',
    params: {},
    example: answer({ ...EXAMPLE_DELIVERY, status: 'PENDING', nextAttemptAt: '2026-11-23T10:00:00.000Z' }),
  },
};

export const ALERT_PATH_PARAMS: Record<string, { description: string; example: string }> = {
  id: {
    description:
      "The id of the alert (its `id` field); another subscription's alert is a 404. To try it on /docs: " +
      'create an alert (POST /alerts) and paste the `id` of its answer.',
    example: EXAMPLE_ALERT.id,
  },
  deliveryId: {
    description:
      'The id of the message (its `id` in the delivery log, sent as webhook-id). To try it on /docs: POST ' +
      '/alerts/{id}/test queues one and answers its `id`.',
    example: EXAMPLE_DELIVERY.id,
  },
};

/** The codes an alert operation can answer besides those of every billable operation. */
export function alertOnlyCode(code: string, route: RouteName, method: string): boolean {
  const op = ALERT_OPERATIONS[`${route} ${method}`];
  if (code === 'PAYLOAD_TOO_LARGE' || code === 'UNSUPPORTED_MEDIA_TYPE') return op?.body !== undefined;
  if (code === 'ALERT_LIMIT_REACHED') return route === 'alerts' && method === 'POST';
  if (code === 'IDEMPOTENCY_KEY_REUSED') return method === 'POST';
  return true;
}

export const ALERT_CODES = [
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'ALERT_LIMIT_REACHED',
  'IDEMPOTENCY_KEY_REUSED',
];

const at = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

const alertFields = (defaults: boolean): Schema => ({
  name: {
    type: 'string',
    minLength: 1,
    maxLength: MAX_ALERT_NAME,
    description: 'A name for the partner to recognise the alert by.',
  },
  query: {
    ...ref('AlertQuery'),
    description:
      'The filter parameters of GET /grants the alert follows, as a JSON object; list filters as JSON arrays.',
    example: {
      search: 'clean energy',
      eligibleProvinces: ['ONTARIO'],
      targetBeneficiaries: ['SMALL_BUSINESS'],
      open: true,
    },
  },
  url: {
    type: 'string',
    maxLength: MAX_URL_LENGTH,
    description: 'The https URL the events are POSTed to; private, loopback and metadata addresses are refused.',
  },
  events: {
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', enum: [...EVENT_TYPES] },
    description: defaults
      ? 'The events sent; default all (grant.closing only with closingReminderDays).'
      : 'The events sent.',
  },
  closingReminderDays: {
    type: ['integer', 'null'],
    minimum: MIN_CLOSING_DAYS,
    maximum: MAX_CLOSING_DAYS,
    description:
      "Send grant.closing once when a followed grant's deadline is this many days away or less; null for no reminder.",
  },
});

const alertProperties: Schema = {
  id: { type: 'string', pattern: '^alt_', description: 'The alert id.' },
  ...alertFields(false),
  status: {
    type: 'string',
    enum: [...ALERT_STATUSES],
    description: 'ACTIVE delivers; PAUSED and DISABLED hold deliveries (their events wait in the outbox).',
  },
  disabledReason: {
    type: ['string', 'null'],
    description: 'Why the alert was disabled (after repeated failures); null unless DISABLED.',
  },
  createdAt: at('When the alert was created.'),
  updatedAt: at('When the alert was last changed.'),
};
const alertSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(alertProperties),
  properties: alertProperties,
  description: 'A saved search that calls the partner back.',
};

const deliveryProperties: Schema = {
  id: {
    type: 'string',
    pattern: '^msg_',
    description: 'The message id, sent as the webhook-id header (stable across retries).',
  },
  type: { type: 'string', enum: [...EVENT_TYPES, 'alert.test'], description: 'The event the message carries.' },
  grantId: { type: ['string', 'null'], description: 'The grant of the event; null for alert.test.' },
  status: {
    type: 'string',
    enum: [...DELIVERY_STATUSES],
    description: 'PENDING until a 2xx (DELIVERED) or the last retry failed (FAILED).',
  },
  attempts: { type: 'integer', minimum: 0, description: 'Attempts made so far.' },
  lastAttempt: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['at', 'statusCode', 'error', 'durationMs'],
    description: 'The latest attempt; null before the first.',
    properties: {
      at: at('When the attempt started.'),
      statusCode: {
        type: ['integer', 'null'],
        description: "The receiver's HTTP status; null when none came (timeout, refused connection, refused target).",
      },
      error: {
        type: ['string', 'null'],
        description: 'Why the attempt failed, in a few words; null when it succeeded.',
      },
      durationMs: { type: 'integer', minimum: 0, description: 'How long the attempt took, in milliseconds.' },
    },
  },
  nextAttemptAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the next attempt is due; null unless PENDING.',
  },
  createdAt: at('When the event was written to the outbox.'),
};

export const ALERT_SCHEMAS: Schema = {
  Alert: alertSchema,
  AlertCreated: {
    ...alertSchema,
    description: 'The alert just created, with its signing secret.',
    required: [...Object.keys(alertProperties), 'secret'],
    properties: {
      ...alertProperties,
      secret: {
        type: 'string',
        pattern: '^whsec_',
        description: 'The signing secret, shown this once: keep it to verify signatures.',
      },
    },
  },
  AlertDeleted: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'deleted'],
    description: 'The alert deleted.',
    properties: {
      id: { type: 'string', description: 'The id of the alert deleted.' },
      deleted: { type: 'boolean', const: true, description: 'Always true.' },
    },
  },
  AlertInput: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'query', 'url'],
    description: 'A new alert.',
    properties: alertFields(true),
  },
  AlertPatch: {
    type: 'object',
    additionalProperties: false,
    description: 'The fields to change (any of them).',
    properties: {
      ...alertFields(false),
      status: {
        type: 'string',
        enum: ['ACTIVE', 'PAUSED'],
        description: 'PAUSED holds deliveries; ACTIVE resumes a paused or disabled alert.',
      },
    },
  },
  SecretRotation: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'secret', 'previousSecretValidUntil'],
    description: 'A new signing secret.',
    properties: {
      id: { type: 'string', description: 'The id of the alert.' },
      secret: { type: 'string', pattern: '^whsec_', description: 'The new signing secret, shown this once.' },
      previousSecretValidUntil: at('Until then deliveries carry two signatures, one per secret.'),
    },
  },
  Delivery: {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(deliveryProperties),
    properties: deliveryProperties,
    description: 'One message and its attempts.',
  },
  ListPagination: {
    type: 'object',
    additionalProperties: false,
    required: ['limit', 'nextCursor'],
    description: 'Where this page lies.',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Items per page in effect.' },
      nextCursor: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last.' },
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
          'Signed per Standard Webhooks: webhook-id (stable across retries; de-duplicate on it), ' +
          'webhook-timestamp (Unix seconds) and webhook-signature (`v1,<base64 HMAC-SHA256 of ' +
          'id.timestamp.body>`, two space-separated during a secret rotation). Answer 2xx within the timeout; ' +
          'anything else is retried on the schedule.',
        // Their own tag: openapi-generator's typescript-fetch writes webhooks as operations of their
        // tag's class (a shared tag would replace the alerts' class). The body is a free-form object,
        // its fields in prose: for a webhook, typescript-fetch imports no model it could name (a named
        // or inline object schema leaves the class uncompilable).
        tags: ['webhooks'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: true,
                description:
                  "The event (Standard Webhooks' shape): `type` (the event: " +
                  (`${[...EVENT_TYPES, 'alert.test'].join(', ')}), \`timestamp\` (when the event was made, ` +
                    `ISO 8601) and \`data\`: `) +
                  ('`alert` ({ id, name }) always; for the grant events also `grant` (the whole grant as GET ' +
                    '/grants/{id} serves it; ') +
                  ('only { id } for grant.unmatched of a deleted grant), `reason` (for grant.unmatched: ' +
                    '"deleted" or "no_longer_matches"; else null) ') +
                  ('and `change` ({ changedAt, position }: the catalog change behind it, position a since ' +
                    'token of GET /grants/changes; null for grant.closing and grant.opened), ') +
                  ('`changes` (the fields that change updated, each { field, from, to } as in GET ' +
                    '/grants/{id}/history; null when it added or removed the grant, and for ') +
                  'grant.closing and grant.opened); for grant.matched also `links` ' +
                  '({ similar: { href, title } }: href the path of ' +
                  'GET /grants/{id}/similar for the grant, the grants most like it). ' +
                  ('grant.opened: a forecasted grant the alert follows reached its `opensAt` (sent once per ' +
                    'opensAt; `grant.status` is OPEN).'),
              },
            },
          },
        },
        responses: { 200: { description: 'Any 2xx acknowledges the event.' } },
      },
    },
  ]),
);
