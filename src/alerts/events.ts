// The payloads of webhook events (Standard Webhooks' recommended shape: type, timestamp, data). Pure.
import type { Alert, MessageType } from './model.js';

export interface ChangeRef {
  changedAt: string;
  /** The feed position of the change (a `since` token of GET /grants/changes). */
  position: string;
}

export function eventPayload(
  type: MessageType,
  at: Date,
  alert: Pick<Alert, 'id' | 'name'>,
  fields: { grant?: unknown; reason?: 'deleted' | 'no_longer_matches' | null; change?: ChangeRef | null } = {},
): string {
  const data: Record<string, unknown> = { alert: { id: alert.id, name: alert.name } };
  if (type !== 'alert.test') {
    data.grant = fields.grant;
    data.reason = fields.reason ?? null;
    data.change = fields.change ?? null;
  }
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}
