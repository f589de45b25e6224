// Handlers of the three grant endpoints.
import type { Middleware } from 'koa';
import { parseGrantQuery } from '../grants/query.js';
import type { SearchEngine } from '../search/engine.js';
import { successBody } from './envelope.js';
import { notFound } from './errors.js';
import { paramValidator, parseQueryString } from './queryParams.js';
import type { Handlers } from './routes.js';
import type { AppState } from './state.js';

const noParams = paramValidator({});

export function grantHandlers(engine: SearchEngine): Handlers {
  const search: Middleware<AppState> = async (ctx) => {
    const query = parseGrantQuery(parseQueryString(ctx.querystring));
    const { total, grants } = await engine.search(query);
    ctx.body = successBody(ctx.state.requestId, grants, {
      page: query.page,
      limit: query.limit,
      total,
      totalPages: Math.ceil(total / query.limit),
    });
  };

  const filters: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    ctx.body = successBody(ctx.state.requestId, await engine.filterOptions());
  };

  const grant: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const id = (ctx as unknown as { params: { id: string } }).params.id;
    const found = id.length <= 200 ? await engine.getById(id) : null;
    if (found === null) throw notFound(`No grant has the id "${id.length > 40 ? `${id.slice(0, 40)}…` : id}".`);
    ctx.body = successBody(ctx.state.requestId, found);
  };

  return { grants: search, grantFilters: filters, grant };
}
