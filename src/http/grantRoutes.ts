// Handlers of the three grant endpoints.
import type { Middleware } from 'koa';
import { parseGrantQuery } from '../grants/query.js';
import type { SearchEngine } from '../search/engine.js';
import { JSON_CONTENT_TYPE, successBody, successJson } from './envelope.js';
import { notFound } from './errors.js';
import { clip, paramValidator, parseQueryString } from './queryParams.js';
import type { Handlers } from './routes.js';
import type { AppState } from './state.js';

const noParams = paramValidator({});

/** Answers JSON text as Koa answers an object body: same bytes, same Content-Type. */
function sendJson(ctx: { set(field: string, value: string): void; body: unknown }, json: string): void {
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = json;
}

export function grantHandlers(engine: SearchEngine): Handlers {
  const search: Middleware<AppState> = async (ctx) => {
    const query = parseGrantQuery(parseQueryString(ctx.querystring));
    const { total, grantsJson } = await engine.searchJson(query);
    sendJson(
      ctx,
      successJson(ctx.state.requestId, `[${grantsJson.join(',')}]`, {
        page: query.page,
        limit: query.limit,
        total,
        totalPages: Math.ceil(total / query.limit),
      }),
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

  return { grants: search, grantFilters: filters, grant };
}
