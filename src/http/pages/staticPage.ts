// A small static page of our own (an HTML file and its assets, plain files in a folder of the
// source tree, no build step): served at its path, with its assets under `<path>/assets/`, under a
// content security policy of this origin alone. The files are read once, on the first request; no
// key is needed for them, and they are neither billed nor counted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import { repoPath } from '../../repoRoot.js';
import type { AppState } from '../state.js';

interface StaticPage {
  /** Where the page is served, e.g. `/console` (and with a trailing slash). */
  path: string;
  /** The folder of its files, relative to the repository root (read from source or from dist/). */
  folder: string;
  /** The HTML file of the page, in the folder. */
  html: string;
  /** Its scripts and style sheets, in the folder, served under `<path>/assets/<name>`. */
  assets: readonly string[];
}

interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Only this origin: the page's own files and the API; no inline script, no frames. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

function readAssets(page: StaticPage): Map<string, Asset> {
  const file = (name: string) => readFileSync(path.join(repoPath(page.folder), name));
  const assets = new Map<string, Asset>([[page.path, { type: 'text/html; charset=utf-8', body: file(page.html) }]]);
  for (const name of page.assets) {
    const type = TYPES[path.extname(name)];
    if (type === undefined) throw new Error(`${page.folder}/${name}: no content type for this kind of file`);
    assets.set(`${page.path}/assets/${name}`, { type, body: file(name) });
  }
  return assets;
}

export function serveStaticPage(page: StaticPage): Middleware<AppState> {
  const assetPrefix = `${page.path}/assets/`;
  let assets: Map<string, Asset> | undefined;
  return function serveStaticPage(ctx, next) {
    if (ctx.path !== page.path && ctx.path !== `${page.path}/` && !ctx.path.startsWith(assetPrefix)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    assets ??= readAssets(page);
    const asset = assets.get(ctx.path === `${page.path}/` ? page.path : ctx.path);
    if (asset === undefined) return next();
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
