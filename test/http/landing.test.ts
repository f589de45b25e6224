// GET / shows the way (links to /docs, /search, /console, the OpenAPI document and the guide), as JSON in
// the envelope or as HTML for a browser; GET /external/v1/docs redirects to /docs.
import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

describe('GET / and GET /external/v1/docs', function () {
  let api: TestApi;
  before(async function () {
    api = await startTestApi();
  });
  after(async function () {
    await api?.stop();
  });

  it('GET / without a key: 200 JSON in the envelope with the links, each of which answers', async function () {
    const res = await api.request('/', { key: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const body = res.body as any;
    expect(body.success).to.equal(true);
    expect(body.meta.requestId).to.match(/^req_/);
    expect(body.data.message).to.contain('/external/v1').and.to.contain('/docs');
    const hrefs = Object.fromEntries(
      Object.entries(body.data.links).map(([rel, link]) => [rel, (link as { href: string }).href]),
    );
    expect(hrefs).to.include({
      docs: '/docs',
      search: '/search',
      console: '/console',
      openapi: '/external/v1/openapi.json',
    });
    // Each page is listed once, under one name.
    expect(new Set(Object.values(hrefs)).size, JSON.stringify(hrefs)).to.equal(Object.values(hrefs).length);
    for (const href of ['/docs', '/search', '/console', '/external/v1/openapi.json']) {
      expect((await api.request(href, { key: null })).status, href).to.equal(200);
    }
    expect((await api.request('/', { method: 'HEAD', key: null })).status).to.equal(200);
  });

  it('GET / from a browser (Accept: text/html): an HTML page with the same links', async function () {
    const res = await api.request('/', { key: null, headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('vary')).to.match(/Accept/);
    for (const href of ['/docs', '/search', '/console', '/external/v1/openapi.json']) {
      expect(res.text.split(`href="${href}"`).length - 1, href).to.equal(1);
    }
  });

  it('other paths outside the prefix stay 404, and POST / is not the landing page', async function () {
    expect((await api.request('/nope', { key: null })).status).to.equal(404);
    expect((await api.request('/', { method: 'POST', key: null })).status).to.equal(404);
  });

  it('GET /external/v1/docs (and with a slash): 302 to /docs, without a key', async function () {
    for (const path of ['/external/v1/docs', '/external/v1/docs/']) {
      const res = await api.request(path, { key: null, redirect: 'manual' });
      expect(res.status, path).to.equal(302);
      expect(res.headers.get('location'), path).to.equal('/docs');
    }
    // A client that follows the redirect lands on the reference page.
    const followed = await fetch(`${api.url}/external/v1/docs`);
    expect(followed.status).to.equal(200);
    expect(followed.url).to.equal(`${api.url}/docs`);
    expect(await followed.text()).to.include('<div id="swagger-ui">');
  });
});
