// The HTTP server's bounds on slow clients: a slow-loris client (headers one byte a second) is cut
// off at HTTP_HEADERS_TIMEOUT_MS with a 408 in the envelope, while other clients are served.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { API_PREFIX as P } from '../support/catalog.js';

describe('HTTP server bounds', function () {
  this.timeout(30_000);
  let api: TestApi;

  before(async () => {
    api = await startTestApi({ HTTP_HEADERS_TIMEOUT_MS: '1500', HTTP_REQUEST_TIMEOUT_MS: '3000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' });
  });
  after(async () => api.stop());

  it('reads the three bounds from the environment, with documented defaults, and refuses nonsense', () => {
    expect(api.config.http).to.deep.equal({ headersTimeoutMs: 1500, requestTimeoutMs: 3000, keepAliveTimeoutMs: 1000 });
    expect(loadConfig({}).http).to.deep.equal({ headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: 'soon' })).to.throw(/HTTP_HEADERS_TIMEOUT_MS must be an integer/);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).to.throw(/at least HTTP_HEADERS_TIMEOUT_MS/);
  });

  it('cuts off a client sending its headers one byte a second, and serves others meanwhile', async () => {
    const { port } = new URL(api.url);
    const request = `GET ${P}/grants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${api.key}\r\nX-Slow: ${'a'.repeat(60)}\r\n\r\n`;
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
});
