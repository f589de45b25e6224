// GET /console: the partner console, a small static page (plain DOM and SVG, no library, no CDN)
// that reads this origin's /subscription/usage and /subscription/limits with a pasted key and
// draws the tier, status, rate, features, the monthly allowance as a gauge and the calls per day.
// Its files live beside this module's source in src/http/pages/console/ and are read once, on the first
// request; no key is needed for the page itself, and it is neither billed nor counted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import { repoPath } from '../../repoRoot.js';
import type { AppState } from '../state.js';

export const CONSOLE_PATH = '/console';
const ASSETS = `${CONSOLE_PATH}/assets/`;

/** The folder of the page's files (in the source tree, whether this module runs from source or from dist/). */
const ASSET_FOLDER = repoPath('src/http/pages/console');

interface Asset {
  type: string;
  body: Buffer;
}

let assets: Map<string, Asset> | undefined;
function assetsOf(): Map<string, Asset> {
  if (assets === undefined) {
    const dir = ASSET_FOLDER;
    const file = (name: string) => readFileSync(path.join(dir, name));
    assets = new Map<string, Asset>([
      [CONSOLE_PATH, { type: 'text/html; charset=utf-8', body: file('page.html') }],
      [`${ASSETS}console.js`, { type: 'text/javascript; charset=utf-8', body: file('console.js') }],
      [`${ASSETS}console.css`, { type: 'text/css; charset=utf-8', body: file('console.css') }],
    ]);
  }
  return assets;
}

/** Only this origin: the page's own files and the API; no inline script, no frames. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export function serveConsole(): Middleware<AppState> {
  return function serveConsole(ctx, next) {
    if (ctx.path !== CONSOLE_PATH && ctx.path !== `${CONSOLE_PATH}/` && !ctx.path.startsWith(ASSETS)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const asset = assetsOf().get(ctx.path === `${CONSOLE_PATH}/` ? CONSOLE_PATH : ctx.path);
    if (asset === undefined) return next();
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
