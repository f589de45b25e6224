// What the alert endpoints do, apart from HTTP: list, create and delete a subscription's alerts.
// The /alerts handlers and the MCP tools (src/http/handlers/mcpTools.ts) both call these.
import {
  EVENT_TYPES,
  newSigningSecret,
  presentAlert,
  TIER_ALERT_LIMITS,
  type AlertChanges,
  type NewAlert,
} from '../../alerts/model.js';
import type { AlertStore, ListPosition } from '../../alerts/store.js';
import type { TargetPolicy } from '../../alerts/targets.js';
import type { Subscription } from '../../subscriptions/tiers.js';
import { ApiError, notFound } from '../errors.js';
import { clip, paramValidator, type ParamValues } from '../parameters/queryParams.js';
import { ALERT_LIST_PARAMS } from '../parameters/alertListParams.js';

export interface AlertsApi {
  store: AlertStore;
  policy: TargetPolicy;
}

const LIST_DEFAULT = 20;
const LIST_MAX = 100;

/** Validates the parameters of a list (limit, cursor). */
export const validateListParams = paramValidator(ALERT_LIST_PARAMS);

/** The store of a deployment with alerts; 503 on one without. */
export function alertStore(api: AlertsApi | undefined): AlertStore {
  if (api === undefined)
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Alerts are not available on this deployment yet.', undefined, {
      'Retry-After': '3600',
    });
  return api.store;
}

/** The webhook target policy (https and public addresses only, unless the deployment allows more). */
export const targetPolicy = (api: AlertsApi | undefined): TargetPolicy =>
  api?.policy ?? { allowHttp: false, allowPrivate: false };

const encodeListCursor = (p: ListPosition): string =>
  Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');
function decodeListCursor(text: string): ListPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
  } catch {
    // below
  }
  throw new ApiError(
    400,
    'VALIDATION_ERROR',
    'Invalid query parameter "cursor": must be a nextCursor the API gave out.',
    [{ parameter: 'cursor', message: 'must be a nextCursor the API gave out' }],
  );
}

/** limit and cursor of valid list parameters; the page holds one more than asked to tell whether more follow. */
export function listPaging(p: ParamValues): { limit: number; after: ListPosition | null } {
  const limit = Math.min((p.limit as number | undefined) ?? LIST_DEFAULT, LIST_MAX);
  return { limit, after: p.cursor === undefined ? null : decodeListCursor(p.cursor as string) };
}

export function listPage<T extends { createdAt: string; id: string }>(
  items: T[],
  limit: number,
): { items: T[]; pagination: { limit: number; nextCursor: string | null } } {
  const shown = items.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown,
    pagination: { limit, nextCursor: items.length > limit && last !== undefined ? encodeListCursor(last) : null },
  };
}

/** A page of the subscription's alerts, newest first, as served. */
export async function listAlerts(store: AlertStore, subscriptionId: string, p: ParamValues) {
  const { limit, after } = listPaging(p);
  const { items, pagination } = listPage(await store.list(subscriptionId, after, limit + 1), limit);
  return { data: items.map(presentAlert), pagination };
}

/**
 * Creates an alert from checked fields (checkAlertBody 'create'); ALERT_LIMIT_REACHED at the subscription's maximum.
 * The secret is in the answer only.
 */
export async function createAlert(store: AlertStore, subscription: Subscription, fields: AlertChanges, now: Date) {
  const max = (await store.limitOverride(subscription.id)) ?? TIER_ALERT_LIMITS[subscription.tier];
  const events = fields.events ?? EVENT_TYPES.filter((type) => type !== 'grant.closing' || fields.closingReminderDays);
  const input: NewAlert = {
    name: fields.name!,
    query: fields.query!,
    url: fields.url!,
    events,
    closingReminderDays: fields.closingReminderDays ?? null,
  };
  const secret = newSigningSecret();
  // The store counts and inserts in one transaction: simultaneous creations never pass the limit.
  const alert = await store.create(subscription.id, input, secret, now, max);
  if (alert === null) {
    const current = await store.count(subscription.id);
    throw new ApiError(
      403,
      'ALERT_LIMIT_REACHED',
      `This subscription holds ${current} alerts, its maximum (${max}); delete one or ask for a higher limit.`,
    );
  }
  return { ...presentAlert(alert), secret };
}

/** Deletes one of the subscription's alerts; NOT_FOUND for an id it does not hold. */
export async function deleteAlert(
  store: AlertStore,
  subscriptionId: string,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const alert = id.length <= 100 ? await store.get(subscriptionId, id) : null;
  if (alert === null) throw notFound(`No alert of this subscription has the id "${clip(id)}".`);
  await store.delete(subscriptionId, alert.id);
  return { id: alert.id, deleted: true };
}
