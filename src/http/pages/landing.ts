// The root page (GET /) and the short-cut GET /external/v1/docs: a newcomer who opens the
// server's address, or guesses the reference page under the API's prefix, is shown the way.
// GET / answers a small JSON object in the envelope, or the same links as an HTML page when the
// client prefers text/html (a browser); neither needs a key, nor is billed or counted.
import type { Middleware } from 'koa';
import { CONSOLE_PATH } from './consolePage.js';
import { DOCS_PATH } from './docs.js';
import { SEARCH_PAGE_PATH } from './searchPage.js';
import { JSON_CONTENT_TYPE, successBody } from '../envelope.js';
import { OPENAPI_PATH } from '../openapi/document.js';
import { API_PREFIX } from '../routeTable.js';
import type { AppState } from '../state.js';

/** Where the API's own pages and documents are, each with what it is for. */
const LANDING_LINKS = [
  {
    rel: 'docs',
    href: DOCS_PATH,
    title:
      'Reference page: the partner guide (authentication, limits and billing, paging and sync, usage, errors), ' +
      'then every operation, to try with a key',
  },
  {
    rel: 'search',
    href: SEARCH_PAGE_PATH,
    title:
      'Search page: a small page partners copy (plain HTML, CSS and JavaScript), to search the grants with a ' +
      'restricted key',
  },
  {
    rel: 'console',
    href: CONSOLE_PATH,
    title: 'Partner console: a subscription’s tier, limits, allowance and calls per day',
  },
  {
    rel: 'openapi',
    href: `${API_PREFIX}${OPENAPI_PATH}`,
    title: 'The contract as an OpenAPI 3.1 document (no key needed)',
  },
  { rel: 'api', href: API_PREFIX, title: 'The API itself: every request needs "Authorization: Bearer <key>"' },
] as const;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const linkItem = (link: { href: string; title: string }): string =>
  `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.href)}</a>: ${escapeHtml(link.title)}</li>`;

const LANDING_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Grants API</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; line-height: 1.5">
<h1>Grants API</h1>
<p>A read-only API for searching grants. Every request under <code>${API_PREFIX}</code> needs an API key.</p>
<ul>
${LANDING_LINKS.map(linkItem).join('\n')}
</ul>
</body></html>
`;

/** GET/HEAD / (JSON, or HTML for a browser) and GET/HEAD /external/v1/docs (302 to /docs). */
export function serveLanding(): Middleware<AppState> {
  return function serveLanding(ctx, next) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === `${API_PREFIX}${DOCS_PATH}` || ctx.path === `${API_PREFIX}${DOCS_PATH}/`) {
      ctx.status = 302;
      ctx.set('Location', DOCS_PATH);
      ctx.set('Content-Type', JSON_CONTENT_TYPE);
      ctx.body = JSON.stringify(
        successBody(ctx.state.requestId, {
          location: DOCS_PATH,
          message: `The reference page is at ${DOCS_PATH}, outside the API's prefix.`,
        }),
      );
      return;
    }
    if (ctx.path !== '/') return next();
    ctx.set('Vary', 'Accept');
    ctx.set('Cache-Control', 'no-cache');
    if (ctx.accepts('application/json', 'text/html') === 'text/html') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = LANDING_HTML;
      return;
    }
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = JSON.stringify(
      successBody(ctx.state.requestId, {
        name: 'Grants API',
        message:
          `The API lives under ${API_PREFIX}; every request there needs "Authorization: Bearer <key>". Start ` +
          `with the reference page at ${DOCS_PATH}.`,
        links: Object.fromEntries(LANDING_LINKS.map((link) => [link.rel, { href: link.href, title: link.title }])),
      }),
    );
  };
}
