// The alert tables' rows as both stores hold them (SQLite and PostgreSQL share one schema) and
// what they are in the port's terms: one definition of each mapping for the two adapters.
import type { Alert, Delivery, DeliveryStatus } from './model.js';
import type { SecretBox } from './secrets.js';
import type { DueMessage, KeptAnswer, MatchableAlert, ToldGrant } from './store.js';

export const ALERT_COLUMNS =
  'id, subscription_id, name, query, url, events, closing_days, status, disabled_reason, from_seq, created_at, ' +
  'updated_at';
export const MESSAGE_COLUMNS =
  'seq, id, alert_id, grant_id, type, status, attempts, next_attempt_at, last_at, last_status, last_error, ' +
  'last_duration_ms, created_at';

export interface AlertRow {
  id: string;
  subscription_id: string;
  name: string;
  query: string;
  url: string;
  events: string;
  closing_days: number | null;
  status: Alert['status'];
  disabled_reason: string | null;
  /** A number in SQLite, a BIGINT (text) in PostgreSQL. */
  from_seq: number | string;
  created_at: string;
  updated_at: string;
}

export interface MessageRow {
  id: string;
  alert_id: string;
  grant_id: string | null;
  type: Delivery['type'];
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_at: string | null;
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  created_at: string;
}

/** A due message joined with its alert's URL and sealed secrets (claimDue's rows). */
export interface DueRow {
  id: string;
  alert_id: string;
  grant_id: string | null;
  payload: string;
  attempts: number;
  created_at: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_until: string | null;
}

export interface ToldRow {
  alert_id: string;
  grant_id: string;
  deadline: string | null;
  reminded_deadline: string | null;
  opens_at: string | null;
  opened_opens_at: string | null;
}

export const alertOf = (row: AlertRow): MatchableAlert => ({
  id: row.id,
  subscriptionId: row.subscription_id,
  name: row.name,
  query: JSON.parse(row.query),
  url: row.url,
  events: JSON.parse(row.events),
  closingReminderDays: row.closing_days,
  status: row.status,
  disabledReason: row.disabled_reason,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  fromSeq: Number(row.from_seq),
});

export const deliveryOf = (row: MessageRow): Delivery => ({
  id: row.id,
  alertId: row.alert_id,
  type: row.type,
  grantId: row.grant_id,
  status: row.status,
  attempts: row.attempts,
  lastAttempt:
    row.last_at === null
      ? null
      : { at: row.last_at, statusCode: row.last_status, error: row.last_error, durationMs: row.last_duration_ms ?? 0 },
  nextAttemptAt: row.status === 'PENDING' ? row.next_attempt_at : null,
  createdAt: row.created_at,
});

export const toldOf = (row: ToldRow): ToldGrant => ({
  alertId: row.alert_id,
  grantId: row.grant_id,
  deadline: row.deadline,
  remindedDeadline: row.reminded_deadline,
  opensAt: row.opens_at,
  openedOpensAt: row.opened_opens_at,
});

/** The alert_grants columns a ToldRow holds. */
export const TOLD_COLUMNS = 'alert_id, grant_id, deadline, reminded_deadline, opens_at, opened_opens_at';

/**
 * A due row as the deliverer takes it: the secrets opened, the previous one only while its overlap lasts (`nowIso`).
 */
export const dueMessageOf = (row: DueRow, box: SecretBox, nowIso: string): DueMessage => ({
  id: row.id,
  alertId: row.alert_id,
  grantId: row.grant_id,
  payload: row.payload,
  attempts: row.attempts,
  createdAt: row.created_at,
  url: row.url,
  secrets: [
    box.open(row.secret),
    ...(row.previous_secret !== null && row.previous_until !== null && row.previous_until > nowIso
      ? [box.open(row.previous_secret)]
      : []),
  ],
});

/** A row of idempotency_keys: an answer kept for an Idempotency-Key. */
export interface KeptRow {
  fingerprint: string;
  status: number;
  body: string;
  alert_id: string | null;
  /** Sealed. */
  secret: string | null;
}

/** A kept answer with its secret opened. */
export const keptAnswerOf = (row: KeptRow, box: SecretBox): KeptAnswer => ({
  fingerprint: row.fingerprint,
  status: row.status,
  body: row.body,
  alertId: row.alert_id,
  secret: row.secret === null ? null : box.open(row.secret),
});

/** Why an alert was disabled after `failed` messages in a row ended FAILED. */
export const disabledReason = (failed: number): string =>
  `The last ${failed} messages all failed after every retry; fix the endpoint, then set status to ACTIVE.`;
