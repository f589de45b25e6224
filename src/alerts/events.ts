// The payloads of webhook events (Standard Webhooks' recommended shape: type, timestamp, data). Pure.
import { servedGrantJson } from '../grants/lifecycle.js';
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
  fields: {
    grant?: unknown;
    grantJson?: string;
    reason?: 'deleted' | 'no_longer_matches' | null;
    change?: ChangeRef | null;
    changesJson?: string | null;
  } = {},
): string {
  const head =
    `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(at.toISOString())},` +
    `"data":{"alert":${JSON.stringify({ id: alert.id, name: alert.name })}`;
  if (type === 'alert.test') return `${head}}}`;
  // The grant as the change log holds it (already JSON) is spliced in rather than serialised again,
  // with its status at the event's time.
  const grant =
    fields.grantJson === undefined ? JSON.stringify(fields.grant) : servedGrantJson(fields.grantJson, at.getTime());
  // `changes`: the fields the change updated (grants/history.ts), as the change log holds them.
  return (
    `${head},"grant":${grant},"reason":${JSON.stringify(fields.reason ?? null)},` +
    `"change":${JSON.stringify(fields.change ?? null)},"changes":${fields.changesJson ?? 'null'}}}`
  );
}
