// The HTTP server around the app: bound before the app exists, the input bounds Node enforces
// itself, and graceful shutdown.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { meta } from './http/envelope.js';
import { newRequestId } from './http/requestId.js';
import { DEFAULT_HTTP_BOUNDS, type HttpBounds } from './config.js';
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

export interface ListeningServer extends RunningServer {
  /** Hands requests to the app from now on (until then every request is a 503: the API is starting). */
  serve(app: Koa<any>): void;
}

/** Answers while the port is bound but the app is not ready yet (seeding the catalog, opening stores). */
function starting(_req: IncomingMessage, res: ServerResponse): void {
  const requestId = newRequestId();
  const body = JSON.stringify({
    success: false,
    error: { code: 'SERVICE_UNAVAILABLE', message: 'The API is starting; retry in a second.' },
    meta: meta(requestId),
  });
  res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1', 'X-Request-Id': requestId });
  res.end(body);
}

/**
 * Binds the port first, before anything else is created, so a start that cannot listen leaves
 * nothing behind; requests get a 503 until serve(app). Rejects with Node's listen error.
 */
export function listen(port: number, host: string, log: Logger, bounds: HttpBounds = DEFAULT_HTTP_BOUNDS): Promise<ListeningServer> {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      keepAliveTimeout: bounds.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default): check often enough
      // that a slow client is cut off close to its bound.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(bounds.headersTimeoutMs / 4))),
    },
    starting,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? rawError(431, 'Request Header Fields Too Large', 'REQUEST_TOO_LARGE', `The request line and headers exceed ${MAX_HEADER_BYTES} bytes.`)
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? rawError(408, 'Request Timeout', 'REQUEST_TIMEOUT', 'The request was not received in time.')
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
        serve(app) {
          server.off('request', starting);
          server.on('request', app.callback());
        },
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

/** Listens and serves the app at once (tests, and any caller with nothing to prepare in between). */
export async function startServer(app: Koa<any>, port: number, host: string, log: Logger, bounds?: HttpBounds): Promise<RunningServer> {
  const running = await listen(port, host, log, bounds);
  running.serve(app);
  return running;
}
