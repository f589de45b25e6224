// GET /console: the partner console, a small static page (plain DOM and SVG, no library, no CDN)
// that reads this origin's /subscription/usage and /subscription/limits with a pasted key and
// draws the tier, status, rate, features, the monthly allowance as a gauge and the calls per day.
// Its files live in src/http/pages/console/.
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';
import { serveStaticPage } from './staticPage.js';

export const CONSOLE_PATH = '/console';

export function serveConsole(): Middleware<AppState> {
  return serveStaticPage({
    path: CONSOLE_PATH,
    folder: 'src/http/pages/console',
    html: 'page.html',
    assets: ['console.js', 'console.css'],
  });
}
