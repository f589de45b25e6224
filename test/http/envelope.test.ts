// The wire conventions every response follows: the envelope and its
// meta, the request id, methods, unknown paths, and input limits. Runs over a small crafted catalog.
import { expect } from 'chai';
import http from 'node:http';
import type { TestApi, TestResponse } from '../support/api.js';
import { expectError as expectErrorCore, JSON_TYPE, REQUEST_ID } from '../support/assertions.js';
import {
  API_PREFIX as P,
  PROGRAM_LABELS,
  recordMaker,
  startApiOnCatalog,
  startCatalogApi,
  stopCatalogApi,
  type GrantRecord as Rec,
} from '../support/catalog.js';
import { logLines } from '../support/logLines.js';
import { rawExchange } from '../support/rawHttp.js';

const rec = recordMaker(PROGRAM_LABELS);

const catalogApi = (records: Rec[]) => startCatalogApi(records, { prefix: 'grants-envelope-' });

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LEAKS = /SELECT |sqlite|SQLITE|\bat [\w.<>]+ \(|node_modules|\/work\/|\.ts:\d|\.js:\d|MATCH|bm25|stack/;

/** Checks meta (and the X-Request-Id header) of a parsed body; returns the requestId. */
function expectMeta(body: any, headers: Headers | Map<string, string>): string {
  expect(body.meta, 'meta').to.be.an('object');
  expect(Object.keys(body.meta)).to.have.members(['timestamp', 'requestId', 'version']);
  expect(body.meta.version).to.equal('v1');
  expect(body.meta.requestId).to.match(REQUEST_ID);
  expect(headers.get('x-request-id')).to.equal(body.meta.requestId);
  expect(body.meta.timestamp).to.match(ISO_MS);
  expect(Math.abs(Date.parse(body.meta.timestamp) - Date.now())).to.be.below(60_000);
  return body.meta.requestId;
}

function expectSuccess(res: TestResponse, paginated: boolean): void {
  expect(res.status, res.text).to.equal(200);
  expect(res.headers.get('content-type')).to.equal(JSON_TYPE);
  // A grant search answers its "did you mean" beside the page: null, or a respelled search and its total.
  const suggested = paginated && 'suggestion' in res.body;
  if (suggested && res.body.suggestion !== null)
    expect(Object.keys(res.body.suggestion)).to.have.members(['search', 'total']);
  expect(Object.keys(res.body)).to.have.members(
    paginated
      ? ['success', 'data', 'pagination', ...(suggested ? ['suggestion'] : []), 'meta']
      : ['success', 'data', 'meta'],
  );
  expect(res.body.success).to.equal(true);
  expectMeta(res.body, res.headers);
}

function expectError(res: TestResponse, status: number, code: string): void {
  expectErrorCore(res, status, code, { contentType: true, exactKeys: true });
  if (code === 'VALIDATION_ERROR') {
    expect(Object.keys(res.body.error)).to.have.members(['code', 'message', 'details']);
    expect(res.body.error.details).to.be.an('array').that.is.not.empty;
    for (const detail of res.body.error.details) {
      expect(Object.keys(detail)).to.have.members(['parameter', 'message']);
      expect(detail.parameter).to.be.a('string');
      expect(detail.message).to.be.a('string').and.not.equal('');
    }
  } else {
    expect(Object.keys(res.body.error)).to.have.members(['code', 'message']);
  }
  expect(res.text).not.to.match(LEAKS);
  expectMeta(res.body, res.headers);
}

describe('HTTP envelope and wire conventions', function () {
  let api: TestApi;

  before(async function () {
    api = await catalogApi([
      rec('env-1', { deadline: '2027-01-01T00:00:00.000Z' }),
      rec('env-2', { deadline: '2027-02-01T00:00:00.000Z', funderType: 'FOUNDATION' }),
      rec('env-3'),
    ]);
  });

  after(async function () {
    await stopCatalogApi(api);
  });

  describe('success responses', function () {
    it('GET /grants: success, data (array), pagination and meta', async function () {
      const res = await api.request(`${P}/grants`);
      expectSuccess(res, true);
      expect(res.body.data.map((g: Rec) => g.id)).to.deep.equal(['env-1', 'env-2', 'env-3']);
      expect(res.body.pagination).to.deep.equal({ page: 1, limit: 20, total: 3, totalPages: 1 });
      expect(Object.keys(res.body.pagination)).to.have.members(['page', 'limit', 'total', 'totalPages']);
    });

    it('GET /grants/filters: success, data (object) and meta, no pagination', async function () {
      const res = await api.request(`${P}/grants/filters`);
      expectSuccess(res, false);
      expect(res.body.data).to.be.an('object').and.not.an('array');
      expect(res.body).not.to.have.property('pagination');
    });

    it('GET /grants/:id: success, data (object) and meta, no pagination', async function () {
      const res = await api.request(`${P}/grants/env-2`);
      expectSuccess(res, false);
      expect(res.body.data.id).to.equal('env-2');
      expect(res.body).not.to.have.property('pagination');
    });

    it('a page past the end keeps the envelope with data []', async function () {
      const res = await api.request(`${P}/grants?page=9`);
      expectSuccess(res, true);
      expect(res.body.data).to.deep.equal([]);
      expect(res.body.pagination).to.deep.equal({ page: 9, limit: 20, total: 3, totalPages: 1 });
    });
  });

  describe('error responses', function () {
    it('a validation error: error with code, message, details; meta; no data, no pagination', async function () {
      const res = await api.request(`${P}/grants?limit=-1`, { invalidRequest: true });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.details).to.deep.equal([{ parameter: 'limit', message: 'must be an integer ≥ 0' }]);
    });

    it('an unknown grant id: 404 NOT_FOUND in the envelope', async function () {
      expectError(await api.request(`${P}/grants/nope`), 404, 'NOT_FOUND');
    });

    for (const unknown of [
      '/nope',
      '',
      '/',
      '/grants/a/b',
      '/grants/filters/x',
      '/grant',
      '/grantsx',
      '/v1/grants',
      '/grants/env-1/extra',
    ]) {
      it(`an unknown path under the prefix (${P}${unknown}): 404 NOT_FOUND`, async function () {
        expectError(await api.request(`${P}${unknown}`, { invalidRequest: true }), 404, 'NOT_FOUND');
      });
    }

    for (const outside of [
      '/grants',
      '/external',
      '/external/v2/grants',
      '/external/v1x/grants',
      '/favicon.ico',
      '/api/external/v1/grants',
    ]) {
      it(`a path outside ${P} (${outside}): 404 NOT_FOUND in the envelope, pointing at the prefix`, async function () {
        const res = await api.request(outside);
        expectError(res, 404, 'NOT_FOUND');
        expect(res.body.error.message).to.contain(P);
      });
    }

    it('an unknown path takes precedence over the method: POST on an unknown path is 404, not 405', async function () {
      const res = await api.request(`${P}/nope`, { method: 'POST', body: '{}', invalidRequest: true });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.headers.get('allow')).to.equal(null);
    });
  });

  describe('request id and meta', function () {
    it('every response has a distinct requestId, equal to its X-Request-Id header', async function () {
      const paths = [
        `${P}/grants`,
        `${P}/grants/filters`,
        `${P}/grants/env-1`,
        `${P}/grants/nope`,
        `${P}/grants?limit=x`,
        '/nowhere',
      ];
      const ids = new Set<string>();
      for (let round = 0; round < 4; round += 1) {
        for (const p of paths) {
          const res = await api.request(p, { invalidRequest: p.endsWith('limit=x') });
          ids.add(expectMeta(res.body, res.headers));
        }
      }
      expect(ids.size).to.equal(paths.length * 4);
    });

    it("the requestId appears in the server's log line for that request (without the key or the query)", async function () {
      const { destination, raw: lines } = logLines();
      const logged = await startApiOnCatalog(api.dataDir, { LOG_LEVEL: 'info' }, { logDestination: destination });
      try {
        const ok = await logged.request(`${P}/grants?search=secretword`);
        const missing = await logged.request(`${P}/grants/nope`);
        for (const [res, status] of [
          [ok, 200],
          [missing, 404],
        ] as const) {
          const id = res.headers.get('x-request-id');
          expect(id).to.match(REQUEST_ID);
          const mine = lines.filter((l) => l.includes(id as string));
          expect(mine, lines.join('')).to.have.length(1);
          const entry = JSON.parse(mine[0]);
          expect(entry.requestId).to.equal(id);
          expect(entry.status).to.equal(status);
          expect(entry.method).to.equal('GET');
          // The whole line, field by field and in this order; `ms` the time taken in whole microseconds.
          expect(Object.keys(entry)).to.deep.equal([
            'level',
            'time',
            'requestId',
            'method',
            'path',
            'route',
            'subscription',
            'key',
            'status',
            ...(status === 200 ? [] : ['code']),
            'ms',
            'msg',
          ]);
          expect(entry).to.include({
            level: 'info',
            route: status === 200 ? '/grants' : '/grants/:id',
            subscription: logged.subscriptionId,
            msg: 'request',
          });
          expect(entry.path).to.equal(status === 200 ? `${P}/grants` : `${P}/grants/nope`);
          expect(entry.key).to.match(/^key_/);
          if (status === 404) expect(entry.code).to.equal('NOT_FOUND');
          expect(entry.ms).to.be.a('number').and.to.be.at.least(0);
          expect(Math.abs(entry.ms * 1000 - Math.round(entry.ms * 1000))).to.be.below(1e-6);
        }
        const all = lines.join('');
        expect(all).not.to.contain(logged.key);
        expect(all).not.to.contain('secretword');
      } finally {
        await logged.stop();
      }
    });

    it('meta.timestamp is the time of the response, ISO 8601 UTC with milliseconds', async function () {
      const before = Date.now();
      const res = await api.request(`${P}/grants`);
      const after = Date.now();
      const at = Date.parse(res.body.meta.timestamp);
      expect(res.body.meta.timestamp).to.match(ISO_MS);
      expect(new Date(at).toISOString()).to.equal(res.body.meta.timestamp);
      expect(at).to.be.within(before - 5, after + 5);
    });
  });

  describe('methods', function () {
    const known = [`${P}/grants`, `${P}/grants/filters`, `${P}/grants/env-1`, `${P}/grants/unknown-id`];

    for (const p of known) {
      it(`HEAD ${p} answers like GET without a body`, async function () {
        const get = await api.request(p);
        const head = await api.request(p, { method: 'HEAD' });
        expect(head.status).to.equal(get.status);
        expect(head.text).to.equal('');
        expect(head.headers.get('content-type')).to.equal(JSON_TYPE);
        expect(head.headers.get('x-request-id')).to.match(REQUEST_ID);
        expect(head.headers.get('x-request-id')).not.to.equal(get.headers.get('x-request-id'));
      });

      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        it(`${method} ${p}: 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD`, async function () {
          const init: RequestInit = { method };
          if (method !== 'DELETE' && method !== 'OPTIONS') {
            init.body = JSON.stringify({ title: 'x' });
            init.headers = { 'content-type': 'application/json' };
          }
          const res = await api.request(p, { ...init, invalidRequest: true });
          expectError(res, 405, 'METHOD_NOT_ALLOWED');
          expect(res.headers.get('allow')).to.equal('GET, HEAD');
        });
      }
    }

    it('a 405 carries the envelope even with a query string that would be invalid for GET', async function () {
      const res = await api.request(`${P}/grants?limit=-1&bogus=1`, { method: 'DELETE', invalidRequest: true });
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
    });
  });

  describe('input limits', function () {
    it('a URL of exactly 8192 characters is served; 8193 is 414 URI_TOO_LONG', async function () {
      const prefix = `${P}/grants/`;
      const atLimit = prefix + 'a'.repeat(8192 - prefix.length);
      expect(atLimit.length).to.equal(8192);
      expectError(await api.request(atLimit), 404, 'NOT_FOUND');
      const over = `${atLimit}a`;
      expectError(await api.request(over, { invalidRequest: true }), 414, 'URI_TOO_LONG');
    });

    it('a long query string (20 KB and 60 KB) is 414, not a validation error', async function () {
      expectError(
        await api.request(`${P}/grants?search=${'a'.repeat(20_000)}`, { invalidRequest: true }),
        414,
        'URI_TOO_LONG',
      );
      expectError(
        await api.request(`${P}/grants?${'x=1&'.repeat(15_000)}`, { invalidRequest: true }),
        414,
        'URI_TOO_LONG',
      );
    });

    it('a request line beyond 64 KB gets 431 in the envelope from the HTTP parser, and the server keeps answering', async function () {
      const port = Number(new URL(api.url).port);
      const raw = await rawExchange(
        port,
        `GET ${P}/grants?search=${'a'.repeat(70 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      );
      expect(raw.status).to.equal(431);
      expect(raw.headers.get('content-type')).to.equal(JSON_TYPE);
      expect(raw.body).to.be.an('object');
      expect(Object.keys(raw.body)).to.have.members(['success', 'error', 'meta']);
      expect(raw.body.success).to.equal(false);
      expect(raw.body.error.code).to.be.a('string').and.not.equal('');
      expect(raw.body.error.message).to.be.a('string').and.not.equal('');
      expectMeta(raw.body, raw.headers);
      expectSuccess(await api.request(`${P}/grants`), true);
    });

    it('a HEAD whose headers pass 64 KB gets the 431 with no body; past the parser bound (256 KB) any method gets a 431 with no body', async function () {
      const port = Number(new URL(api.url).port);
      const padding = (bytes: number) => `X-Pad: ${'p'.repeat(bytes)}\r\n`;
      // Parsed, refused with its method known: the headers of the GET's answer, and no body.
      const head = await rawExchange(port, `HEAD ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\n${padding(70 * 1024)}\r\n`);
      expect(head.status).to.equal(431);
      expect(head.body).to.equal('');
      expect(head.headers.get('content-type')).to.equal(JSON_TYPE);
      expect(head.headers.get('x-request-id')).to.be.a('string');
      // Refused by the parser before its method is known: no body whatever the method.
      for (const method of ['HEAD', 'GET']) {
        const refused = await rawExchange(
          port,
          `${method} ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\n${padding(300 * 1024)}\r\n`,
        );
        expect(refused.status, method).to.equal(431);
        expect(refused.body, method).to.equal('');
        expect(refused.headers.get('content-length'), method).to.equal('0');
      }
      // Node's own client reads the HEAD's answer without complaint (no data after the response).
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'HEAD',
            path: `${P}/grants`,
            headers: { 'x-pad': 'p'.repeat(70 * 1024) },
            maxHeaderSize: 1024 * 1024,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).to.equal(431);
      expectSuccess(await api.request(`${P}/grants`), true);
    });

    it('garbage on the socket gets a 400 in the envelope, and the server keeps answering', async function () {
      const port = Number(new URL(api.url).port);
      const raw = await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n');
      expect(raw.status).to.equal(400);
      expect(raw.body.success).to.equal(false);
      expectMeta(raw.body, raw.headers);
      expectSuccess(await api.request(`${P}/grants`), true);
    });

    it('50 query parameters are accepted', async function () {
      const q = [
        ...Array(20).fill('funderType=FEDERAL_GRANT'),
        ...Array(20).fill('fundingType=GRANT'),
        ...Array(10).fill('eligibleProvinces=ONTARIO'),
      ].join('&');
      // Repeating the lists is the way to reach 50 parameters: a form the server tolerates.
      const res = await api.request(`${P}/grants?${q}`, { tolerantLists: true });
      expectSuccess(res, true);
      expect(res.body.pagination.total).to.equal(0);
    });

    it('51 query parameters are a 400 VALIDATION_ERROR', async function () {
      const q = [
        ...Array(20).fill('funderType=FEDERAL_GRANT'),
        ...Array(20).fill('fundingType=GRANT'),
        ...Array(11).fill('eligibleProvinces=ONTARIO'),
      ].join('&');
      const res = await api.request(`${P}/grants?${q}`, { invalidRequest: true });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).to.contain('50');
    });

    it('more than 50 query parameters on /grants/filters and /grants/:id are also a 400', async function () {
      const q = Array.from({ length: 60 }, (_, i) => `p${i}=1`).join('&');
      expectError(await api.request(`${P}/grants/filters?${q}`, { invalidRequest: true }), 400, 'VALIDATION_ERROR');
      expectError(await api.request(`${P}/grants/env-1?${q}`, { invalidRequest: true }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('headers every answer carries, and headers and bodies refused', function () {
    it("every answer carries X-Content-Type-Options: nosniff: successes, errors, pages, HEAD, and the HTTP parser's own answers", async function () {
      const answers = [
        await api.request(`${P}/grants`),
        await api.request(`${P}/grants/env-1`, { method: 'HEAD' }),
        await api.request(`${P}/grants/nope`),
        await api.request(`${P}/grants?limit=-1`, { invalidRequest: true }),
        await api.request(`${P}/grants`, { key: null, invalidRequest: true }),
        await api.request('/nowhere', { invalidRequest: true }),
        await api.request('/healthz', { key: null }),
        await api.request(`${P}/openapi.json`, { key: null }),
        await api.request('/docs', { key: null }),
      ];
      for (const res of answers)
        expect(res.headers.get('x-content-type-options'), `${res.status} ${res.text.slice(0, 80)}`).to.equal('nosniff');
      const port = Number(new URL(api.url).port);
      const garbage = await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n');
      expect(garbage.status).to.equal(400);
      expect(garbage.headers.get('x-content-type-options')).to.equal('nosniff');
      const tooLarge = await rawExchange(
        port,
        `GET ${P}/grants HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`,
      );
      expect(tooLarge.status).to.equal(431);
      expect(tooLarge.headers.get('x-content-type-options')).to.equal('nosniff');
    });

    it('two Authorization headers are a 400 BAD_REQUEST in the envelope, whichever comes first, valid or not', async function () {
      const port = Number(new URL(api.url).port);
      for (const [first, second] of [
        [`Bearer ${api.key}`, 'Bearer gk_live_someone_else'],
        ['Bearer gk_live_someone_else', `Bearer ${api.key}`],
        [`Bearer ${api.key}`, `Bearer ${api.key}`],
      ]) {
        const raw = await rawExchange(
          port,
          `GET ${P}/grants HTTP/1.1\r\nHost: x\r\nAuthorization: ${first}\r\nauthorization: ` +
            `${second}\r\nConnection: close\r\n\r\n`,
        );
        expect(raw.status, JSON.stringify(raw.body)).to.equal(400);
        expect(raw.body.success).to.equal(false);
        expect(raw.body.error).to.deep.equal({
          code: 'BAD_REQUEST',
          message: 'The request has more than one Authorization header; send one.',
        });
        expectMeta(raw.body, raw.headers);
        expect(raw.headers.get('content-type')).to.equal(JSON_TYPE);
        expect(raw.headers.get('x-content-type-options')).to.equal('nosniff');
      }
      expectSuccess(await api.request(`${P}/grants`), true);
    });

    it('a JSON body with invalid UTF-8 is a 400 VALIDATION_ERROR (not repaired); one nested past 32 levels too', async function () {
      const post = (path: string, body: Uint8Array | string) =>
        fetch(api.url + path, {
          method: 'POST',
          headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json' },
          body: typeof body === 'string' ? body : new Uint8Array(body),
        });
      const name = (bytes: number[]) =>
        Buffer.concat([
          Buffer.from('{"name":"a'),
          Buffer.from(bytes),
          Buffer.from('b","url":"https://93.184.215.14/hooks","query":{}}'),
        ]);
      // A lone continuation byte, an overlong "/", a UTF-16 surrogate, a truncated sequence, 0xFF.
      for (const bytes of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xff]]) {
        for (const path of [`${P}/alerts`, `${P}/keys`]) {
          const res = await post(path, name(bytes));
          const body = await res.json();
          expect(res.status, `${path} ${bytes}: ${JSON.stringify(body)}`).to.equal(400);
          expect(body.error.code).to.equal('VALIDATION_ERROR');
          expect(body.error.details).to.deep.equal([{ parameter: '(body)', message: 'is not valid UTF-8' }]);
          expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
        }
      }
      // Valid UTF-8 beyond ASCII is taken as it is.
      const accented = await post(`${P}/alerts`, name([...Buffer.from('é日')]));
      expect(accented.status).to.equal(201);
      expect((await accented.json()).data.name).to.equal('aé日b');
      const deep = await post(
        `${P}/alerts`,
        `{"name":"deep","url":"https://93.184.215.14/hooks","query":{"search":${'['.repeat(33)}${']'.repeat(33)}}}`,
      );
      const deepBody = await deep.json();
      expect(deep.status).to.equal(400);
      expect(deepBody.error.details).to.deep.equal([
        { parameter: '(body)', message: 'nests arrays and objects deeper than 32 levels' },
      ]);
    });
  });

  describe('hostile input never produces a 500', function () {
    const cases: [string, number][] = [
      [`${P}/grants?search=%zz`, 400],
      [`${P}/grants?search=%`, 400],
      [`${P}/grants?search=%E0%A4%A`, 400],
      [`${P}/grants?search=%ED%A0%80`, 400],
      [`${P}/grants?search=%00`, 200],
      [`${P}/grants?search=a%00b`, 200],
      [`${P}/grants?search=%F0%9F%92%A9%F0%9F%8E%89`, 200],
      [`${P}/grants?search=%E6%97%A5%E6%9C%AC%E8%AA%9E`, 200],
      [`${P}/grants?search=${encodeURIComponent('"); DROP TABLE grants; --')}`, 200],
      [`${P}/grants?search=${encodeURIComponent("' OR 1=1 --")}`, 200],
      [`${P}/grants?search[]=x`, 400],
      [`${P}/grants?search[]=a&search[]=b`, 400],
      [`${P}/grants?funderType[0]=FOUNDATION&funderType[1]=FEDERAL_GRANT`, 200],
      [`${P}/grants?funderType=${','.repeat(3000)}`, 200],
      [`${P}/grants?funderType=%00`, 400],
      [`${P}/grants?funderType[__proto__]=FOUNDATION`, 400],
      [`${P}/grants?%00=1`, 400],
      [`${P}/grants?=`, 400],
      [`${P}/grants?&&&=&=`, 400],
      [`${P}/grants?__proto__=1`, 400],
      [`${P}/grants?__proto__[]=1`, 400],
      [`${P}/grants?__proto__[polluted]=1`, 400],
      [`${P}/grants?constructor=1`, 400],
      [`${P}/grants?constructor[prototype][x]=1`, 400],
      [`${P}/grants?hasOwnProperty=1`, 400],
      [`${P}/grants?toString=1&valueOf=2`, 400],
      [`${P}/grants?%C3%BCn%C3%AFc%C3%B8d%C3%A9=1`, 400],
      [`${P}/grants?${'n'.repeat(3000)}=1`, 400],
      [`${P}/grants?page=%00`, 400],
      [`${P}/grants?page=99999999999999999999999999`, 400],
      [`${P}/grants?page=999999999999999`, 400],
      [`${P}/grants?page=1e3`, 400],
      [`${P}/grants?page=0x10`, 400],
      [`${P}/grants?limit=999999999999999`, 200],
      [`${P}/grants?limit=-0`, 400],
      [`${P}/grants?amountMin=1e308`, 400],
      [`${P}/grants?amountMin=Infinity`, 400],
      [`${P}/grants?amountMin=NaN`, 400],
      [`${P}/grants?amountMax=999999999999999`, 200],
      [`${P}/grants/filters?__proto__=1`, 400],
      [`${P}/grants/env-1?constructor=1`, 400],
      [`${P}/grants/%`, 404],
      [`${P}/grants/%zz`, 404],
      [`${P}/grants/%E0%A4%A`, 404],
      [`${P}/grants/%00`, 404],
      [`${P}/grants/__proto__`, 404],
      [`${P}/grants/constructor`, 404],
      [`${P}/grants/hasOwnProperty`, 404],
      [`${P}/%zz`, 404],
      [`${P}/grants/%F0%9F%92%A9`, 404],
    ];

    for (const [p, status] of cases) {
      it(`${p.length > 90 ? `${p.slice(0, 90)}…` : p} → ${status}`, async function () {
        // The 200s write lists in forms the server tolerates (indexed, empty items); the rest are refusals.
        const res = await api.request(p, status === 200 ? { tolerantLists: true } : { invalidRequest: true });
        if (status === 200) expectSuccess(res, true);
        else expectError(res, status, status === 400 ? 'VALIDATION_ERROR' : 'NOT_FOUND');
      });
    }

    it('a bracketed scalar (search[]=x, page[]=2) is a 400 naming it', async function () {
      for (const [q, name] of [
        ['search[]=program', 'search'],
        ['page[]=2', 'page'],
        ['limit[0]=5', 'limit'],
      ]) {
        const res = await api.request(`${P}/grants?${q}`, { invalidRequest: true });
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(
          res.body.error.details.map((d: { parameter: string }) => d.parameter),
          q,
        ).to.deep.equal([name]);
        expect(res.body.error.details[0].message, q).to.contain(`${name}=`);
      }
    });

    it('the prototype-named parameters are each named in details', async function () {
      const res = await api.request(`${P}/grants?__proto__=1&constructor=2&hasOwnProperty=3`, { invalidRequest: true });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.details.map((d: Rec) => d.parameter)).to.have.members([
        '__proto__',
        'constructor',
        'hasOwnProperty',
      ]);
    });

    it('the server still answers after all of the above, concurrently', async function () {
      const all = await Promise.all(
        cases.map(([p, status]) => api.request(p, status === 200 ? { tolerantLists: true } : { invalidRequest: true })),
      );
      expect(all.map((r) => r.status)).to.deep.equal(cases.map(([, s]) => s));
      const res = await api.request(`${P}/grants`);
      expectSuccess(res, true);
      expect(res.body.pagination.total).to.equal(3);
    });
  });
});
