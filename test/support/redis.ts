// Test support for suites that need Redis.
// - describeWithRedis: suites against the Redis named by REDIS_URL; skipped outside CI when it is
//   unset (saying why), failed in CI instead.
// - uniquePrefix / deleteKeys: a REDIS_KEY_PREFIX of its own per test run, and its keys removed after.
// - startPrivateRedis: a redis-server of the test's own on a free port, for fault tests, so the
//   shared Redis is never stopped; it can be killed (SIGKILL / SIGTERM) and restarted on the same port.
// - startBlackHole: a TCP server that accepts connections and never answers (a hung Redis).
// - freePort: a port with nothing listening on it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { freePort, killAtExit } from './processes.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { TestApi } from './api.js';

export const REDIS_URL = process.env.REDIS_URL?.trim() || undefined;
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN?.trim() || 'redis-server';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * describe() under a requirement: runs the body when `missing` is null; otherwise fails in CI and
 * skips elsewhere, printing the reason.
 */
export function describeRequiring(
  title: string,
  tag: string,
  missing: string | null,
  hint: string,
  body: (this: Mocha.Suite) => void,
): void {
  const fullTitle = `${title} [${tag}]`;
  if (missing === null) {
    describe(fullTitle, body);
    return;
  }
  if (IN_CI) {
    describe(fullTitle, () => {
      it(`needs ${tag}, which CI must provide`, () => {
        throw new Error(`${missing} in CI: the ${tag} suites must run there (${hint})`);
      });
    });
    return;
  }
  describe(fullTitle, () => {
    before(function () {
      process.stderr.write(`  skipped "${title}": ${missing} (${hint})\n`);
      this.skip();
    });
    it(`needs ${tag}`, () => {});
  });
}

/** describe() for a suite that needs the Redis named by REDIS_URL. */
export function describeWithRedis(title: string, body: (this: Mocha.Suite) => void): void {
  describeRequiring(
    title,
    'redis',
    REDIS_URL ? null : 'REDIS_URL is not set',
    'start Redis, then export REDIS_URL=redis://127.0.0.1:6379',
    body,
  );
}

let redisServerFound: boolean | undefined;
/** Whether the redis-server binary runs here. */
export function redisServerAvailable(): boolean {
  redisServerFound ??= spawnSync(REDIS_SERVER_BIN, ['--version'], { stdio: 'ignore' }).status === 0;
  return redisServerFound;
}

/** describe() for a suite that starts redis-server processes of its own. */
export function describeWithRedisServer(title: string, body: (this: Mocha.Suite) => void): void {
  const missing = redisServerAvailable() ? null : `${REDIS_SERVER_BIN} cannot be run`;
  describeRequiring(title, 'redis-server', missing, 'install redis-server or set REDIS_SERVER_BIN', body);
}

/** A fresh REDIS_KEY_PREFIX for one test run. */
export const uniquePrefix = (): string => `test:${randomBytes(5).toString('hex')}:`;

/** A client for assertions and clean-up (no offline queue: an unreachable Redis fails at once). */
export function testRedis(url: string = REDIS_URL as string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
}

/** Every key under a prefix. */
export async function keysWithPrefix(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

/** Deletes every key under a prefix; returns how many were deleted. */
export async function deleteKeys(prefix: string, url: string = REDIS_URL as string): Promise<number> {
  if (!prefix || prefix === '*') throw new Error(`refusing to delete keys under prefix "${prefix}"`);
  const redis = testRedis(url);
  try {
    const keys = await keysWithPrefix(redis, prefix);
    return keys.length === 0 ? 0 : await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** A port on 127.0.0.1 with nothing listening on it: one definition, in ./processes.ts. */
export { freePort };

/** Sends PING over a raw socket; true on +PONG within the timeout. */
function ping(port: number, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** The running process, or null while stopped. */
  readonly process: ChildProcess | null;
  /** Stops the server with the signal (SIGKILL: no goodbye to clients) and waits for it to exit. */
  stop(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the server: connections stay open, nothing is answered. */
  pause(): void;
  resume(): void;
  /** Starts a fresh, empty server on the same port. */
  restart(): Promise<void>;
  /** Stops the server if it runs and removes its directory. */
  dispose(): Promise<void>;
}

/** Starts `redis-server --port <free port> --save '' --appendonly no` and waits until it answers PING. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'grants-redis-'));
  let child: ChildProcess | null = null;

  const launch = async () => {
    const proc = spawn(
      REDIS_SERVER_BIN,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    killAtExit(proc);
    let exited = false;
    proc.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + 5000;
    while (!(await ping(port))) {
      if (exited) throw new Error(`redis-server on port ${port} exited at start-up`);
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} did not answer PING within 5 s`);
      }
      await sleep(25);
    }
  };

  const stop = async (signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
    const proc = child;
    if (proc === null) return;
    child = null;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    if (signal === 'SIGTERM') proc.kill('SIGCONT'); // a paused server must run to handle SIGTERM
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get process() {
      return child;
    },
    stop,
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async restart() {
      await stop('SIGKILL');
      await launch();
    },
    async dispose() {
      await stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface BlackHole {
  port: number;
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** A TCP server that accepts every connection and never writes a byte (a hung Redis). */
export async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    // Reads and discards whatever arrives; answers nothing.
    socket.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- Helpers for API instances that share limits through Redis ----------------------------------

/** The three-grant catalog (g-1, g-2, g-3) instances seed from: one definition, in ./catalog.ts. */
export { writeTinyCatalog } from './catalog.js';

/** Polling until a check holds: one definition, in ./processes.ts. */
export { waitFor } from './processes.js';

/**
 * The ioredis status of an instance's Redis connection ('ready', 'connect', 'reconnecting', …), or
 * null when it has none. /readyz cannot tell "not yet connected" from "connected", so tests that
 * need the shared path from the first request wait on this.
 */
export function redisStatusOf(deps: unknown): string | null {
  const link = (deps as { rateLimiter?: { link?: { client?: { status?: string } } } }).rateLimiter?.link;
  return link?.client?.status ?? null;
}

/** One request's outcome: 'ok' for 200, the error code for a 429, else the status. */
export type Outcome = string;

export function outcomeOf(res: { status: number; body: any }): Outcome {
  if (res.status === 200) return 'ok';
  if (res.status === 429) return String(res.body?.error?.code ?? '429-without-code');
  return String(res.status);
}

/** Counts outcomes: { ok: 10, RATE_LIMITED: 20 }. */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/**
 * Sends `n` requests at once, round-robin over the instances, with `key`; returns each outcome and
 * the status, in sending order.
 */
export async function burst(
  apis: TestApi[],
  n: number,
  key: string,
  pathAndQuery: string,
): Promise<{ outcomes: Outcome[]; counts: Record<string, number>; byInstance: Record<string, number>[] }> {
  const sent = Array.from({ length: n }, (_, i) => ({
    instance: i % apis.length,
    response: apis[i % apis.length].request(pathAndQuery, { key }),
  }));
  const responses = await Promise.all(sent.map((s) => s.response));
  const outcomes = responses.map(outcomeOf);
  const byInstance = apis.map((_, k) => tally(outcomes.filter((__, i) => sent[i].instance === k)));
  return { outcomes, counts: tally(outcomes), byInstance };
}
