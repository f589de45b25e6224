// A graceful stop never cuts a connection while a request it carries is under way: the answers in
// flight when the server stops, and any request that still arrives on a kept-alive connection,
// are answered with `Connection: close`, so no client sends another request on that connection.
import { expect } from 'chai';
import http from 'node:http';
import { connect } from 'node:net';
import Koa from 'koa';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** An answer far larger than the socket buffers: end() is called long before its last byte leaves. */
const BIG = 'x'.repeat(32 * 1024 * 1024);

function get(
  port: number,
  path: string,
  agent: http.Agent,
): Promise<{ status: number; connection: string | undefined; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, connection: res.headers.connection, body, reused: req.reusedSocket }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('HTTP server stop', function () {
  this.timeout(20_000);
  let running: RunningServer;
  let port: number;

  beforeEach(async () => {
    const app = new Koa();
    app.use(async (ctx) => {
      if (ctx.path === '/slow') await sleep(300);
      ctx.body = ctx.path === '/big' ? BIG : { path: ctx.path };
    });
    running = await startServer(app, 0, '127.0.0.1', createLogger('silent'));
    port = Number(new URL(running.url).port);
  });
  afterEach(async () => running.stop(0).catch(() => undefined));

  it('keeps connections alive while it runs, and answers the requests in flight when it stops with Connection: close', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(port, '/quick', agent);
      expect(first.connection).to.equal('keep-alive');
      const inFlight = get(port, '/slow', agent);
      await sleep(100);
      const started = Date.now();
      const stopped = running.stop(10_000);
      const answer = await inFlight;
      expect(answer.status).to.equal(200);
      expect(answer.body).to.equal('{"path":"/slow"}');
      expect(answer.reused, 'the in-flight request came on the kept-alive connection').to.equal(true);
      expect(answer.connection).to.equal('close');
      await stopped;
      // Closed when its last answer was sent, not at the 10 s timeout.
      expect(Date.now() - started).to.be.below(5_000);
    } finally {
      agent.destroy();
    }
  });

  it('an answer whose end() was called but whose bytes are still being written is not cut by the stop (its call counted, it must arrive)', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.pause(); // not read yet: the answer waits in the buffers, most of it in the server's
    socket.on('error', () => undefined);
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await sleep(300); // the handler has answered: end() is called, the bytes are queued
    const started = Date.now();
    const stopped = running.stop(10_000);
    await sleep(300);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    await closed;
    await stopped;
    const received = Buffer.concat(chunks);
    const headEnd = received.indexOf('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(received.subarray(0, headEnd).toString())?.[1]);
    expect(length).to.equal(BIG.length);
    expect(received.length - headEnd - 4, 'body bytes received').to.equal(BIG.length);
    // Its headers were out before the stop (keep-alive): the connection is closed once the answer is written, not at
    // the timeout.
    expect(Date.now() - started).to.be.below(5_000);
  });
});
