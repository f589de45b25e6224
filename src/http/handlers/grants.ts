// Handlers of the grant endpoints.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { highlightGrant, searchWordFinder, textsOfJson, type HighlightSpec } from '../../grants/highlighting.js';
import { servedGrantJson } from '../../grants/lifecycle.js';
import { projectGrantJson } from '../../grants/projection.js';
import type { Facets, GrantQuery } from '../../grants/query.js';
import type { Suggestion } from '../../grants/typos.js';
import { describeError } from '../../log.js';
import type { SearchEngine } from '../../search/engine.js';
import { similarGrants } from '../../search/similarSearch.js';
import { JSON_CONTENT_TYPE, successBody, successJson, type Pagination } from '../envelope.js';
import { notFound } from '../errors.js';
import { encodeCursor } from '../parameters/grantCursor.js';
import { CSV_CONTENT_TYPE, NDJSON_CONTENT_TYPE, csvColumns, csvHeader, csvRows, ndjsonLines } from './exportFormat.js';
import { parseExportQuery, parseGrantSearch, parseSimilarSearch } from '../parameters/grantSearchParams.js';
import { parseSuggestQuery } from '../parameters/suggestParams.js';
import type { SuggestItem } from '../../grants/suggest.js';
import { clip, paramValidator, parseQueryString } from '../parameters/queryParams.js';
import type { Handlers } from '../middleware/routing.js';
import type { AppState } from '../state.js';
import { changesHandler } from './changes.js';
import { historyHandler } from './history.js';

const noParams = paramValidator({});

/** Answers JSON text as Koa answers an object body: same bytes, same Content-Type. */
function sendJson(ctx: { set(field: string, value: string): void; body: unknown }, json: string): void {
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = json;
}

/** The facets asked for, in the order asked (an engine's missing facet reads as no value counted). */
function facetsAsked(query: GrantQuery, counted: Facets | undefined): Facets | undefined {
  if (query.facets.length === 0) return undefined;
  return Object.fromEntries(query.facets.map((name) => [name, counted?.[name] ?? []]));
}

/**
 * A page of GET /grants as JSON pieces: the grants (as the engine stores them, with their status at the query's time,
 * projected), pagination and facets asked.
 */
interface SearchPage {
  dataJson: string;
  pagination: Pagination;
  facets?: Facets;
  /** With a search: its "did you mean" (null for none); absent without a search. */
  suggestion?: Suggestion | null;
}

/** A served grant's JSON text with its highlights added last. */
const withHighlightsJson = (json: string, highlights: object): string =>
  `${json.slice(0, json.lastIndexOf('}'))},"highlights":${JSON.stringify(highlights)}}`;

/**
 * Runs a parsed GET /grants query (parseGrantSearch) on the engine: what GET /grants and the MCP
 * tool search_grants answer. With `highlight`, each grant gains its highlights, from the search as
 * the engine ran it (grants/highlighting.ts).
 */
export async function searchPage(
  engine: SearchEngine,
  query: GrantQuery,
  highlight: HighlightSpec | null = null,
): Promise<SearchPage> {
  const { total, grantsJson, facets, next, suggestion, search } = await engine.searchJson(query);
  const page = presentPage(query, total, grantsJson, highlight, search ?? query.search);
  if (query.cursor) page.pagination.nextCursor = next ? encodeCursor(query, query.page + 1, next) : null;
  page.facets = facetsAsked(query, facets);
  if (query.search !== null) page.suggestion = suggestion ?? null;
  return page;
}

/**
 * A page of grants as a list route serves it: each grant (its JSON text as the engine stores it)
 * with its status at the query's time, projected to the query's fields, and the pagination of
 * `total` matches. What every list of grants is presented by (a search's page, the similar grants).
 */
function presentPage(
  query: GrantQuery,
  total: number,
  grantsJson: readonly string[],
  highlight: HighlightSpec | null,
  search: GrantQuery['search'],
): SearchPage {
  const pagination: Pagination = {
    page: query.page,
    limit: query.limit,
    total,
    totalPages: query.limit === 0 ? 0 : Math.ceil(total / query.limit),
  };
  const finder = highlight === null ? null : searchWordFinder(search);
  const served = grantsJson.map((json) => {
    const projected = projectGrantJson(servedGrantJson(json, query.now), query.fields);
    return highlight === null || finder === null
      ? projected
      : withHighlightsJson(projected, highlightGrant(textsOfJson(json, highlight), highlight, finder));
  });
  return { dataJson: `[${served.join(',')}]`, pagination };
}

/**
 * The grants like the grant `id` (search/similarSearch.ts) as one page (parseSimilarQuery): the
 * query's filters and fields, `limit` of them, best first; NOT_FOUND when no grant has the id.
 * What GET /grants/:id/similar and the MCP tool similar_grants answer. The page is presented with
 * the chosen terms as its search, so what marks the words a page's search finds marks them.
 */
