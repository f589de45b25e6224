// Conditional requests: a weak ETag on the answers of the routes listed here, and a 304 with no body
// when the request's If-None-Match names it. The tag is the digest of the answer's content (the
// envelope without `meta`, whose timestamp and request id change on every call), so it changes
// exactly when what the partner would read changes: after a reindex or sync that touches the page,
// whatever the engine, and for any JSON route added to the set. A streamed body gets no tag.
//
// A 304 is not counted toward the monthly allowance: rateAndAllowance.ts counts a request that carries
// If-None-Match once its answer is known (before it is sent), and not at all when it is a 304.
import { hash } from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import type { RouteName } from '../routeTable.js';
import { outcomeOf } from '../requestOutcome.js';
import type { AppState } from '../state.js';

/** The routes whose answers carry an ETag and may be answered 304; by route name, not by handler. */
export const CONDITIONAL_ROUTES: ReadonlySet<RouteName> = new Set<RouteName>([
  'grants',
  'grantFilters',
  'grant',
  'grantSimilar',
  'grantSuggest',
]);

export const CACHE_CONTROL = 'private, no-cache';
const VARY = ['Authorization', 'Accept-Encoding'] as const;

/** Whether a request may be answered 304 (and so be counted only once its answer is known). */
export function isConditional(ctx: ParameterizedContext<AppState>): boolean {
  const route = ctx.state.route;
  return (
    route !== undefined &&
    CONDITIONAL_ROUTES.has(route.name as RouteName) &&
    (ctx.method === 'GET' || ctx.method === 'HEAD') &&
    ctx.get('If-None-Match') !== ''
  );
}

const META = ',"meta":';

/**
 * The content of an envelope as text, without its `meta`: JSON text as the handlers write it
 * (meta last) or an object body. Undefined for a body that is neither (a stream, a buffer).
 */
function contentOf(body: unknown): string | undefined {
  if (typeof body === 'string') {
    const at = body.lastIndexOf(META);
    return at < 0 ? body : body.slice(0, at);
  }
  if (body !== null && typeof body === 'object' && Object.getPrototypeOf(body) === Object.prototype) {
    const { meta: _meta, ...content } = body as Record<string, unknown>;
    return JSON.stringify(content);
  }
  return undefined;
}

/** A weak entity tag for a content text: the answer is the same resource state, not the same bytes. */
const entityTag = (content: string): string => `W/"${hash('sha256', content, 'base64url').slice(0, 27)}"`;

/** The opaque part of an entity tag, for the weak comparison (W/ ignored). */
const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * Whether an If-None-Match value (`*` or a comma-separated list of tags) names `etag`, weakly
 * compared (RFC 9110 §13.1.2). Unlike Koa's ctx.fresh it ignores the request's Cache-Control,
 * which fetch() sets to no-cache with any conditional header.
 */
export function namesTag(ifNoneMatch: string, etag: string): boolean {
  const value = ifNoneMatch.trim();
  if (value === '' || etag === '') return false;
  if (value === '*') return true;
  const wanted = opaque(etag);
  return value.split(',').some((tag) => opaque(tag.trim()) === wanted);
}

/** Tags the 200 answers of CONDITIONAL_ROUTES and turns them into 304 when If-None-Match names the tag. */
export function conditionalRequests(): Middleware<AppState> {
  return async function conditionalRequests(ctx, next) {
    await next();
    const route = ctx.state.route;
    if (route === undefined || !CONDITIONAL_ROUTES.has(route.name as RouteName) || ctx.status !== 200) return;
    ctx.set('Cache-Control', CACHE_CONTROL);
    for (const field of VARY) ctx.vary(field);
    const content = contentOf(ctx.body);
    if (content === undefined) return;
    ctx.set('ETag', entityTag(content));
    // RFC 9110 §13.1.2, evaluated by the origin whatever the request's Cache-Control (fetch()
    // adds no-cache to any request carrying If-None-Match, so Koa's ctx.fresh would never be true).
    if (
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      namesTag(ctx.get('If-None-Match'), ctx.response.get('ETag'))
    ) {
      ctx.status = 304;
      ctx.body = null;
      outcomeOf(ctx.state).notModified = true;
    }
  };
}
