// Handlers of the /alerts endpoints: a partner's saved searches, their secrets, test events and
// delivery logs. Every alert is looked up within the caller's subscription: another's is a 404.
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { eventPayload } from '../../alerts/events.js';
import { newSigningSecret, presentAlert, presentDelivery, SECRET_OVERLAP_MS, TIER_ALERT_LIMITS, type Alert, type NewAlert } from '../../alerts/model.js';
import type { AlertStore, ListPosition } from '../../alerts/store.js';
import type { TargetPolicy } from '../../alerts/targets.js';
import { JSON_CONTENT_TYPE, successBody } from '../envelope.js';
import { ApiError, notFound } from '../errors.js';
import { clip, paramValidator, parseQueryString } from '../queryParams.js';
import type { Handlers } from '../routes.js';
import type { AppState } from '../state.js';
import { checkAlertBody, readJsonObject } from './alertBody.js';
import { ALERT_LIST_PARAMS } from './alertDocument.js';

export interface AlertsApi {
  store: AlertStore;
  policy: TargetPolicy;
}

const LIST_DEFAULT = 20;
const LIST_MAX = 100;
const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
const MAX_IDEMPOTENCY_KEY = 255;

const listParams = paramValidator(ALERT_LIST_PARAMS);
const noParams = paramValidator({});

const encodeCursor = (p: ListPosition): string => Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');
function decodeCursor(text: string): ListPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
  } catch {
    // below
  }
  throw new ApiError(400, 'VALIDATION_ERROR', 'Invalid query parameter "cursor": must be a nextCursor the API gave out.', [
    { parameter: 'cursor', message: 'must be a nextCursor the API gave out' },
  ]);
}

/** limit and cursor of a list; the page holds one more than asked to tell whether more follow. */
function paging(ctx: Context): { limit: number; after: ListPosition | null } {
  const p = listParams(parseQueryString(ctx.querystring));
  const limit = Math.min((p.limit as number | undefined) ?? LIST_DEFAULT, LIST_MAX);
  return { limit, after: p.cursor === undefined ? null : decodeCursor(p.cursor as string) };
}

function page<T extends { createdAt: string; id: string }>(items: T[], limit: number): { items: T[]; pagination: { limit: number; nextCursor: string | null } } {
  const shown = items.slice(0, limit);
  const last = shown.at(-1);
  return { items: shown, pagination: { limit, nextCursor: items.length > limit && last !== undefined ? encodeCursor(last) : null } };
}

function sendJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = JSON.stringify(body);
}

