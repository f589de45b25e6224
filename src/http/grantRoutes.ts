// Handlers of the three grant endpoints.
import type { Middleware } from 'koa';
import type { Facets, GrantQuery } from '../grants/query.js';
import type { Grant } from '../grants/schema.js';
import type { SearchEngine } from '../search/engine.js';
import { JSON_CONTENT_TYPE, successBody, successJson } from './envelope.js';
import { notFound } from './errors.js';
import { parseGrantQuery } from './grantSearchParams.js';
import { clip, paramValidator, parseQueryString } from './queryParams.js';
import type { Handlers } from './routes.js';
import type { AppState } from './state.js';
import { changesHandler } from './changesRoute.js';

const noParams = paramValidator({});

/** Answers JSON text as Koa answers an object body: same bytes, same Content-Type. */
function sendJson(ctx: { set(field: string, value: string): void; body: unknown }, json: string): void {
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = json;
}

/** A grant's JSON text with only `fields` (already id first, in canonical order); unchanged text when every field is wanted. */
function projectGrantJson(json: string, fields: (keyof Grant)[] | null): string {
  if (fields === null) return json;
  const grant = JSON.parse(json) as Grant;
  return JSON.stringify(Object.fromEntries(fields.map((field) => [field, grant[field]])));
}

/** The facets asked for, in the order asked (an engine's missing facet reads as no value counted). */
function facetsAsked(query: GrantQuery, counted: Facets | undefined): Facets | undefined {
  if (query.facets.length === 0) return undefined;
  return Object.fromEntries(query.facets.map((name) => [name, counted?.[name] ?? []]));
}

export function grantHandlers(engine: SearchEngine, clock: () => Date): Handlers {
  const search: Middleware<AppState> = async (ctx) => {
    const query = parseGrantQuery(parseQueryString(ctx.querystring), clock().getTime());
    const { total, grantsJson, facets } = await engine.searchJson(query);
    sendJson(
      ctx,
      successJson(
        ctx.state.requestId,
        `[${grantsJson.map((json) => projectGrantJson(json, query.fields)).join(',')}]`,
        { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
        facetsAsked(query, facets),
      ),
    );
  };

  const filters: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    ctx.body = successBody(ctx.state.requestId, await engine.filterOptions());
  };

  const grant: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const id = ctx.state.params.id;
    const found = id.length <= 200 ? await engine.getByIdJson(id) : null;
    if (found === null) throw notFound(`No grant has the id "${clip(id)}".`);
    sendJson(ctx, successJson(ctx.state.requestId, found));
  };

  return { grants: search, grantFilters: filters, grantChanges: changesHandler(engine), grant };
}
