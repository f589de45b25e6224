// The HTTP server around the app: input bounds Node enforces itself, and graceful shutdown.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { meta } from './http/envelope.js';
import { newRequestId } from './http/requestId.js';
import type { Logger } from './log.js';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to the timeout), then resolves. */
  stop(timeoutMs: number): Promise<void>;
}

/** Request line plus headers beyond this get a 431 in the envelope from Node's parser. */
export const MAX_HEADER_BYTES = 64 * 1024;

function rawError(status: number, reason: string, code: string, message: string): string {
  const requestId = newRequestId();
  const body = JSON.stringify({ success: false, error: { code, message }, meta: meta(requestId) });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

export function startServer(app: Koa<any>, port: number, host: string, log: Logger): Promise<RunningServer> {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: 30_000, headersTimeout: 20_000 }, app.callback());
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? rawError(431, 'Request Header Fields Too Large', 'REQUEST_TOO_LARGE', `The request line and headers exceed ${MAX_HEADER_BYTES} bytes.`)
        : rawError(400, 'Bad Request', 'BAD_REQUEST', 'The HTTP request is malformed.');
    socket.end(answer);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        stop: (timeoutMs) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              log.warn('shutdown timeout reached; closing remaining connections');
              server.closeAllConnections();
            }, timeoutMs);
            timer.unref();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
