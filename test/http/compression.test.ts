// Response compression: answers of 1 KB or more are gzip- or brotli-encoded as
// Accept-Encoding allows, streamed bodies included; smaller ones, HEAD answers and 304s go as they
// are; every answer varies on Accept-Encoding; the decoded body is the same JSON. Raw node:http
// requests, since fetch() would decode behind the test's back.
import { expect } from 'chai';
import http from 'node:http';
import { Readable } from 'node:stream';
import { apiLayers } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { COMPRESSION_THRESHOLD } from '../../src/http/middleware/compression.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { API_PREFIX as P } from '../support/catalog.js';
import { checkOutgoing, type CheckOptions } from '../support/checkedFetch.js';
import { checkResponse } from '../support/openapiCheck.js';
import { decodeBody } from '../support/rawHttp.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as sent. */
  raw: Buffer;
  /** The bytes decoded per Content-Encoding. */
  decoded: Buffer;
}

async function rawRequest(
  api: TestApi,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  check: CheckOptions = {},
): Promise<RawAnswer> {
  const sent = { Authorization: `Bearer ${api.key}`, ...headers };
  // The request checked against the OpenAPI document as the test client checks its own.
  await checkOutgoing(new Request(`${api.url}${path}`, { method, headers: sent }), check);
  return new Promise((resolve, reject) => {
    const request = http.request(`${api.url}${path}`, { method, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const decoded = decodeBody(raw, encoding);
        resolve({ status: res.statusCode!, headers: res.headers, raw, decoded });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** The envelope without meta (which changes on every call). */
const content = (text: string) => {
  const { meta: _meta, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
};

const varies = (answer: RawAnswer): string[] =>
  String(answer.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase());

/** Runs the OpenAPI response check of the test client on a decoded answer. */
function checkDocumented(method: string, path: string, answer: RawAnswer): void {
  const text = answer.decoded.toString('utf8');
  const headers = new Headers(
    Object.entries(answer.headers).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
  );
  checkResponse(method, path, { status: answer.status, headers, text, body: text === '' ? null : JSON.parse(text) });
}

const STREAM_PATH = '/compression-test/stream';

describe('compression: gzip and brotli by Accept-Encoding, above 1 KB', function () {
  let api: TestApi;

  before(async function () {
    // The API's own layers, plus (before them) a route that answers a stream of unknown length,
    // as the streaming endpoints do.
    api = await startTestApi(
      {},
      {
        layers: (deps) => {
          const layers = apiLayers(deps);
          const at = layers.findIndex((layer) => layer.name === 'requestId');
          layers.splice(at, 0, {
            name: 'streamForTest',
            middleware: async (ctx, next) => {
              if (ctx.path !== STREAM_PATH) return next();
              ctx.type = 'application/x-ndjson';
              ctx.body = Readable.from(
                (function* () {
                  for (let i = 0; i < 2000; i++)
                    yield `${JSON.stringify({ line: i, text: 'streamed line of an export' })}\n`;
                })(),
              );
            },
          });
          return layers;
        },
      },
    );
  });
  after(async function () {
    await api?.stop();
  });

  const PAGE = `${P}/grants?limit=100`;

  it('a limit=100 page: gzip when asked, and it decodes to the same JSON as the plain answer', async function () {
    const plain = await rawRequest(api, PAGE, { 'Accept-Encoding': 'identity' });
    const gzip = await rawRequest(api, PAGE, { 'Accept-Encoding': 'gzip' });
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(gzip.status).to.equal(200);
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(gzip.raw.length).to.be.below(plain.raw.length / 3);
    expect(content(gzip.decoded.toString('utf8'))).to.deep.equal(content(plain.raw.toString('utf8')));
    expect(JSON.parse(gzip.decoded.toString('utf8')).data).to.have.length(100);
    expect(varies(gzip)).to.include('accept-encoding');
    expect(varies(plain)).to.include('accept-encoding');
    checkDocumented('GET', PAGE, gzip);
  });

  it('brotli when asked for, and preferred when both are accepted; q-values are honoured', async function () {
    const plain = await rawRequest(api, PAGE, {});
    for (const [accept, expected] of [
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
      // Every coding refused, identity included: sent as it is (found by the fuzz test: was a 500).
      ['*;q=0', undefined],
      ['identity;q=0, deflate', undefined],
      ['identity;q, deflate', undefined],
      ['', undefined],
    ] as const) {
      const answer = await rawRequest(api, PAGE, { 'Accept-Encoding': accept });
      expect(answer.headers['content-encoding'], accept).to.equal(expected);
      expect(content(answer.decoded.toString('utf8')), accept).to.deep.equal(content(plain.raw.toString('utf8')));
    }
    expect(plain.headers['content-encoding'], 'no Accept-Encoding').to.equal(undefined);
    expect(varies(plain), 'no Accept-Encoding').to.include('accept-encoding');
  });

  it(`answers under ${COMPRESSION_THRESHOLD} bytes go uncompressed, errors included; a larger error is compressed`, async function () {
    const filters = await rawRequest(api, `${P}/grants/filters`, { 'Accept-Encoding': 'gzip, br' });
    const missing = await rawRequest(api, `${P}/grants/nope`, { 'Accept-Encoding': 'gzip, br' });
    for (const answer of [filters, missing]) {
      expect(answer.raw.length).to.be.below(COMPRESSION_THRESHOLD);
      expect(answer.headers['content-encoding']).to.equal(undefined);
      expect(Number(answer.headers['content-length'])).to.equal(answer.raw.length);
      expect(varies(answer)).to.include('accept-encoding');
    }
    expect(missing.status).to.equal(404);
    // A 400 listing many bad parameters is over 1 KB: compressed like any answer.
    const bad = Array.from({ length: 40 }, (_, i) => `bad${i}=x`).join('&');
    const invalid = await rawRequest(api, `${P}/grants?${bad}`, { 'Accept-Encoding': 'gzip' }, 'GET', {
      invalidRequest: true,
    });
    expect(invalid.status).to.equal(400);
    expect(invalid.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(invalid.decoded.toString('utf8')).error.details).to.have.length(40);
  });

  it('a HEAD answer and a 304 carry no Content-Encoding and no body', async function () {
    const head = await rawRequest(api, PAGE, { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers['content-encoding']).to.equal(undefined);
    expect(head.raw.length).to.equal(0);
    const tag = String(head.headers.etag);
    const notModified = await rawRequest(api, PAGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': tag });
    expect(notModified.status).to.equal(304);
    expect(notModified.headers['content-encoding']).to.equal(undefined);
    expect(notModified.raw.length).to.equal(0);
  });

  it('the ETag does not depend on the encoding: a gzip answer tag revalidates a brotli one', async function () {
    const gzip = await rawRequest(api, PAGE, { 'Accept-Encoding': 'gzip' });
    const br = await rawRequest(api, PAGE, { 'Accept-Encoding': 'br' });
    expect(gzip.headers.etag).to.be.a('string').and.equal(br.headers.etag);
    const again = await rawRequest(api, PAGE, { 'Accept-Encoding': 'br', 'If-None-Match': String(gzip.headers.etag) });
    expect(again.status).to.equal(304);
  });

  it('a streamed body of unknown length is compressed as it streams', async function () {
    const plain = await rawRequest(api, STREAM_PATH, {});
    const gzip = await rawRequest(api, STREAM_PATH, { 'Accept-Encoding': 'gzip' });
    const br = await rawRequest(api, STREAM_PATH, { 'Accept-Encoding': 'br' });
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(br.headers['content-encoding']).to.equal('br');
    expect(gzip.headers['transfer-encoding']).to.equal('chunked');
    expect(gzip.decoded.equals(plain.raw)).to.equal(true);
    expect(br.decoded.equals(plain.raw)).to.equal(true);
    expect(plain.raw.toString('utf8').trimEnd().split('\n')).to.have.length(2000);
    expect(gzip.raw.length).to.be.below(plain.raw.length / 5);
  });

  describe('configuration', function () {
    it('COMPRESSION=false sends every answer as it is', async function () {
      const off = await startTestApi({ COMPRESSION: 'false' });
      try {
        const answer = await rawRequest(off, PAGE, { 'Accept-Encoding': 'gzip, br' });
        expect(answer.status).to.equal(200);
        expect(answer.headers['content-encoding']).to.equal(undefined);
        expect(JSON.parse(answer.raw.toString('utf8')).data).to.have.length(100);
      } finally {
        await off.stop();
      }
    });

    it('the levels are read from COMPRESSION_GZIP_LEVEL and COMPRESSION_BROTLI_QUALITY, and bounded', function () {
      expect(loadConfig({}).compression).to.deep.equal({ gzipLevel: 4, brotliQuality: 4 });
      expect(loadConfig({ COMPRESSION_GZIP_LEVEL: '9', COMPRESSION_BROTLI_QUALITY: '0' }).compression).to.deep.equal({
        gzipLevel: 9,
        brotliQuality: 0,
      });
      expect(loadConfig({ COMPRESSION: 'off' }).compression).to.equal(null);
      expect(() => loadConfig({ COMPRESSION_GZIP_LEVEL: '10' })).to.throw(
        ConfigError,
        /COMPRESSION_GZIP_LEVEL must be an integer from 1 to 9/,
      );
      expect(() => loadConfig({ COMPRESSION_BROTLI_QUALITY: '12' })).to.throw(
        ConfigError,
        /COMPRESSION_BROTLI_QUALITY must be an integer from 0 to 11/,
      );
    });
  });
});