export function alertHandlers(api: AlertsApi | undefined, clock: () => Date): Handlers {
  const store = (): AlertStore => {
    if (api === undefined) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Alerts are not available on this deployment yet.', undefined, { 'Retry-After': '3600' });
    return api.store;
  };
  const subscriptionOf = (ctx: Context) => (ctx.state as AppState).caller!.subscription;
  const requestIdOf = (ctx: Context) => (ctx.state as AppState).requestId;

  async function ownAlert(ctx: Context): Promise<Alert> {
    const id = (ctx.state as AppState).params.id;
    const alert = id.length <= 100 ? await store().get(subscriptionOf(ctx).id, id) : null;
    if (alert === null) throw notFound(`No alert of this subscription has the id "${clip(id)}".`);
    return alert;
  }

  /**
   * Stripe's Idempotency-Key: the first 2xx answer to a key is kept 24 hours and replayed for the
   * same key and body; another body with the same key is a 409. Concurrent requests with one key
   * are answered one after the other.
   */
  const pending = new Map<string, Promise<unknown>>();
  async function idempotent(ctx: Context, body: string, answer: () => Promise<{ status: number; body: unknown }>): Promise<void> {
    const key = ctx.get('Idempotency-Key');
    if (key === '') {
      const result = await answer();
      return sendJson(ctx, result.status, result.body);
    }
    if (key.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ApiError(400, 'VALIDATION_ERROR', `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY} printable characters without spaces.`, [
        { parameter: 'Idempotency-Key', message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} printable characters without spaces` },
      ]);
    }
    const subscriptionId = subscriptionOf(ctx).id;
    const slot = `${subscriptionId}\u0000${key}`;
    while (pending.has(slot)) await pending.get(slot)!.catch(() => undefined);
    const fingerprint = createHash('sha256').update(`${ctx.method} ${ctx.path}\n${body}`).digest('hex');
    const work = (async () => {
      const kept = await store().idempotent(subscriptionId, key, new Date(clock().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString());
      if (kept !== null) {
        if (kept.fingerprint !== fingerprint) {
          throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used in the last 24 hours with another request; use a new key for a new request.');
        }
        ctx.set('Idempotent-Replayed', 'true');
        ctx.status = kept.status;
        ctx.set('Content-Type', JSON_CONTENT_TYPE);
        ctx.body = kept.body;
        return;
      }
      const result = await answer();
      const text = JSON.stringify(result.body);
      if (result.status < 300) await store().rememberIdempotent(subscriptionId, key, fingerprint, result.status, text, clock());
      sendJson(ctx, result.status, result.body);
    })();
    pending.set(slot, work);
    try {
      await work;
    } finally {
      pending.delete(slot);
    }
  }

  const alerts: Middleware<AppState> = async (ctx) => {
    if (ctx.method !== 'POST') {
      const { limit, after } = paging(ctx);
      const found = await store().list(subscriptionOf(ctx).id, after, limit + 1);
      const { items, pagination } = page(found, limit);
      ctx.body = { success: true, data: items.map(presentAlert), pagination, meta: successBody(ctx.state.requestId, null).meta };
      return;
    }
    noParams(parseQueryString(ctx.querystring));
    const raw = await readJsonObject(ctx);
    const fields = checkAlertBody(raw, 'create', api?.policy ?? { allowHttp: false, allowPrivate: false });
    await idempotent(ctx, JSON.stringify(raw), async () => {
      const subscription = subscriptionOf(ctx);
      const max = (await store().limitOverride(subscription.id)) ?? TIER_ALERT_LIMITS[subscription.tier];
      const current = await store().count(subscription.id);
      if (current >= max) {
        throw new ApiError(403, 'ALERT_LIMIT_REACHED', `This subscription holds ${current} alerts, its maximum (${max}); delete one or ask for a higher limit.`);
      }
      const events = fields.events ?? (fields.closingReminderDays ? ['grant.matched', 'grant.updated', 'grant.unmatched', 'grant.closing'] : ['grant.matched', 'grant.updated', 'grant.unmatched']);
      const input: NewAlert = { name: fields.name!, query: fields.query!, url: fields.url!, events, closingReminderDays: fields.closingReminderDays ?? null };
      const secret = newSigningSecret();
      const alert = await store().create(subscription.id, input, secret, clock());
      return { status: 201, body: successBody(requestIdOf(ctx), { ...presentAlert(alert), secret }) };
    });
  };

  const alert: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const current = await ownAlert(ctx);
    if (ctx.method === 'DELETE') {
      await store().delete(subscriptionOf(ctx).id, current.id);
      ctx.body = successBody(ctx.state.requestId, { id: current.id, deleted: true });
      return;
    }
    if (ctx.method === 'PATCH') {
      const changes = checkAlertBody(await readJsonObject(ctx), 'patch', api?.policy ?? { allowHttp: false, allowPrivate: false });
      const updated = await store().update(subscriptionOf(ctx).id, current.id, changes, clock());
      if (updated === null) throw notFound(`No alert of this subscription has the id "${clip(current.id)}".`);
      ctx.body = successBody(ctx.state.requestId, presentAlert(updated));
      return;
    }
    ctx.body = successBody(ctx.state.requestId, presentAlert(current));
  };

  const alertSecret: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const current = await ownAlert(ctx);
    await idempotent(ctx, '', async () => {
      const secret = newSigningSecret();
      await store().rotateSecret(subscriptionOf(ctx).id, current.id, secret, clock(), SECRET_OVERLAP_MS);
      const previousValidUntil = new Date(clock().getTime() + SECRET_OVERLAP_MS).toISOString();
      return { status: 200, body: successBody(requestIdOf(ctx), { id: current.id, secret, previousSecretValidUntil: previousValidUntil }) };
    });
  };

  const alertTest: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const current = await ownAlert(ctx);
    await idempotent(ctx, '', async () => {
      const now = clock();
      const delivery = await store().enqueue({ alertId: current.id, grantId: null, type: 'alert.test', payload: eventPayload('alert.test', now, current) }, now);
      return { status: 202, body: successBody(requestIdOf(ctx), presentDelivery(delivery)) };
    });
  };

  const alertDeliveries: Middleware<AppState> = async (ctx) => {
    const { limit, after } = paging(ctx);
    const current = await ownAlert(ctx);
    const found = await store().deliveries(current.id, after, limit + 1);
    const { items, pagination } = page(found, limit);
    ctx.body = { success: true, data: items.map(presentDelivery), pagination, meta: successBody(ctx.state.requestId, null).meta };
  };

  const alertDeliveryRetry: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const current = await ownAlert(ctx);
    const deliveryId = ctx.state.params.deliveryId;
    const retried = deliveryId.length <= 100 ? await store().retry(current.id, deliveryId, clock()) : null;
    if (retried === null) throw notFound(`No delivery of this alert has the id "${clip(deliveryId)}".`);
    ctx.status = 202;
    ctx.body = successBody(ctx.state.requestId, presentDelivery(retried));
  };

  return { alerts, alert, alertSecret, alertTest, alertDeliveries, alertDeliveryRetry };
}
