// The HTTP server around the app: bound before the app exists, the input bounds Node enforces
// itself, what every answer carries, and graceful shutdown.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { errorBody } from './http/envelope.js';
import { ERROR_STATUS, type ErrorCode } from './http/errors.js';
import { newRequestId } from './http/middleware/requestId.js';
import { DEFAULT_HTTP_BOUNDS, type HttpBounds } from './config.js';
import type { Logger } from './log.js';
import { within } from './timeLimit.js';

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting, answers every request from then on with `Connection: close`, lets in-flight
   * requests finish, and resolves once every request the app took has run to its end, its client
   * gone or not (its usage row written). Past the timeout the connections still open are cut; the
   * requests still running get as long again, then it resolves without them.
   */
  stop(timeoutMs: number): Promise<void>;
}

/** On every answer, the app's and the server's own: no browser guesses another type than the one sent. */
const EVERY_ANSWER = { 'X-Content-Type-Options': 'nosniff' } as const;

/** Request line plus headers beyond this get a 431 in the envelope (none for a HEAD). */
export const MAX_HEADER_BYTES = 64 * 1024;
/**
 * Node's parser refuses headers past this, before the request's method is known: such a request
 * gets a 431 with no body, since it may be a HEAD. Between MAX_HEADER_BYTES and this, the request
 * is parsed and refused with its method known (refuseLargeHeaders).
 */
const PARSER_HEADER_BYTES = 4 * MAX_HEADER_BYTES;

const envelopeError = (code: ErrorCode, message: string, requestId: string): string =>
  JSON.stringify(errorBody(requestId, { code, message }));

/**
 * An answer written on the socket for a request Node's parser refused. Its method is unknown, so a
 * 431 (which may answer a HEAD) has no body; a malformed request (400) or one too slow (408) gets
 * the envelope.
 */
function rawError(reason: string, code: ErrorCode, message: string, withBody: boolean): string {
  const status = ERROR_STATUS[code];
  const requestId = newRequestId();
  const body = withBody ? envelopeError(code, message, requestId) : '';
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    ...Object.entries(EVERY_ANSWER).map(([name, value]) => `${name}: ${value}`),
  ];
  if (withBody) head.push('Content-Type: application/json; charset=utf-8');
  head.push(`Content-Length: ${Buffer.byteLength(body)}`, `X-Request-Id: ${requestId}`, 'Connection: close', '', '');
  return head.join('\r\n') + body;
}

/**
 * After an answer written before closing (socket.end: a half-close), the client has `lingerMs` to
 * close its side; then the socket is destroyed. What it still sends meanwhile is read and dropped.
 * Without this a client that ignores the answer (never reads, never closes, drips a byte now and
 * then) would hold the connection for good, the server's side waiting in FIN-WAIT-2.
 */
function closeAfterLinger(socket: Duplex, lingerMs: number): void {
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}

/** The bytes of a parsed request's request line and headers, as they came (give or take the separators). */
function headerBytes(req: IncomingMessage): number {
  let bytes = req.method!.length + req.url!.length + 12;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i++) bytes += raw[i].length + 2;
  return bytes;
}

/**
 * A 431 in the envelope for a parsed request whose headers are past MAX_HEADER_BYTES (Node leaves out the body of a
 * HEAD).
 */
function refuseLargeHeaders(res: ServerResponse): void {
  const requestId = newRequestId();
  const body = envelopeError(
    'REQUEST_TOO_LARGE',
    `The request line and headers exceed ${MAX_HEADER_BYTES} bytes.`,
    requestId,
  );
  res.shouldKeepAlive = false;
  res.writeHead(ERROR_STATUS.REQUEST_TOO_LARGE, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  res.end(body);
}

/**
 * Whether the request carries more than one Authorization header: Node would keep the first and
 * drop the others, so the API could not tell which key the client meant.
 */
const repeatsAuthorization = (req: IncomingMessage): boolean => (req.headersDistinct.authorization?.length ?? 0) > 1;

/** A 400 in the envelope for a parsed request with several Authorization headers (no body for a HEAD). */
function refuseRepeatedAuthorization(res: ServerResponse): void {
  const requestId = newRequestId();
  const body = envelopeError('BAD_REQUEST', 'The request has more than one Authorization header; send one.', requestId);
  res.writeHead(ERROR_STATUS.BAD_REQUEST, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
  });
  res.end(body);
}

/** Whether `settled` settles within `ms`. */
const settlesWithin = (settled: Promise<unknown>, ms: number): Promise<boolean> =>
  within(
    settled.then(() => true),
    ms,
    () => false,
  );

export interface ListeningServer extends RunningServer {
  /** Hands requests to the app from now on (until then every request is a 503: the API is starting). */
  serve(app: Pick<Koa, 'callback'>): void;
}

/** Answers while the port is bound but the app is not ready yet (seeding the catalog, opening stores). */
function starting(_req: IncomingMessage, res: ServerResponse): void {
  const requestId = newRequestId();
  const body = envelopeError('SERVICE_UNAVAILABLE', 'The API is starting; retry in a second.', requestId);
  res.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Retry-After': '1',
    'X-Request-Id': requestId,
  });
  res.end(body);
}

