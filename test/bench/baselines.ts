// Baseline servers, each a bare node:http server run as its own child process by the bench:
//
//   node dist/test/bench/baselines.js ceiling          a same-size JSON body, nothing else: the
//                                                      ceiling of any Node server on this machine
//   node dist/test/bench/baselines.js sqlite           the catalog read directly: the product's
//                                                      embedded engine (FTS5 + in-memory columns)
//                                                      called straight, stored JSON spliced, no
//                                                      Koa, no layers
//   node dist/test/bench/baselines.js elasticsearch    the product's Elasticsearch engine called
//                                                      straight (the translated _search, grants
//                                                      cut out of its text), no Koa, no layers
//
// PORT (and DATA_DIR, or ELASTICSEARCH_URL and ELASTICSEARCH_INDEX) come from the environment.
// A parsed query is memoised per query string, so a direct baseline pays only the engine and HTTP.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { GrantQuery } from '../../src/grants/query.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { createEsClient } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchSearchEngine } from '../../src/search/elasticsearch/engine.js';
import { catalogPath, openCatalog } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { isEntryPoint } from '../../src/cli/entryPoint.js';

const PREFIX = '/external/v1';
const JSON_TYPE = 'application/json; charset=utf-8';

type Handler = (
  path: string,
  queryString: string,
  req: IncomingMessage,
) => Promise<{ status: number; body: string | Buffer }>;

const metaJson = () =>
  `{"timestamp":"${new Date().toISOString()}","requestId":"req_baseline000000000000000000","version":"v1"}`;

function pagination(query: GrantQuery, total: number): string {
  return JSON.stringify({ page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) });
}

const notFound = () => ({
  status: 404,
  body: `{"success":false,"error":{"code":"NOT_FOUND","message":"not found"},"meta":${metaJson()}}`,
});

/** A JSON body of exactly `bytes` bytes (at least 30). */
export function paddedBody(bytes: number): Buffer {
  const head = '{"success":true,"data":"';
  const tail = '"}';
  return Buffer.from(head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
}

/** The ceiling: the body size is asked for per request in X-Bench-Bytes, so one server serves every class. */
function ceiling(): Handler {
  const bodies = new Map<number, Buffer>();
  return async (_path, _qs, req) => {
    const bytes = Math.min(10_000_000, Number(req.headers['x-bench-bytes'] ?? 1024) || 1024);
    let body = bodies.get(bytes);
    if (body === undefined) {
      body = paddedBody(bytes);
      bodies.set(bytes, body);
    }
    return { status: 200, body };
  };
}

/**
 * An engine answering the API's grant URLs straight (parsed queries memoised), its grants spliced
 * as they come; `byId` reads one grant's JSON text.
 */
function directEngine(engine: SearchEngine, byId: (id: string) => Promise<string | null>): Handler {
  const queries = new Map<string, GrantQuery>();
  return async (path, qs) => {
    if (path === `${PREFIX}/grants`) {
      let query = queries.get(qs);
      if (query === undefined) {
        query = parseGrantQuery(parseQueryString(qs));
        queries.set(qs, query);
      }
      const { total, grantsJson, facets } = await engine.searchJson(query);
      return {
        status: 200,
        body:
          `{"success":true,"data":[${grantsJson.join(',')}],` +
          `"pagination":${pagination(query, total)}` +
          (facets === undefined ? '' : `,"facets":${JSON.stringify(facets)}`) +
          ',' +
          `"meta":${metaJson()}}`,
      };
    }
    if (path === `${PREFIX}/grants/filters`) {
      return {
        status: 200,
        body: `{"success":true,"data":${JSON.stringify(await engine.filterOptions())},"meta":${metaJson()}}`,
      };
    }
    if (path.startsWith(`${PREFIX}/grants/`)) {
      const grant = await byId(decodeURIComponent(path.slice(PREFIX.length + 8)));
      return grant === null
        ? notFound()
        : { status: 200, body: `{"success":true,"data":${grant},"meta":${metaJson()}}` };
    }
    return notFound();
  };
}

function directSqlite(dataDir: string): Handler {
  const db = openCatalog(catalogPath(dataDir));
  const byId = db.prepare('SELECT doc FROM grants WHERE id = ?').pluck();
  return directEngine(SqliteSearchEngine.following(db), async (id) => (byId.get(id) as string | undefined) ?? null);
}

/** The product's Elasticsearch engine: the translated _search and _mget, the grants cut out of their text. */
function directElasticsearch(url: string, alias: string): Handler {
  const engine = new ElasticsearchSearchEngine(createEsClient({ url, index: alias, requestTimeoutMs: 3000 }), alias);
  return directEngine(engine, (id) => engine.getByIdJson(id));
}

function serve(handler: Handler, port: number): void {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const qs = q === -1 ? '' : url.slice(q + 1);
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': JSON_TYPE }).end('{"status":"ok"}');
      return;
    }
    handler(path, qs, req).then(
      ({ status, body }) => {
        res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) }).end(body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'Content-Type': JSON_TYPE }).end(JSON.stringify({ success: false, error: String(error) }));
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  server.listen(port, '127.0.0.1');
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function main(): void {
  const kind = process.argv[2];
  const port = Number(process.env.PORT ?? 0);
  switch (kind) {
    case 'ceiling':
      return serve(ceiling(), port);
    case 'sqlite':
      return serve(directSqlite(process.env.DATA_DIR ?? './data'), port);
    case 'elasticsearch':
      return serve(
        directElasticsearch(
          process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200',
          process.env.ELASTICSEARCH_INDEX ?? 'grants',
        ),
        port,
      );
    default:
      process.stderr.write('usage: node dist/test/bench/baselines.js ceiling|sqlite|elasticsearch\n');
      process.exit(2);
  }
}

if (isEntryPoint(import.meta.url)) main();
