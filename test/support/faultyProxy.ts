// A TCP proxy in front of a real HTTP server (Elasticsearch) that lets its answers through, or
// lets each answer's headers and first body bytes through and then cuts the connection (a node
// lost in the middle of an answer) or stops passing it on (a node that stalls mid-answer); with
// `delayMs`, each answer it lets through is held that long first (a slow node), or with
// `delayWhen` only the answers to requests whose request line it matches. The requests always
// reach the server as sent; the mode and the delay can change between requests.
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'cut' | 'stall';

export interface FaultyProxy {
  url: string;
  mode: ProxyMode;
  /** How long each answer is held before it is passed on (0: none); only in mode 'pass'. */
  delayMs: number;
  /** The requests whose answers are held (by their request line, e.g. `POST /x/_search HTTP/1.1`); null: every one. */
  delayWhen: RegExp | null;
  close(): Promise<void>;
}

/** Body bytes let through after an answer's headers before a cut or a stall. */
const BODY_BYTES_KEPT = 8;
const HEADERS_END = Buffer.from('\r\n\r\n');

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: FaultyProxy = { url: '', mode: 'pass', delayMs: 0, delayWhen: null, close: async () => undefined };
  const server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    // A delayed answer: the first bytes after a request are held, the rest of the connection's bytes queued behind
    // them.
    let asked = false;
    let requestLine = '';
    let passed = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1', 0, Math.min(chunk.length, 512));
      // A request's first bytes start with its method; later chunks of its body do not.
      if (/^[A-Z]+ \S+ HTTP\//.test(text)) requestLine = text.slice(0, text.indexOf('\r\n'));
      asked = true;
    });
    // A cut or a stall holds for the rest of the connection's life; until one comes, bytes pass.
    let faulty: { mode: 'cut' | 'stall'; seen: Buffer } | null = null;
    upstream.on('data', (chunk: Buffer) => {
      if (faulty === null) {
        if (proxy.mode === 'pass') {
          const delay = asked && (proxy.delayWhen === null || proxy.delayWhen.test(requestLine)) ? proxy.delayMs : 0;
          asked = false;
          passed = passed
            .then(() => (delay > 0 ? new Promise((resolve) => setTimeout(resolve, delay)) : undefined))
            .then(() => void client.write(chunk));
          return;
        }
        faulty = { mode: proxy.mode, seen: Buffer.alloc(0) };
      }
      const before = faulty.seen.length;
      faulty.seen = Buffer.concat([faulty.seen, chunk]);
      const headersEnd = faulty.seen.indexOf(HEADERS_END);
      const limit = headersEnd < 0 ? Infinity : headersEnd + HEADERS_END.length + BODY_BYTES_KEPT;
      if (before < limit) client.write(chunk.subarray(0, Math.min(chunk.length, limit - before)));
      if (faulty.seen.length >= limit && faulty.mode === 'cut') {
        client.destroy();
        upstream.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
