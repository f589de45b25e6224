// The HTTP server's bounds on slow clients: a slow-loris client (headers one byte a second) is cut
// off at HTTP_HEADERS_TIMEOUT_MS with a 408 in the envelope, while other clients are served. A HEAD
// whose headers pass 64 KB gets its 431 with the same status and headers as a GET, and no body.
import { expect } from 'chai';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { MAX_HEADER_BYTES } from '../../src/server.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { JSON_TYPE, REQUEST_ID } from '../support/assertions.js';
import { API_PREFIX as P } from '../support/catalog.js';
import { rawText, splitAnswers } from '../support/rawHttp.js';

/** A header line that takes the request over the parser's bound. */
const OVERSIZE = `X-Big: ${'a'.repeat(MAX_HEADER_BYTES + 4096)}\r\n`;

/** A request through Node's own HTTP client (strict: bytes after a HEAD's answer are an error). */
function nodeRequest(
  port: number,
  method: string,
  headers: Record<string, string>,
  agent: http.Agent | false,
): Promise<{ status: number; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: `${P}/grants`, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP server bounds', function () {
  this.timeout(30_000);
  let api: TestApi;

  before(async () => {
    // Keep-alive 4 s: Node's client does not reuse a connection announced with Keep-Alive: timeout=1.
    api = await startTestApi({
      HTTP_HEADERS_TIMEOUT_MS: '1500',
      HTTP_REQUEST_TIMEOUT_MS: '3000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '4000',
      HTTP_LINGER_MS: '1000',
    });
  });
  after(async () => api.stop());

  it('reads the four bounds from the environment, with documented defaults, and refuses nonsense', () => {
    expect(api.config.http).to.deep.equal({
      headersTimeoutMs: 1500,
      requestTimeoutMs: 3000,
      keepAliveTimeoutMs: 4000,
      lingerMs: 1000,
    });
    expect(loadConfig({}).http).to.deep.equal({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      lingerMs: 5_000,
    });
    expect(() => loadConfig({ HTTP_LINGER_MS: '-1' })).to.throw(/HTTP_LINGER_MS must be an integer/);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: 'soon' })).to.throw(
      /HTTP_HEADERS_TIMEOUT_MS must be an integer/,
    );
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).to.throw(
      /at least HTTP_HEADERS_TIMEOUT_MS/,
    );
  });

  it('cuts off a client sending its headers one byte a second, and serves others meanwhile', async () => {
    const { port } = new URL(api.url);
    const request =
      `GET ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${api.key}\r\nX-Slow: ` +
      `${'a'.repeat(60)}\r\n\r\n`;
    const socket: Socket = connect(Number(port), '127.0.0.1');
    let received = '';
    let sent = 0;
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    const started = Date.now();
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const drip = setInterval(() => {
      if (socket.destroyed || sent >= request.length) return;
      socket.write(request[sent]);
      sent += 1;
    }, 1000);
    try {
      // While the slow client holds its connection, a normal request is served at once.
      const other = await api.request(`${P}/grants?limit=1`);
      expect(other.status).to.equal(200);
      const elapsed = await closed;
      expect(sent, 'cut off long before the headers were complete').to.be.below(request.length / 4);
      expect(elapsed).to.be.within(1400, 6000);
      expect(received).to.match(/^HTTP\/1\.1 408 /);
      const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
      expect(body.success).to.equal(false);
      expect(body.error.code).to.equal('REQUEST_TIMEOUT');
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  it('after the 408, a client that neither reads nor closes its side is cut off once HTTP_LINGER_MS has passed', async () => {
    const { port } = new URL(api.url);
    const request = `GET ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}`;
    // allowHalfOpen: the server's FIN does not close this side; paused: the 408 is never read.
    const socket: Socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    socket.pause();
    socket.on('error', () => undefined);
    let sent = 0;
    const started = Date.now();
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // One byte every 200 ms, never the end of the headers: the drip goes on after the 408.
    const drip = setInterval(() => {
      if (socket.destroyed || sent >= request.length) return;
      socket.write(request[sent]);
      sent += 1;
    }, 200);
    try {
      const elapsed = await Promise.race([
        closed,
        new Promise<string>((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000)),
      ]);
      // 408 after 1.5 s (checked every 375 ms), then 1 s of linger; a write after that is refused.
      expect(elapsed).to.be.a('number').within(2400, 5000);
      expect(sent, 'the client was still sending after the 408').to.be.above(12);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  describe('headers over 64 KB asked with HEAD: the status and headers of the GET answer, never a body', function () {
    it("headers over 64 KB: a HEAD gets the 431 with the headers of the GET's envelope and nothing after them", async () => {
      const port = Number(new URL(api.url).port);
      const asGet = splitAnswers(await rawText(port, `GET ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\n${OVERSIZE}\r\n`));
      const asHead = splitAnswers(
        await rawText(port, `HEAD ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\n${OVERSIZE}\r\n`),
        [0],
      );
      expect(asGet.answers).to.have.length(1);
      expect(asGet.answers[0].status).to.equal(431);
      expect(JSON.parse(asGet.answers[0].body).error.code).to.equal('REQUEST_TOO_LARGE');
      expect(asHead.answers).to.have.length(1);
      const head = asHead.answers[0];
      expect(head.status).to.equal(431);
      expect(asHead.rest, 'bytes after the HEAD answer').to.equal('');
      expect(head.headers.get('content-type')).to.equal(JSON_TYPE);
      expect(head.headers.get('content-length'), 'the length of the GET body').to.equal(
        asGet.answers[0].headers.get('content-length'),
      );
      expect(head.headers.get('x-request-id')).to.match(REQUEST_ID);
      expect(head.headers.get('connection')).to.equal('close');
    });

    it("Node's own client reads it as a clean 431, on a fresh connection and on one kept alive after a GET", async () => {
      const port = Number(new URL(api.url).port);
      expect(await nodeRequest(port, 'HEAD', { 'X-Big': 'a'.repeat(MAX_HEADER_BYTES + 4096) }, false)).to.deep.include({
        status: 431,
        body: '',
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await nodeRequest(port, 'GET', { Authorization: `Bearer ${api.key}` }, agent);
        expect(first.status).to.equal(200);
        const second = await nodeRequest(
          port,
          'HEAD',
          { Authorization: `Bearer ${api.key}`, 'X-Big': 'a'.repeat(MAX_HEADER_BYTES + 4096) },
          agent,
        );
        expect(second).to.deep.equal({ status: 431, body: '', reused: true });
      } finally {
        agent.destroy();
      }
    });

    it('a HEAD pipelined behind a request in one packet gets no body either', async () => {
      const port = Number(new URL(api.url).port);
      const health = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
      // The HEAD begins in the packet of the first request; the rest follows once that one is answered.
      const text = await rawText(port, [
        `${health}HEAD ${P}/grants HTTP/1.1\r\n`,
        /"status":"ok"/,
        `Host: 127.0.0.1\r\n${OVERSIZE}\r\n`,
      ]);
      const { answers, rest } = splitAnswers(text, [1]);
      expect(answers.map((a) => a.status)).to.deep.equal([200, 431]);
      expect(rest, 'bytes after the HEAD answer').to.equal('');
    });
  });
});
