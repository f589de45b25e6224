// GET /console: the partner console page is served with every file it references, from this
// process, under a content security policy of its own origin; it needs no key and is not counted.
// (What it shows is tested in Chromium: test/browser/pages.test.ts.)
import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

const referencesIn = (html: string): string[] => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);

describe('GET /console', function () {
  let api: TestApi;
  before(async function () {
    api = await startTestApi();
  });
  after(async function () {
    await api?.stop();
  });

  it('serves the page without a key, with a content security policy of its own origin and no inline script', async function () {
    const res = await api.request('/console', { key: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("connect-src 'self'");
    expect(csp).not.to.include('unsafe-inline');
    expect(res.text).to.include('id="key"');
    expect(res.text).not.to.match(/<script>/);
    expect((await api.request('/console/', { key: null })).text).to.equal(res.text);
  });

  it('every file the page references is served here, and nothing names another host', async function () {
    const page = await api.request('/console', { key: null });
    const references = referencesIn(page.text).filter((ref) => !ref.startsWith('data:'));
    expect(references).to.include.members(['/console/assets/console.js', '/console/assets/console.css', '/docs']);
    for (const ref of references) {
      expect(ref, `${ref} is not on this origin`).to.match(/^\/[^/]/);
      const res = await api.request(ref, { key: null });
      expect(res.status, ref).to.equal(200);
      expect(res.text.length, ref).to.be.above(0);
    }
    const script = (await api.request('/console/assets/console.js', { key: null })).text;
    // The only URL in the script is the SVG namespace (a name, never fetched).
    expect(script.replaceAll('http://www.w3.org/2000/svg', '')).not.to.match(/https?:\/\//);
    expect(script).to.include("const API = '/external/v1'");
  });

  it('HEAD answers the headers alone; an unknown file is a 404 in the envelope; the page is not counted in usage', async function () {
    const head = await api.request('/console', { key: null, method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.text).to.equal('');
    const missing = await api.request('/console/assets/nothing.js', { key: null });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('NOT_FOUND');
    await api.request('/console');
    await api.request('/console/assets/console.js');
    const usage = await api.request('/external/v1/subscription/usage');
    expect(usage.body.data.statistics.totalCalls).to.equal(0);
  });
});
