// GET /docs: the reference page is served with every asset it references, from this process (no
// other host named), and points Swagger UI at the served OpenAPI document. (Rendering in a real
// browser is a later round's test.)
import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

/** The URLs an HTML page or a script references by src= / href= / url:. */
const referencesIn = (text: string): string[] =>
  [...text.matchAll(/(?:src|href)="([^"]+)"|\burl: "([^"]+)"/g)].map((m) => m[1] ?? m[2]);

describe('GET /docs', function () {
  let api: TestApi;
  before(async function () {
    api = await startTestApi();
  });
  after(async function () {
    await api?.stop();
  });

  it('serves the page without a key, with a content security policy of its own origin only', async function () {
    const res = await api.request('/docs', { key: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).to.match(/default-src 'self'/);
    expect(res.text).to.include('<div id="swagger-ui">');
    expect((await api.request('/docs/', { key: null })).text).to.equal(res.text);
  });

  it('every asset the page and its start script reference is served here, and nothing names another host', async function () {
    const page = await api.request('/docs', { key: null });
    const references = referencesIn(page.text).filter((ref) => !ref.startsWith('data:')); // the empty icon
    expect(references).to.have.length.of.at.least(3);
    const init = references.find((ref) => ref.endsWith('init.js'))!;
    const initText = (await api.request(init, { key: null })).text;
    const all = [...references, ...referencesIn(initText)];
    expect(all).to.include('/external/v1/openapi.json');
    for (const ref of all) {
      expect(ref, `${ref} is not on this origin`).to.match(/^\/[^/]/);
      const res = await api.request(ref, { key: null });
      expect(res.status, ref).to.equal(200);
      expect(res.text.length, ref).to.be.above(0);
      if (ref.endsWith('.js')) expect(res.headers.get('content-type'), ref).to.match(/^text\/javascript/);
      if (ref.endsWith('.css')) expect(res.headers.get('content-type'), ref).to.match(/^text\/css/);
    }
    expect(initText).to.include('validatorUrl: null');
  });

  it('an unknown asset is a 404 in the envelope, and the page is not counted in usage', async function () {
    const missing = await api.request('/docs/assets/nothing.js', { key: null });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('NOT_FOUND');
    await api.request('/docs');
    const usage = await api.request('/external/v1/subscription/usage');
    expect(usage.body.data.statistics.totalCalls).to.equal(0);
  });
});
