// A webhook receiver for the alerts tests: a real HTTP server on a free port that records every
// request it gets and answers the n-th as the test says.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers a request: a status, 'hang' (never answers), or a delay then 200. */
export type Answer = number | 'hang' | { delayMs: number };

export interface WebhookReceiver {
  url: string;
  got: Received[];
  /** The events received, in order: each body with its webhook-id. */
  events(): Array<{ id: string; type: string; data: { grant?: { id: string } } }>;
  close(): Promise<void>;
}

/** A receiver whose answer to the n-th request (from 1) is `behave(n)`. */
export async function webhookReceiver(behave: (n: number) => Answer = () => 200): Promise<WebhookReceiver> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const what = behave(got.length);
      if (what === 'hang') return;
      if (typeof what === 'number') {
        res.statusCode = what;
        res.end();
      } else setTimeout(() => res.end('ok'), what.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    events: () =>
      got.map((r) => ({
        id: r.headers['webhook-id'] as string,
        ...(JSON.parse(r.body) as { type: string; data: { grant?: { id: string } } }),
      })),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