export async function similarPage(
  engine: SearchEngine,
  id: string,
  query: GrantQuery,
  highlight: HighlightSpec | null = null,
): Promise<SearchPage> {
  const found = id.length <= 200 ? await similarGrants(engine, id, query) : null;
  if (found === null) throw notFound(`No grant has the id "${clip(id)}".`);
  const page = presentPage(
    { ...query, search: found.search, words: found.terms.map((term) => term.word) },
    found.total,
    found.grantsJson,
    highlight,
    found.search,
  );
  // One page only: the best `limit`; `total` counts every grant found similar.
  page.pagination.totalPages = Math.min(1, found.total);
  return page;
}

/** One grant's JSON text by id as served at `now` (epoch ms: its status then); NOT_FOUND when no grant has it. */
export async function grantJsonById(engine: SearchEngine, id: string, now: number): Promise<string> {
  const found = id.length <= 200 ? await engine.getByIdJson(id) : null;
  if (found === null) throw notFound(`No grant has the id "${clip(id)}".`);
  return servedGrantJson(found, now);
}

/**
 * GET /grants/suggest and the MCP tool suggest_grants: the completions of the typed text (none when it holds no word).
 */
async function suggestions(engine: SearchEngine, query: Map<string, string[]>, now: number): Promise<SuggestItem[]> {
  const request = parseSuggestQuery(query, now);
  return request === null ? [] : engine.suggest(request);
}

export function grantHandlers(engine: SearchEngine, clock: () => Date): Handlers {
  const search: Middleware<AppState> = async (ctx) => {
    const { query, highlight } = parseGrantSearch(parseQueryString(ctx.querystring), clock().getTime());
    const page = await searchPage(engine, query, highlight);
    sendJson(ctx, successJson(ctx.state.requestId, page.dataJson, page.pagination, page.facets, page.suggestion));
  };

  /**
   * Every match, streamed as the reader takes it. The status and X-Export-Count are sent before
   * the first grant; a failure after that cannot change them: the connection is closed at once,
   * so the partner receives fewer grants than the count (and an unterminated response).
   */
  /**
   * Closes the connection of a failed export. A compressed answer's first bytes (and its headers:
   * status, X-Export-Count) may still be inside the encoder when the failure comes: they are let
   * out first, for at most a second, so the partner sees a started answer cut short.
   */
  function cutOnceHeadersSent(res: ServerResponse, deadline = Date.now() + 1000): void {
    if (res.headersSent || Date.now() >= deadline) res.destroy();
    else setTimeout(() => cutOnceHeadersSent(res, deadline), 5).unref();
  }

  const exportGrants: Middleware<AppState> = async (ctx) => {
    const now = clock();
    const { query, format } = parseExportQuery(parseQueryString(ctx.querystring), now.getTime());
    const exported = await engine.exportJson(query);
    const columns = csvColumns(query.fields);
    async function* text(): AsyncGenerator<string> {
      if (format === 'csv') yield csvHeader(columns);
      for await (const batch of exported.batches) {
        const served = batch.map((json) => servedGrantJson(json, query.now));
        yield format === 'csv' ? csvRows(served, columns) : ndjsonLines(served, query.fields);
      }
    }
    const stream = Readable.from(text(), { objectMode: false });
    stream.once('close', () => void exported.close());
    stream.once('error', (error) => {
      ctx.state.log?.error('export cut short', { ...describeError(error), exportCount: exported.total });
      cutOnceHeadersSent(ctx.res);
    });
    ctx.status = 200;
    ctx.set('Content-Type', format === 'csv' ? CSV_CONTENT_TYPE : NDJSON_CONTENT_TYPE);
    ctx.set('Content-Disposition', `attachment; filename="grants-${now.toISOString().slice(0, 10)}.${format}"`);
    ctx.set('X-Export-Count', String(exported.total));
    ctx.body = stream;
  };

  const filters: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    ctx.body = successBody(ctx.state.requestId, await engine.filterOptions());
  };

  const suggest: Middleware<AppState> = async (ctx) => {
    ctx.body = successBody(
      ctx.state.requestId,
      await suggestions(engine, parseQueryString(ctx.querystring), clock().getTime()),
    );
  };

  const grant: Middleware<AppState> = async (ctx) => {
    noParams(parseQueryString(ctx.querystring));
    sendJson(
      ctx,
      successJson(ctx.state.requestId, await grantJsonById(engine, ctx.state.params.id, clock().getTime())),
    );
  };

  const similar: Middleware<AppState> = async (ctx) => {
    const { query, highlight } = parseSimilarSearch(parseQueryString(ctx.querystring), clock().getTime());
    const page = await similarPage(engine, ctx.state.params.id, query, highlight);
    sendJson(ctx, successJson(ctx.state.requestId, page.dataJson, page.pagination));
  };

  return {
    grants: search,
    grantFilters: filters,
    grantChanges: changesHandler(engine, clock),
    grantExport: exportGrants,
    grant,
    grantHistory: historyHandler(engine),
    grantSimilar: similar,
    grantSuggest: suggest,
  };
}
