// The HTTP server around the app: bound before the app exists, the input bounds Node enforces
// itself, and graceful shutdown.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import { ConnectionMethods } from './connectionMethods.js';
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

/**
 * An answer written on the socket for a request Node's parser refused, in the envelope. A HEAD
 * gets the same status and headers without the body; a request whose method is not known gets no
 * body either (Content-Length 0), since it may be a HEAD.
 */
function rawError(status: number, reason: string, code: string, message: string, answer: 'envelope' | 'head' | 'empty'): string {
  const requestId = newRequestId();
  const body = JSON.stringify({ success: false, error: { code, message }, meta: meta(requestId) });
  const headers = [`HTTP/1.1 ${status} ${reason}`];
  if (answer === 'empty') headers.push('Content-Length: 0');
  else headers.push('Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`);
  headers.push(`X-Request-Id: ${requestId}`, 'Connection: close', '', '');
  return headers.join('\r\n') + (answer === 'envelope' ? body : '');
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
  // A HEAD must get no body, even from the parser's refusals: follow each request's method as it arrives.
  const methods = new ConnectionMethods();
  server.on('connection', (socket: Socket) => methods.track(socket));
  server.on('request', (req: IncomingMessage) => methods.parsed(req));
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const form = ({ head: 'head', 'not-head': 'envelope', unknown: 'empty' } as const)[methods.headOrNot(socket)];
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? rawError(431, 'Request Header Fields Too Large', 'REQUEST_TOO_LARGE', `The request line and headers exceed ${MAX_HEADER_BYTES} bytes.`, form)
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? rawError(408, 'Request Timeout', 'REQUEST_TIMEOUT', 'The request was not received in time.', form)
          : rawError(400, 'Bad Request', 'BAD_REQUEST', 'The HTTP request is malformed.', form);
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
