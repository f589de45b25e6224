// Alerts: a partner's saved search and the webhook events it produces. Types, constants and the
// pure rules of what an alert may be; no I/O here.
import { randomBytes } from 'node:crypto';
import type { Tier } from '../subscriptions/tiers.js';

export const EVENT_TYPES = [
  'grant.matched',
  'grant.updated',
  'grant.unmatched',
  'grant.closing',
  'grant.opened',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Every type a message can carry: the grant events and the test event. */
export type MessageType = EventType | 'alert.test';

export const ALERT_STATUSES = ['ACTIVE', 'PAUSED', 'DISABLED'] as const;
type AlertStatus = (typeof ALERT_STATUSES)[number];

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Alerts a subscription may hold, by tier (an operator may override per subscription). */
export const TIER_ALERT_LIMITS: Record<Tier, number> = { STARTER: 5, PROFESSIONAL: 100, ENTERPRISE: 1000 };

export const MAX_ALERT_NAME = 200;
export const MAX_URL_LENGTH = 2048;
export const MIN_CLOSING_DAYS = 1;
export const MAX_CLOSING_DAYS = 60;
/** An alert whose last this-many finished messages all FAILED is disabled. */
export const FAILURES_BEFORE_DISABLE = 20;
/** After a rotation, the previous secret still signs for this long. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** The partner's saved query: GET /grants filter parameters by name, lists as arrays (validated at the edge). */
export type AlertQuery = Record<string, string | number | boolean | string[]>;

export interface Alert {
  id: string;
  subscriptionId: string;
  name: string;
  query: AlertQuery;
  url: string;
  events: EventType[];
  closingReminderDays: number | null;
  status: AlertStatus;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewAlert {
  name: string;
  query: AlertQuery;
  url: string;
  events: EventType[];
  closingReminderDays: number | null;
}

export type AlertChanges = Partial<Pick<Alert, 'name' | 'query' | 'url' | 'events' | 'closingReminderDays' | 'status'>>;

/** One webhook message: an event for one alert, as the delivery log shows it. */
export interface Delivery {
  id: string;
  alertId: string;
  type: MessageType;
  grantId: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastAttempt: { at: string; statusCode: number | null; error: string | null; durationMs: number } | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** The outcome of one attempt to deliver a message. */
export interface AttemptResult {
  at: string;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const randomId = (prefix: string, bytes = 12): string => `${prefix}${randomBytes(bytes).toString('base64url')}`;
export const newAlertId = (): string => randomId('alt_');
/** A message id, sent as webhook-id (Standard Webhooks: receivers de-duplicate on it). */
export const newMessageId = (): string => randomId('msg_', 15);
/** A signing secret: whsec_ + base64 of 32 random bytes (Standard Webhooks). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The alert as a partner sees it (never its secret). */
export function presentAlert(alert: Alert): Record<string, unknown> {
  return {
    id: alert.id,
    name: alert.name,
    query: alert.query,
    url: alert.url,
    events: alert.events,
    closingReminderDays: alert.closingReminderDays,
    status: alert.status,
    disabledReason: alert.disabledReason,
    createdAt: alert.createdAt,
    updatedAt: alert.updatedAt,
  };
}

/** The delivery as a partner sees it in the delivery log. */
export function presentDelivery(delivery: Delivery): Record<string, unknown> {
  const { alertId: _alertId, ...rest } = delivery;
  return rest;
}
