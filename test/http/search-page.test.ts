// GET /search: the search page partners copy is served with every file it references, from this
// process, under a content security policy of its own origin; it needs no key, holds none, and is
// not counted. (What it does is tested in Chromium: test/browser/search-page.test.ts.)
import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

const referencesIn = (html: string): string[] => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);

describe('GET /search', function () {
  let api: TestApi;
  before(async function () {
    api = await startTestApi();
  });
  after(async function () {
    await api?.stop();
  });

  it('serves the page without a key, with a content security policy of its own origin, no inline script and no key', async function () {
    const res = await api.request('/search', { key: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
    expect(csp).not.to.include('unsafe-inline');
    expect(res.text).to.include('id="key"').and.include('role="combobox"').and.include('role="listbox"');
    expect(res.text).not.to.match(/<script>/);
    expect(res.text).not.to.match(/gk_(live|test)_[A-Za-z0-9]/);
    expect(res.text).to.match(/<meta name="grants-api" content="\/external\/v1"\s*\/?>/);
    expect((await api.request('/search/', { key: null })).text).to.equal(res.text);
  });

  it('every file the page references is served here, and nothing names another host', async function () {
    const page = await api.request('/search', { key: null });
    const references = referencesIn(page.text).filter(
      (ref) => !ref.startsWith('data:') && !ref.startsWith('#') && !ref.startsWith('?'),
    );
    expect(references).to.include.members([
      '/search/assets/search.js',
      '/search/assets/search.css',
      '/docs',
      '/console',
    ]);
    for (const ref of references) {
      expect(ref, `${ref} is not on this origin`).to.match(/^\/[^/]/);
      const res = await api.request(ref, { key: null });
      expect(res.status, ref).to.equal(200);
      expect(res.text.length, ref).to.be.above(0);
    }
    const script = (await api.request('/search/assets/search.js', { key: null })).text;
    expect(script).not.to.match(/https?:\/\//);
    expect(script).to.include("|| '/external/v1'");
    expect((await api.request('/search/assets/search.css', { key: null })).headers.get('content-type')).to.equal(
      'text/css; charset=utf-8',
    );
  });

  it('HEAD answers the headers alone; an unknown file is a 404 in the envelope; the page is not counted in usage', async function () {
    const head = await api.request('/search', { key: null, method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.text).to.equal('');
    const missing = await api.request('/search/assets/nothing.js', { key: null });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('NOT_FOUND');
    await api.request('/search');
    await api.request('/search/assets/search.js');
    const usage = await api.request('/external/v1/subscription/usage');
    expect(usage.body.data.statistics.totalCalls).to.equal(0);
  });
});
