// Handlers of the /alerts endpoints: a partner's saved searches, their secrets, test events and
// delivery logs. Every alert is looked up within the caller's subscription: another's is a 404.
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { eventPayload } from '../../alerts/events.js';
import { newSigningSecret, presentAlert, presentDelivery, SECRET_OVERLAP_MS, type Alert } from '../../alerts/model.js';
import type { AlertStore, AnswerSecret, KeptAnswer } from '../../alerts/store.js';
import { JSON_CONTENT_TYPE, successBody } from '../envelope.js';
import { ApiError, notFound } from '../errors.js';
import { clip, paramValidator, parseQueryString } from '../parameters/queryParams.js';
import type { Handlers } from '../middleware/routing.js';
import type { AppState } from '../state.js';
import { checkAlertBody } from '../parameters/alertBody.js';
import { readJsonObject } from '../parameters/jsonBody.js';
import {
  alertStore,
  createAlert,
  deleteAlert,
  listAlerts,
  listPage,
  listPaging,
  targetPolicy,
  validateListParams,
  type AlertsApi,
} from './alertActions.js';

export type { AlertsApi } from './alertActions.js';

const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
const MAX_IDEMPOTENCY_KEY = 255;

const noParams = paramValidator({});

/** limit and cursor of a list request. */
const paging = (ctx: Context) => listPaging(validateListParams(parseQueryString(ctx.querystring)));

/**
 * An answer as an Idempotency-Key keeps it: the signing secret in its data (POST /alerts, POST
 * /alerts/{id}/secret) taken out, null in its place, to be kept sealed apart with its alert.
 */
function keepable(body: unknown): { text: string; secret: AnswerSecret | null } {
  const data = (body as { data?: Record<string, unknown> }).data;
  if (typeof data?.secret !== 'string') return { text: JSON.stringify(body), secret: null };
  return {
    text: JSON.stringify({ ...(body as object), data: { ...data, secret: null } }),
    secret: { alertId: data.id as string, secret: data.secret },
  };
}

/** A kept answer as it is replayed: its secret back in place; a 404 once the alert (and its secret) was deleted. */
function replayed(kept: KeptAnswer): string {
  if (kept.alertId === null) return kept.body;
  if (kept.secret === null) {
    throw notFound(
      `The alert this Idempotency-Key answered for (${kept.alertId}) has been deleted, and its signing ` +
        `secret with it; use a new key for a new request.`,
    );
  }
  const body = JSON.parse(kept.body) as { data: Record<string, unknown> };
  body.data.secret = kept.secret;
  return JSON.stringify(body);
}

function sendJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = JSON.stringify(body);
}

export function alertHandlers(api: AlertsApi | undefined, clock: () => Date): Handlers {
  const store = (): AlertStore => alertStore(api);
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
   * are answered one after the other. A signing secret in the answer is kept sealed and replayed
   * while its alert exists.
   */
  const pending = new Map<string, Promise<unknown>>();
  async function idempotent(
    ctx: Context,
    body: string,
    answer: () => Promise<{ status: number; body: unknown }>,
  ): Promise<void> {
    const key = ctx.get('Idempotency-Key');
    if (key === '') {
      const result = await answer();
      return sendJson(ctx, result.status, result.body);
    }
    if (key.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ApiError(
        400,
        'VALIDATION_ERROR',
        `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY} printable characters without spaces.`,
        [
          {
            parameter: 'Idempotency-Key',
            message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} printable characters without spaces`,
          },
        ],
      );
    }
    const subscriptionId = subscriptionOf(ctx).id;
    const slot = `${subscriptionId}\u0000${key}`;
    while (pending.has(slot)) await pending.get(slot)!.catch(() => undefined);
    const fingerprint = createHash('sha256').update(`${ctx.method} ${ctx.path}\n${body}`).digest('hex');
    const work = (async () => {
      const kept = await store().idempotent(
        subscriptionId,
        key,
        new Date(clock().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
      );
      if (kept !== null) {
        if (kept.fingerprint !== fingerprint) {
          throw new ApiError(
            409,
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was used in the last 24 hours with another request; use a new key for a new request.',
          );
        }
        const text = replayed(kept);
        ctx.set('Idempotent-Replayed', 'true');
        ctx.status = kept.status;
        ctx.set('Content-Type', JSON_CONTENT_TYPE);
        ctx.body = text;
        return;
      }
      const result = await answer();
      if (result.status < 300) {
        // Never a secret in clear: it is kept sealed, apart from the body.
        const { text, secret } = keepable(result.body);
        await store().rememberIdempotent(subscriptionId, key, fingerprint, result.status, text, clock(), secret);
      }
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
      const { data, pagination } = await listAlerts(
        store(),
        subscriptionOf(ctx).id,
        validateListParams(parseQueryString(ctx.querystring)),
      );
      ctx.body = successBody(ctx.state.requestId, data, pagination);
      return;
    }
    noParams(parseQueryString(ctx.querystring));
    const raw = await readJsonObject(ctx);
    const fields = checkAlertBody(raw, 'create', targetPolicy(api));
    await idempotent(ctx, JSON.stringify(raw), async () => ({
      status: 201,
      body: successBody(requestIdOf(ctx), await createAlert(store(), subscriptionOf(ctx), fields, clock())),
    }));
  };

  const alert: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const current = await ownAlert(ctx);
    if (ctx.method === 'DELETE') {
      ctx.body = successBody(ctx.state.requestId, await deleteAlert(store(), subscriptionOf(ctx).id, current.id));
      return;
    }
    if (ctx.method === 'PATCH') {
      const changes = checkAlertBody(await readJsonObject(ctx), 'patch', targetPolicy(api));
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
      return {
        status: 200,
        body: successBody(requestIdOf(ctx), { id: current.id, secret, previousSecretValidUntil: previousValidUntil }),
      };
    });
  };

  const alertTest: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const current = await ownAlert(ctx);
    await idempotent(ctx, '', async () => {
      const now = clock();
      const delivery = await store().enqueue(
        { alertId: current.id, grantId: null, type: 'alert.test', payload: eventPayload('alert.test', now, current) },
        now,
      );
      return { status: 202, body: successBody(requestIdOf(ctx), presentDelivery(delivery)) };
    });
  };

  const alertDeliveries: Middleware<AppState> = async (ctx) => {
    const { limit, after } = paging(ctx);
    const current = await ownAlert(ctx);
    const found = await store().deliveries(current.id, after, limit + 1);
    const { items, pagination } = listPage(found, limit);
    ctx.body = successBody(ctx.state.requestId, items.map(presentDelivery), pagination);
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
