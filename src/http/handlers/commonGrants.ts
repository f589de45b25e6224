// Handlers of the CommonGrants routes: the catalog as the protocol's opportunities
// (grants/commonGrants.ts translates each grant), in the protocol's answer shapes
// (envelope.ts: commonGrantsBody) with the envelope's `meta` beside them.
import type { Middleware } from 'koa';
import { looksLikeUuid, toOpportunity } from '../../grants/commonGrants.js';
import type { Grant } from '../../grants/schema.js';
import type { SearchEngine } from '../../search/engine.js';
import { OpportunityIds } from '../../search/opportunityIds.js';
import { commonGrantsBody } from '../envelope.js';
import { notFound } from '../errors.js';
import { parseListRequest, parseSearchBody, type CommonGrantsRequest } from '../parameters/commonGrantsSearch.js';
import { parseExportQuery } from '../parameters/grantSearchParams.js';
import { readJsonObject } from '../parameters/jsonBody.js';
import { clip, paramValidator, parseQueryString } from '../parameters/queryParams.js';
import type { Handlers } from '../middleware/routing.js';
import type { AppState } from '../state.js';

const noParams = paramValidator({});

export function commonGrantsHandlers(engine: SearchEngine, clock: () => Date): Handlers {
  const ids = new OpportunityIds(
    engine,
    () => parseExportQuery(new Map()).query,
    () => clock().getTime(),
  );

  /** A page of opportunities and what the protocol says of it. */
  async function pageOf(request: CommonGrantsRequest, now: number) {
    const { total, grantsJson } =
      request.query === null ? { total: 0, grantsJson: [] } : await engine.searchJson(request.query);
    return {
      items: grantsJson.map((json) => toOpportunity(JSON.parse(json) as Grant, now)),
      paginationInfo: {
        page: request.page,
        pageSize: request.pageSize,
        totalItems: total,
        totalPages: Math.ceil(total / request.pageSize),
      },
    };
  }

  const list: Middleware<AppState> = async (ctx) => {
    const now = clock().getTime();
    const page = await pageOf(parseListRequest(parseQueryString(ctx.querystring), now), now);
    ctx.body = commonGrantsBody(ctx.state.requestId, page);
  };

  const search: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const body = await readJsonObject(ctx);
    const now = clock().getTime();
    const request = parseSearchBody(body, now);
    const page = await pageOf(request, now);
    ctx.body = commonGrantsBody(ctx.state.requestId, {
      ...page,
      sortInfo: request.sortInfo,
      filterInfo: { filters: request.filters },
    });
  };

  /** By the opportunity's UUID (any case) or by our grant id. */
  const read: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    const asked = ctx.state.params.id;
    const byUuid = looksLikeUuid(asked) ? await ids.grantIdOf(asked.toLowerCase()) : null;
    const id = byUuid ?? asked;
    const found = id.length <= 200 ? await engine.getByIdJson(id) : null;
    if (found === null) throw notFound(`No opportunity has the id "${clip(asked)}".`);
    ctx.body = commonGrantsBody(ctx.state.requestId, {
      data: toOpportunity(JSON.parse(found) as Grant, clock().getTime()),
    });
  };

  return { commonGrantsOpportunities: list, commonGrantsSearch: search, commonGrantsOpportunity: read };
}
