// A TCP proxy in front of a real HTTP server (Elasticsearch) that lets its answers through, or
// lets each answer's headers and first body bytes through and then cuts the connection (a node
// lost in the middle of an answer) or stops passing it on (a node that stalls mid-answer). The
// requests always reach the server as sent; the mode can change between requests.
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'cut' | 'stall';

export interface FaultyProxy {
  url: string;
  mode: ProxyMode;
  close(): Promise<void>;
}

/** Body bytes let through after an answer's headers before a cut or a stall. */
const BODY_BYTES_KEPT = 8;
const HEADERS_END = Buffer.from('\r\n\r\n');

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: FaultyProxy = { url: '', mode: 'pass', close: async () => undefined };
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
    // A cut or a stall holds for the rest of the connection's life; until one comes, bytes pass.
    let faulty: { mode: 'cut' | 'stall'; seen: Buffer } | null = null;
    upstream.on('data', (chunk: Buffer) => {
      if (faulty === null) {
        if (proxy.mode === 'pass') {
          client.write(chunk);
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
