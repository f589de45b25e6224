// The payloads of webhook events (Standard Webhooks' recommended shape: type, timestamp, data). Pure.
import { similarGrantsPath } from '../apiPaths.js';
import { servedGrantJson } from '../grants/lifecycle.js';
import type { Alert, MessageType } from './model.js';

interface ChangeRef {
  changedAt: string;
  /** The feed position of the change (a `since` token of GET /grants/changes). */
  position: string;
}

/** The links of a grant event: for `grant.matched`, the grant's similar grants (GET /grants/{id}/similar). */
function linksJson(type: MessageType, grantId: string | undefined): string {
  if (type !== 'grant.matched' || grantId === undefined) return '';
  const links = { similar: { href: similarGrantsPath(grantId), title: 'The grants most like this one' } };
  return `,"links":${JSON.stringify(links)}`;
}

export function eventPayload(
  type: MessageType,
  at: Date,
  alert: Pick<Alert, 'id' | 'name'>,
  fields: {
    grant?: unknown;
    grantJson?: string;
    /** The grant's id: what the payload's links name. */
    grantId?: string;
    reason?: 'deleted' | 'no_longer_matches' | null;
    change?: ChangeRef | null;
    changesJson?: string | null;
  } = {},
): string {
  const alertJson = JSON.stringify({ id: alert.id, name: alert.name });
  const timestamp = JSON.stringify(at.toISOString());
  const head = `{"type":${JSON.stringify(type)},"timestamp":${timestamp},"data":{"alert":${alertJson}`;
  if (type === 'alert.test') return `${head}}}`;
  // The grant as the change log holds it (already JSON) is spliced in rather than serialised again,
  // with its status at the event's time.
  const grant =
    fields.grantJson === undefined ? JSON.stringify(fields.grant) : servedGrantJson(fields.grantJson, at.getTime());
  // `changes`: the fields the change updated (grants/history.ts), as the change log holds them.
  const tail = `"changes":${fields.changesJson ?? 'null'}${linksJson(type, fields.grantId)}`;
  const reason = JSON.stringify(fields.reason ?? null);
  const change = JSON.stringify(fields.change ?? null);
  return `${head},"grant":${grant},"reason":${reason},"change":${change},${tail}}}`;
}
