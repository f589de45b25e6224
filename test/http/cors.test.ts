// Browser access (CORS) at the HTTP level: preflights from allowed origins answered before
// authentication, limits and usage; actual responses expose the request id and rate-limit
// headers; other origins, and every origin by default, get no CORS header at all.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { startTestApi, type TestApi } from '../support/api.js';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const GRANTS = '/external/v1/grants?limit=1';

const preflight = (api: TestApi, origin: string, path = GRANTS) =>
  api.request(path, {
    method: 'OPTIONS',
    key: null,
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization',
    },
  });

const corsHeaders = (headers: Headers): string[] =>
  [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS (CORS_ORIGINS)', function () {
  describe('with an allowed origin', function () {
    let api: TestApi;
    before(async function () {
      api = await startTestApi({ CORS_ORIGINS: `${ALLOWED}, http://localhost:5173` });
    });
    after(async function () {
      await api?.stop();
    });

    it('a preflight from an allowed origin answers 204 with the CORS headers, without a key', async function () {
      const res = await preflight(api, ALLOWED);
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(res.headers.get('access-control-allow-methods')).to.equal('GET,HEAD,POST,PATCH,DELETE');
      expect(res.headers.get('access-control-allow-headers')).to.equal(
        'Authorization,If-None-Match,Content-Type,Idempotency-Key',
      );
      expect(res.headers.get('access-control-max-age')).to.equal('600');
      expect(res.headers.get('vary')).to.match(/Origin/);
      expect(res.text).to.equal('');
    });

    it('a preflight is neither rate-limited nor counted', async function () {
      for (let i = 0; i < 5; i++) {
        const res = await preflight(api, ALLOWED, '/external/v1/subscription/usage');
        expect(res.status).to.equal(204);
        expect(res.headers.get('x-ratelimit-remaining')).to.equal(null);
      }
      const usage = await api.request('/external/v1/subscription/usage');
      expect(usage.body.data.statistics.totalCalls).to.equal(0);
      expect(usage.body.data.currentMonth.calls).to.equal(0);
    });

    it('an actual response to an allowed origin carries Allow-Origin and exposes the request id and rate-limit headers', async function () {
      const res = await api.request(GRANTS, { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',');
      expect(exposed).to.include.members([
        'X-Request-Id',
        'RateLimit-Policy',
        'RateLimit',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
        'ETag',
      ]);
      const second = await api.request(GRANTS, { headers: { Origin: 'http://localhost:5173' } });
      expect(second.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
    });

    it('an error answered to an allowed origin carries the CORS headers too (the page can read it)', async function () {
      const res = await api.request(GRANTS, { key: null, headers: { Origin: ALLOWED }, invalidRequest: true });
      expect(res.status).to.equal(401);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    });

    it('a preflight or a request from another origin gets no CORS header', async function () {
      const pre = await preflight(api, OTHER);
      expect(corsHeaders(pre.headers)).to.deep.equal([]);
      expect(pre.status).to.equal(401);
      const res = await api.request(GRANTS, { headers: { Origin: OTHER } });
      expect(res.status).to.equal(200);
      expect(corsHeaders(res.headers)).to.deep.equal([]);
    });

    it('an OPTIONS that is not a preflight keeps the 405 rule', async function () {
      const res = await api.request(GRANTS, { method: 'OPTIONS', headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
      const bare = await api.request(GRANTS, { method: 'OPTIONS' });
      expect(bare.status).to.equal(405);
    });

    it('paths outside the API get no CORS header', async function () {
      const res = await api.request('/healthz', { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(200);
      expect(corsHeaders(res.headers)).to.deep.equal([]);
    });
  });

  describe('by default (CORS_ORIGINS empty)', function () {
    let api: TestApi;
    before(async function () {
      api = await startTestApi();
    });
    after(async function () {
      await api?.stop();
    });

    it('no origin gets CORS headers: a preflight is refused like any unauthenticated request', async function () {
      const pre = await preflight(api, ALLOWED);
      expect(pre.status).to.equal(401);
      expect(corsHeaders(pre.headers)).to.deep.equal([]);
      const res = await api.request(GRANTS, { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(200);
      expect(corsHeaders(res.headers)).to.deep.equal([]);
    });
  });

  describe('CORS_ORIGINS=*', function () {
    let api: TestApi;
    before(async function () {
      api = await startTestApi({ CORS_ORIGINS: '*' });
    });
    after(async function () {
      await api?.stop();
    });

    it('any origin may call: Allow-Origin is *', async function () {
      const pre = await preflight(api, OTHER);
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('*');
      const res = await api.request(GRANTS, { headers: { Origin: OTHER } });
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    });
  });

  describe('configuration', function () {
    it('lists origins, trims them, and refuses what is not an origin', function () {
      expect(loadConfig({ CORS_ORIGINS: ' https://a.example , http://localhost:8080 ' }).corsOrigins).to.deep.equal([
        'https://a.example',
        'http://localhost:8080',
      ]);
      expect(loadConfig({}).corsOrigins).to.deep.equal([]);
      expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).to.throw(/CORS_ORIGINS/);
      expect(() => loadConfig({ CORS_ORIGINS: 'a.example' })).to.throw(/CORS_ORIGINS/);
      expect(() => loadConfig({ CORS_ORIGINS: 'ftp://a.example' })).to.throw(/CORS_ORIGINS/);
    });
  });
});
