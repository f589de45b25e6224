// One webhook attempt: a POST to the address the target check resolved (never a second lookup),
// with the Standard Webhooks headers, no redirect followed, at most 64 KB of the answer read,
// within a time budget. Any 2xx is a success; anything else is a failed attempt with its cause.
// Connections are kept alive per checked address (a receiver takes many events in a row: a new
// connection, and for https a TLS handshake, per event would cost both sides more than the event).
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { AttemptResult } from './model.js';
import { checkTarget, TargetRefused, type Resolver, type TargetPolicy } from './targets.js';

const MAX_ANSWER_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface PostOptions extends TargetPolicy {
  timeoutMs: number;
  resolve?: Resolver;
  clock?: () => Date;
  /** Kept-alive connections to reuse; without, each attempt has a connection of its own. */
  connections?: WebhookConnections;
}

/** Kept-alive connections for this many checked addresses at most (the least used are closed). */
const KEPT_TARGETS = 256;
/** How long an idle kept-alive connection waits for the next event. */
const IDLE_MS = 15_000;

/**
 * Kept-alive connections per checked address, for one deliverer. An address's agent connects to
 * that address only (agents are keyed by it and every request pins the lookup to it), so a reused
 * connection never reaches an address the check did not pass.
 */
export class WebhookConnections {
  private readonly agents = new LRUCache<string, http.Agent>({
    max: KEPT_TARGETS,
    dispose: (agent) => agent.destroy(),
  });

  agentFor(protocol: string, address: string, port: string): http.Agent {
    const key = `${protocol}//[${address}]:${port}`;
    let agent = this.agents.get(key);
    if (agent === undefined) {
      const options = {
        keepAlive: true,
        maxSockets: 64,
        maxFreeSockets: 64,
        timeout: IDLE_MS,
        scheduling: 'lifo' as const,
      };
      agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Closes every kept-alive connection (at shutdown). */
  close(): void {
    this.agents.clear();
  }
}

/** Sends one attempt; never throws: every failure is an AttemptResult with ok false. */
export async function postWebhook(request: WebhookRequest, options: PostOptions): Promise<AttemptResult> {
  const clock = options.clock ?? (() => new Date());
  const at = clock().toISOString();
  const started = performance.now();
  const result = (ok: boolean, statusCode: number | null, error: string | null): AttemptResult => ({
    at,
    ok,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let target;
  try {
    target = await checkTarget(request.url, options, options.resolve);
  } catch (error) {
    return result(
      false,
      null,
      error instanceof TargetRefused ? `refused: ${error.message}` : 'refused: the target could not be checked',
    );
  }
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  const agent = options.connections?.agentFor(target.url.protocol, target.address, target.url.port) ?? false;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let req: http.ClientRequest;
    const finish = (value: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const send = (retryOnStaleSocket: boolean) => {
      req = client.request(
        target.url,
        {
          method: 'POST',
          lookup: pinned,
          agent,
          headers: {
            ...request.headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(request.body)),
            'user-agent': 'grants-api-webhooks/1',
          },
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) res.destroy();
          });
          const done = () => {
            const status = res.statusCode ?? 0;
            finish(
              result(
                status >= 200 && status < 300,
                status,
                status >= 200 && status < 300 ? null : `answered ${status}`,
              ),
            );
          };
          res.once('end', done);
          res.once('close', done);
          res.once('error', done);
        },
      );
      req.once('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed just as it was reused: the request never
        // reached it; send it once more on a new connection (Node's documented pattern).
        if (retryOnStaleSocket && req.reusedSocket && error.code === 'ECONNRESET' && !settled) send(false);
        else finish(result(false, null, describeNetworkError(error)));
      });
      req.end(request.body);
    };
    const timer = setTimeout(() => {
      finish(result(false, null, `no answer within ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    send(true);
  });
}

/** A network failure as one short sentence, without internals. */
function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (error.code?.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(error.message)) return 'TLS error';
      return `network error${error.code ? ` (${error.code})` : ''}`;
  }
}