/**
 * Binds the port first, before anything else is created, so a start that cannot listen leaves
 * nothing behind; requests get a 503 until serve(app). Rejects with Node's listen error.
 */
export function listen(
  port: number,
  host: string,
  log: Logger,
  bounds: HttpBounds = DEFAULT_HTTP_BOUNDS,
): Promise<ListeningServer> {
  const server = createServer(
    {
      maxHeaderSize: PARSER_HEADER_BYTES,
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      keepAliveTimeout: bounds.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default): check often enough
      // that a slow client is cut off close to its bound.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(bounds.headersTimeoutMs / 4))),
    },
    starting,
  );
  let stopping = false;
  /** The responses under way, whose connections are told to close when the server stops. */
  const answering = new Set<ServerResponse>();
  /**
   * Per connection, its responses not yet closed: a response is under way from its request until
   * every byte of it has been handed to the system ('close', after 'finish'), not merely until
   * end() was called. Node's closeIdleConnections takes a connection for idle as soon as its
   * response has called end(), and would cut an answer still being written, after its call counted.
   */
  const underWay = new Map<Duplex, number>();
  const connections = new Set<Duplex>();
  server.on('connection', (socket: Duplex) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  /** Once stopping, a connection with no response under way is closed (none more will come on it). */
  const closeIfIdle = (socket: Duplex) => {
    if (!underWay.has(socket) && !socket.destroyed) socket.destroy();
  };
  // server.close() calls this (Node ≥ 19): ours closes only the connections with no response under way.
  server.closeIdleConnections = () => connections.forEach(closeIfIdle);
  /** The answer closes its connection (unless its headers are out already). */
  const closingAnswer = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  const closeWhenStopping = (res: ServerResponse) => {
    const socket = res.socket;
    if (socket !== null) {
      underWay.set(socket, (underWay.get(socket) ?? 0) + 1);
      res.once('close', () => {
        const left = underWay.get(socket)! - 1;
        if (left > 0) return underWay.set(socket, left);
        underWay.delete(socket);
        // An answer that had sent its headers before the stop kept its connection alive: close it now.
        if (stopping) closeIfIdle(socket);
      });
    }
    if (stopping) return closingAnswer(res);
    answering.add(res);
    res.once('close', () => answering.delete(res));
  };
  // First of the request listeners, while the API starts as once it serves.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(EVERY_ANSWER)) res.setHeader(name, value);
    closeWhenStopping(res);
  });
  /** The app's runs not ended yet (a run goes on after its client left: it still writes its usage row). */
  const running = new Set<Promise<void>>();
  /** Told once `running` is empty. */
  let endWaiters: (() => void)[] = [];
  const track = (run: Promise<void>) => {
    running.add(run);
    void run.finally(() => {
      running.delete(run);
      if (running.size > 0) return;
      const waiters = endWaiters;
      endWaiters = [];
      for (const resolve of waiters) resolve();
    });
  };
  const runsEnded = () =>
    running.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => endWaiters.push(resolve));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? rawError(
            'Request Header Fields Too Large',
            'REQUEST_TOO_LARGE',
            `The request line and headers exceed ${MAX_HEADER_BYTES} bytes.`,
            false,
          )
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? rawError('Request Timeout', 'REQUEST_TIMEOUT', 'The request was not received in time.', true)
          : rawError('Bad Request', 'BAD_REQUEST', 'The HTTP request is malformed.', true);
    socket.end(answer);
    closeAfterLinger(socket, bounds.lingerMs);
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
          const handle = app.callback();
          server.off('request', starting);
          server.on('request', (req: IncomingMessage, res: ServerResponse) => {
            if (headerBytes(req) > MAX_HEADER_BYTES) return refuseLargeHeaders(res);
            if (repeatsAuthorization(req)) return refuseRepeatedAuthorization(res);
            // Koa's handler never rejects (the app's errors are answers); a run ends once answered.
            track(handle(req, res).catch(() => undefined));
          });
        },
        stop: async (timeoutMs) => {
          // Every answer from now on closes its connection, so that no client sends another
          // request on it: a connection is never cut while a request it carries is under way.
          stopping = true;
          answering.forEach(closingAnswer);
          // Closes the connections with no response under way (closeIdleConnections above); each
          // other one once its answer is out. Then the runs whose clients left before their
          // answers: they go on to the end and write their usage rows.
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          const drained = closed.then(runsEnded);
          if (await settlesWithin(drained, timeoutMs)) return;
          log.warn('shutdown timeout reached; closing remaining connections');
          server.closeAllConnections();
          if (await settlesWithin(drained, timeoutMs)) return;
          log.warn('requests still running a second shutdown timeout later; stopping without them', {
            requests: running.size,
          });
        },
      });
    });
  });
}

/** Listens and serves the app at once (tests, and any caller with nothing to prepare in between). */
export async function startServer(
  app: Pick<Koa, 'callback'>,
  port: number,
  host: string,
  log: Logger,
  bounds?: HttpBounds,
): Promise<RunningServer> {
  const running = await listen(port, host, log, bounds);
  running.serve(app);
  return running;
}
