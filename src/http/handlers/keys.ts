// Handlers of the partner's own keys: GET and POST /keys, DELETE /keys/{id} (the keys:manage
// scope, checked by the scope layer). A key is made with at most the calling key's restrictions
// and shown once; a key can revoke only keys no mightier than itself, and never the
// subscription's last unrestricted key. Every change is written to the audit log with the
// calling key and its address.
//
// POST /keys takes no Idempotency-Key, unlike the alert endpoints: replaying the answer would mean
// keeping the new key in clear for 24 hours. A retry makes a second key, which GET /keys shows.
import type { Context, Middleware } from 'koa';
import { InvalidBodyError, type ErrorDetail } from '../../failures.js';
import type { AuditActor } from '../../subscriptions/audit.js';
import { checkRestrictions, isWithin, MAX_KEY_NAME, withinCaller } from '../../subscriptions/keyRestrictions.js';
import type { SubscriptionRecords } from '../../subscriptions/port.js';
import { rateLimitOf } from '../../subscriptions/tiers.js';
import { readJsonObject } from '../parameters/jsonBody.js';
import { successBody } from '../envelope.js';
import { ApiError, notFound } from '../errors.js';
import { clip, paramValidator, parseQueryString } from '../parameters/queryParams.js';
import type { Handlers } from '../middleware/routing.js';
import type { AppState } from '../state.js';
import { presentKey } from './keyPresentation.js';

const BODY_FIELDS = ['name', 'scopes', 'origins', 'ips', 'expiresAt', 'rateLimit'];
const noParams = paramValidator({});

/** The actor of a change made through the API: the calling key, from its address. */
const apiActor = (state: AppState): AuditActor => ({
  actor: state.caller!.keyId,
  address: state.clientAddress ?? null,
});

/** Whether a key still works (or will, until a rotation's grace ends). */
const active = (key: { revokedAt: string | null }, now: Date) =>
  key.revokedAt === null || key.revokedAt > now.toISOString();

export function keyHandlers(subscriptions: SubscriptionRecords, clock: () => Date): Handlers {
  const stateOf = (ctx: Context) => ctx.state as AppState;

  const keys: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const caller = ctx.state.caller!;
    if (ctx.method !== 'POST') {
      const now = clock();
      const list = (await subscriptions.listKeys(caller.subscription.id)).filter((k) => active(k, now));
      ctx.body = successBody(ctx.state.requestId, list.map(presentKey));
      return;
    }
    const raw = await readJsonObject(ctx);
    const problems: ErrorDetail[] = Object.keys(raw)
      .filter((field) => !BODY_FIELDS.includes(field))
      .map((field) => ({
        parameter: clip(field),
        message: `is not a field of a key (allowed: ${BODY_FIELDS.join(', ')})`,
      }));
    const name = typeof raw.name === 'string' ? raw.name.trim() : '';
    if (name === '' || name.length > MAX_KEY_NAME)
      problems.push({ parameter: 'name', message: `is required: 1 to ${MAX_KEY_NAME} characters` });
    const now = clock();
    const checked = checkRestrictions(raw, now);
    problems.push(...checked.problems);
    const subscriptionRate = rateLimitOf(caller.subscription);
    if (checked.restrictions.rateLimit !== null && checked.restrictions.rateLimit > subscriptionRate) {
      problems.push({
        parameter: 'rateLimit',
        message: `may not exceed the subscription's rate (${subscriptionRate} per second)`,
      });
    }
    if (problems.length > 0) throw new InvalidBodyError(problems);
    const { restrictions, wider } = withinCaller(checked.restrictions, caller.restrictions);
    if (wider.length > 0) {
      throw new ApiError(
        403,
        'KEY_RESTRICTIONS_EXCEEDED',
        `A key may only create keys with at most its own rights: ` +
          `${wider.map((w) => `${w.parameter} ${w.message}`).join('; ')}.`,
      );
    }
    const created = await subscriptions.createKey(
      caller.subscription.id,
      undefined,
      { name, restrictions },
      apiActor(stateOf(ctx)),
    );
    const key = await subscriptions.getKey(created.keyId);
    ctx.status = 201;
    ctx.body = successBody(ctx.state.requestId, { ...presentKey(key!), apiKey: created.apiKey });
  };

  const key: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const caller = ctx.state.caller!;
    const id = ctx.state.params.id;
    const now = clock();
    const found = id.length <= 100 ? await subscriptions.getKey(id) : null;
    if (found === null || found.subscriptionId !== caller.subscription.id || !active(found, now)) {
      throw notFound(`No active key of this subscription has the id "${clip(id)}".`);
    }
    if (!isWithin(found.restrictions, caller.restrictions)) {
      throw new ApiError(
        403,
        'KEY_RESTRICTIONS_EXCEEDED',
        'This key has rights the calling key lacks; revoke it with a key that holds at least its rights.',
      );
    }
    // The last-unrestricted-key rule is checked in the store's transaction, with the revocation.
    const outcome = await subscriptions.revokeKeepingAccess(found.id, apiActor(ctx.state));
    if (outcome === 'gone') throw notFound(`No active key of this subscription has the id "${clip(id)}".`);
    if (outcome === 'last-unrestricted') {
      throw new ApiError(
        409,
        'LAST_UNRESTRICTED_KEY',
        'This is the last unrestricted key of the subscription; create another unrestricted key first, or ask ' +
          'the operator (grants-admin key revoke).',
      );
    }
    ctx.body = successBody(ctx.state.requestId, { id: found.id, revoked: true });
  };

  return { keys, key };
}
