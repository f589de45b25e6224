// GET /docs: the interactive API reference, Swagger UI (swagger-ui-dist, from npm) rendering the
// generated OpenAPI document, every asset served by this process (no CDN). "Try it out" sends
// requests to the same origin (the document's server is /external/v1); the partner pastes a key
// under "Authorize". No key is needed to read the page; nothing here is billed or counted.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Middleware } from 'koa';
import { OPENAPI_PATH } from '../openapi/document.js';
import { API_PREFIX, ROUTES } from '../routeTable.js';
import type { AppState } from '../state.js';

export const DOCS_PATH = '/docs';
const ASSETS = `${DOCS_PATH}/assets/`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Grants partner API: reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS}swagger-ui-bundle.js"></script>
<script src="${ASSETS}init.js"></script>
</body>
</html>
`;

const MCP_URL_PATH = API_PREFIX + ROUTES.find((route) => route.name === 'mcp')!.template;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
// requestInterceptor: "Try it out" on POST /mcp sends the Accept of an MCP client (both media
// types, which the transport requires); Swagger UI would send only the response's application/json.
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(API_PREFIX + OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: true,
  persistAuthorization: false,
  requestInterceptor: (request) => {
    if (new URL(request.url, window.location.href).pathname === ${JSON.stringify(MCP_URL_PATH)})
      request.headers.Accept = 'application/json, text/event-stream';
    return request;
  },
});
`;

interface Asset {
  type: string;
  body: string | Buffer;
}

/** The page's files, read from swagger-ui-dist once, on the first request for one. */
let assets: Map<string, Asset> | undefined;
function assetsOf(): Map<string, Asset> {
  if (assets === undefined) {
    const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    const file = (name: string) => readFileSync(path.join(dist, name));
    assets = new Map<string, Asset>([
      [DOCS_PATH, { type: 'text/html; charset=utf-8', body: PAGE }],
      [`${ASSETS}init.js`, { type: 'text/javascript; charset=utf-8', body: INIT }],
      [`${ASSETS}swagger-ui.css`, { type: 'text/css; charset=utf-8', body: file('swagger-ui.css') }],
      [`${ASSETS}swagger-ui-bundle.js`, { type: 'text/javascript; charset=utf-8', body: file('swagger-ui-bundle.js') }],
    ]);
  }
  return assets;
}

/** Only this page's own files and the API of the same origin; Swagger UI needs inline styles and data: images. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

export function serveDocs(): Middleware<AppState> {
  return function serveDocs(ctx, next) {
    if (ctx.path !== DOCS_PATH && ctx.path !== `${DOCS_PATH}/` && !ctx.path.startsWith(ASSETS)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const asset = assetsOf().get(ctx.path === `${DOCS_PATH}/` ? DOCS_PATH : ctx.path);
    if (asset === undefined) return next();
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
