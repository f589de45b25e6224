// GET /search: the search page partners copy, small plain HTML, CSS and JavaScript (no library, no
// CDN, no build step) that searches this origin's API with a restricted key the visitor pastes:
// suggestions as one types, highlighted snippets, "did you mean", facets with counts, open grants
// first, a grant with its similar grants, paging. Its files live in src/http/pages/search/.
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';
import { serveStaticPage } from './staticPage.js';

export const SEARCH_PAGE_PATH = '/search';

export function serveSearchPage(): Middleware<AppState> {
  return serveStaticPage({
    path: SEARCH_PAGE_PATH,
    folder: 'src/http/pages/search',
    html: 'page.html',
    assets: ['search.js', 'search.css'],
  });
}
