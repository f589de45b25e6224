// The fuzz harness: the API as production runs it (node dist/src/main.js, its own DATA_DIR and
// port, the bundled fixtures seeded), a subscription made with grants-admin, and a fast-check
// property over generated requests (requests.ts) that every answer must keep:
//   - never a 5xx, never a hang (each answer within 10 s), never a dropped connection;
//   - a JSON answer is the envelope (success, data or error {code, message}, meta), whatever the path;
//   - an API answer conforms to the OpenAPI document (test/support/openapiCheck.ts), 304s included;
//   - a compressed answer decodes;
//   - the server alive at the end, its memory flat: the server runs with --expose-gc and
//     memoryProbe.ts, and every twentieth of the run its heap is measured after a full collection;
//   - the server's log (an access line per request) never holds the valid key, which the
//     generator also writes into paths in every case and percent-encoding (requests.ts).
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeBody } from '../support/rawHttp.js';
import { API_PREFIX, isCommonGrantsPath } from '../../src/http/routeTable.js';
import { REPO_ROOT } from '../bench/catalog.js';
import { createBenchSubscription, freePort, startProcess, type RunningProcess } from '../bench/processes.js';
import { checkResponse } from '../support/openapiCheck.js';
import type { MemoryRequest, MemorySample } from './memoryProbe.js';
import { requestArbitrary, type FuzzRequest } from './requests.js';

export interface FuzzServer {
  process: RunningProcess;
  key: string;
  ids: string[];
  dataDir: string;
  /** The server's memory after a full garbage collection in it (memoryProbe.ts), and a heap snapshot if asked. */
  memory(snapshot?: string): Promise<MemorySample>;
  stop(): Promise<void>;
}

const PROBE_TIMEOUT_MS = 30_000;

/** Asks the server's memory probe for a sample over the IPC channel. */
function askMemory(running: RunningProcess, snapshot?: string): Promise<MemorySample> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`the memory probe did not answer within ${PROBE_TIMEOUT_MS} ms`)),
      PROBE_TIMEOUT_MS,
    );
    const onMessage = (message: MemorySample | { error: string }) =>
      done('error' in message ? new Error(message.error) : null, message as MemorySample);
    function done(error: Error | null, sample?: MemorySample) {
      clearTimeout(timer);
      running.child.off('message', onMessage);
      if (error) reject(error);
      else resolve(sample!);
    }
    running.child.on('message', onMessage);
    running.child.send({ probe: 'memory', snapshot } satisfies MemoryRequest);
  });
}

export async function startFuzzServer(env: Record<string, string> = {}): Promise<FuzzServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'grants-fuzz-'));
  const port = await freePort();
  const serverEnv = {
    ...process.env,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    SEARCH_ENGINE: 'sqlite',
    REDIS_URL: '',
    ...env,
  };
  const { apiKey } = await createBenchSubscription(serverEnv);
  const running = await startProcess({
    name: 'fuzz-api',
    args: ['--expose-gc', '--import', './dist/test/fuzz/memoryProbe.js', 'dist/src/main.js'],
    env: serverEnv,
    port,
    logDir: dataDir,
    readyPath: '/readyz',
    ipc: true,
  });
  const ids = readFileSync(path.join(REPO_ROOT, 'fixtures/grants.ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, 50)
    .map((line) => (JSON.parse(line) as { id: string }).id);
  return {
    process: running,
    key: apiKey,
    ids,
    dataDir,
    memory: (snapshot) => askMemory(running, snapshot),
    async stop() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface FuzzAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body decoded per Content-Encoding. */
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const ANSWER_TIMEOUT_MS = 10_000;

/** Sends one request as generated (raw request line, no client-side normalising). */
export function send(origin: string, request: FuzzRequest): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(origin);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.target,
        headers: request.headers,
        agent,
        timeout: ANSWER_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          try {
            const decoded = decodeBody(raw, encoding);
            resolve({ status: res.statusCode!, headers: res.headers, text: decoded.toString('utf8') });
          } catch (error) {
            reject(new Error(`a ${encoding} body that does not decode: ${(error as Error).message}`));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/** Paths whose JSON is not the envelope (operator endpoints and the document). */
const NOT_ENVELOPES = new Set(['/healthz', '/readyz', `${API_PREFIX}/openapi.json`]);

const pathnameOf = (target: string): string => {
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
};

/**
 * What is wrong with a JSON-RPC answer of POST /mcp: not JSON-RPC 2.0, an internal error (the
 * protocol's or a tool's), or a validator's words (issue codes, types as the validator names them).
 */
function mcpProblems(body: any): string[] {
  const text = JSON.stringify(body).slice(0, 300);
  if (body?.jsonrpc !== '2.0') return [`an MCP answer that is not JSON-RPC 2.0: ${text}`];
  if (body.error !== undefined) {
    if (body.error.code === -32603) return [`an MCP internal error: ${text}`];
    if (/invalid_type|expected \w+, received|\n/.test(String(body.error.message)))
      return [`an MCP error in the validator's words: ${text}`];
    return [];
  }
  const content = body.result?.content?.[0];
  if (
    body.result?.isError === true &&
    content?.type === 'text' &&
    JSON.parse(content.text)?.error?.code === 'INTERNAL_ERROR'
  )
    return [`an MCP tool's internal error: ${text}`];
  return [];
}

/** What is wrong with an answer, by the rules that hold for every request. */
export function problemsOf(request: FuzzRequest, answer: FuzzAnswer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}: ${answer.text.slice(0, 300)}`);
  const type = String(answer.headers['content-type'] ?? '');
  const pathname = pathnameOf(request.target);
  if (type.startsWith('application/json') && answer.text !== '' && !NOT_ENVELOPES.has(pathname)) {
    let body: any;
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push('a JSON Content-Type with a body that is not JSON');
    }
    if (body !== undefined) {
      const metaOk =
        body?.meta !== null &&
        typeof body?.meta === 'object' &&
        typeof body.meta.requestId === 'string' &&
        body.meta.version === 'v1';
      if (body?.success === true) {
        if (!('data' in body) || !metaOk) problems.push('a success without data or meta');
      } else if (body?.success === false) {
        const error = body.error;
        if (typeof error?.code !== 'string' || typeof error?.message !== 'string' || error.message === '' || !metaOk)
          problems.push(`an error outside the envelope: ${answer.text.slice(0, 200)}`);
        if (answer.status < 400) problems.push(`success false with status ${answer.status}`);
      } else if (pathname === `${API_PREFIX}/mcp` && answer.status === 200) {
        problems.push(...mcpProblems(body));
      } else if (isCommonGrantsPath(pathname) && answer.status === 200) {
        // The CommonGrants routes answer in the protocol's shape, with the envelope's meta.
        if (body?.status !== 200 || body?.message !== 'Success' || !metaOk)
          problems.push(`a CommonGrants answer without status, message or meta: ${answer.text.slice(0, 200)}`);
      } else {
        problems.push(`JSON that is not the envelope: ${answer.text.slice(0, 200)}`);
      }
    }
  }
  // The document check resolves the path as a URL; a path that URL resolution rewrites (dot
  // segments, backslashes) names another operation there than on the server, so it is skipped.
  const resolvable = new URL(request.target, 'http://x').pathname === pathname;
  // A request line and headers over 64 KB never reach the app: src/server.ts answers 431
  // REQUEST_TOO_LARGE in the envelope (checked above; none for a HEAD), outside the document's operations.
  const refusedByParser = answer.status === 431;
  if (request.method !== 'OPTIONS' && pathname.startsWith(API_PREFIX) && resolvable && !refusedByParser) {
    let body: unknown;
    try {
      body = answer.text === '' ? null : JSON.parse(answer.text);
    } catch {
      body = null;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    try {
      checkResponse(request.method, request.target, { status: answer.status, headers, body, text: answer.text });
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}

export interface FuzzReport {
  runs: number;
  seed: number;
  seconds: number;
  statuses: Record<string, number>;
  /** The server's memory after a full collection: before the first request, then every twentieth of the run. */
  memory: MemoryPoint[];
  /**
   * Heap in use after a collection: median over the last quarter of the run minus median over the
   * second quarter, MB; null when a quarter has no sample (a run of a few dozen requests).
   */
  heapGrowthMb: number | null;
  /** The same for the RSS (which also holds the search workers, SQLite's caches and the allocator's free memory). */
  rssGrowthMb: number | null;
  alive: boolean;
  /**
   * Requests whose path held the valid key (spelled some way), and lines of the server's log that still held it (or 12
   * characters of it).
   */
  keyPaths: number;
  keyLines: string[];
  /** The shrunk counterexample and its problems, when the property failed. */
  failure: string | null;
}

/** A memory sample taken after `requests` requests of the run. */
export interface MemoryPoint extends MemorySample {
  requests: number;
}

const SAMPLES = 20;

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Growth of one measure from the second quarter of a run to the last (medians of the samples
 * taken in each), in MB. The first quarter is the warm-up (code compiled, caches filled, pools
 * grown); what still grows after it, at the rate it grows, is what a leak looks like.
 */
export function quarterGrowthMb(
  points: MemoryPoint[],
  runs: number,
  measure: (p: MemorySample) => number,
): number | null {
  const within = (from: number, to: number) =>
    points.filter((p) => p.requests > from * runs && p.requests <= to * runs).map(measure);
  const second = within(0.25, 0.5);
  const last = within(0.75, 1);
  if (second.length === 0 || last.length === 0) return null;
  return mb(median(last) - median(second));
}

/** The memory samples as printed lines: requests, heap and RSS after a collection. */
export function describeMemory(report: FuzzReport): string {
  const series = (measure: (p: MemorySample) => number) => report.memory.map((p) => mb(measure(p))).join(' ');
  return [
    `server memory after a full GC, before the run then every ${Math.round(report.runs / SAMPLES)} requests (MB):`,
    `  heapUsed  ${series((p) => p.heapUsed)}`,
    `  heapTotal ${series((p) => p.heapTotal)}`,
    `  external  ${series((p) => p.external)}`,
    `  rss       ${series((p) => p.rss)}`,
    `  rss anon  ${series((p) => p.rssAnon)}`,
    `  rss file  ${series((p) => p.rssFile)}`,
    `  growth, last quarter vs second quarter (medians): heap ${report.heapGrowthMb ?? 'not measured'} MB, ` +
      `rss ${report.rssGrowthMb ?? 'not measured'} MB`,
  ].join('\n');
}

/** Every %XX decoded once, malformed escapes kept. */
const decodeOnce = (text: string): string =>
  text.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** The pieces of a key (12 characters each, lower case) a log line must not hold, however often it is decoded. */
const keyPieces = (key: string): string[] => {
  const secret = key.slice(key.indexOf('_', 3) + 1).toLowerCase();
  return Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12));
};

/** The lines of a log that hold a piece of the key, decoded up to three times. */
export function linesHoldingKey(log: string, key: string): string[] {
  const pieces = keyPieces(key);
  return log.split('\n').filter((line) => {
    let seen = line.toLowerCase();
    for (let round = 0; round < 4; round++, seen = decodeOnce(seen))
      if (pieces.some((piece) => seen.includes(piece))) return true;
    return false;
  });
}

/** Whether a request's path holds the key, spelled some way. */
const pathHoldsKey = (target: string, key: string): boolean => linesHoldingKey(pathnameOf(target), key).length > 0;

/** Sends one request and checks its answer; throws the problems found. */
async function sendAndCheck(origin: string, request: FuzzRequest, statuses: Record<string, number>): Promise<void> {
  const sentAt = performance.now();
  let answer: FuzzAnswer;
  try {
    answer = await send(origin, request);
  } catch (error) {
    throw new Error(
      `${request.method} ${request.target.slice(0, 300)} (${request.target.length} characters): ` +
        `${(error as Error).message} (after ${Math.round(performance.now() - sentAt)} ms)`,
      { cause: error },
    );
  }
  statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const problems = problemsOf(request, answer);
  if (problems.length > 0)
    throw new Error(
      `${request.method} ${request.target.slice(0, 300)} (${request.target.length} characters) ` +
        `${JSON.stringify(request.headers).slice(0, 300)}:\n${problems.join('\n')}`,
    );
}

/**
 * Runs `runs` generated requests, `concurrency` at a time (each property run is a batch sent
 * together, so the server also meets them concurrently); never throws for a failed property (see
 * report.failure).
 */
export async function fuzz(
  server: FuzzServer,
  runs: number,
  seed: number = Date.now() ^ (Math.random() * 0x7fffffff),
  options: {
    concurrency?: number;
    timeLimitMs?: number;
    /** Heap snapshots written here at the end of the first quarter and of the run. */ snapshotDir?: string;
  } = {},
): Promise<FuzzReport> {
  const concurrency = options.concurrency ?? 4;
  const origin = server.process.origin;
  const statuses: Record<string, number> = {};
  const memory: MemoryPoint[] = [{ requests: 0, ...(await server.memory()) }];
  const sampleEvery = Math.max(1, Math.floor(runs / SAMPLES));
  let done = 0;
  const started = performance.now();
  const batches = Math.ceil(runs / concurrency);
  let keyPaths = 0;
  const property = fc.asyncProperty(
    fc.array(requestArbitrary({ valid: server.key }, server.ids), { minLength: concurrency, maxLength: concurrency }),
    async (batch) => {
      keyPaths += batch.filter((request) => pathHoldsKey(request.target, server.key)).length;
      const results = await Promise.allSettled(batch.map((request) => sendAndCheck(origin, request, statuses)));
      done += batch.length;
      // Between batches: no request of the run is in flight while the server collects and measures.
      if (Math.floor(done / sampleEvery) >= memory.length) {
        const snapshotAt =
          options.snapshotDir !== undefined && (memory.length === SAMPLES / 4 || done >= runs)
            ? path.join(options.snapshotDir, `fuzz-${done}.heapsnapshot`)
            : undefined;
        memory.push({ requests: done, ...(await server.memory(snapshotAt)) });
      }
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  );
  // No shrinking unless FUZZ_SHRINK is set: each step is a request, and a 70 KB query shrinks for minutes.
  // A time limit stops the run early (reported in `runs`), not as a failure.
  const details = await fc.check(property, {
    numRuns: batches,
    seed,
    endOnFailure: !process.env.FUZZ_SHRINK,
    interruptAfterTimeLimit: options.timeLimitMs,
    markInterruptAsFailure: false,
  });
  let failure: string | null = null;
  if (details.failed) {
    failure =
      `${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}\n(seed ` +
      `${details.seed}, path ${details.counterexamplePath})`;
  }
  let alive: boolean;
  try {
    const health = await send(origin, { method: 'GET', target: '/healthz', headers: {} });
    alive = health.status === 200 && server.process.child.exitCode === null;
  } catch {
    alive = false;
  }
  return {
    runs: done,
    seed,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    statuses,
    memory,
    heapGrowthMb: quarterGrowthMb(memory, done, (p) => p.heapUsed),
    rssGrowthMb: quarterGrowthMb(memory, done, (p) => p.rss),
    alive,
    keyPaths,
    keyLines: await logLinesHoldingKey(server),
    failure,
  };
}

/** The lines of the server's log holding the key, once the lines still buffered are written. */
async function logLinesHoldingKey(server: FuzzServer): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, LOG_FLUSHED_MS));
  return linesHoldingKey(readFileSync(server.process.logFile, 'utf8'), server.key);
}

/** Longer than the logger's periodic flush (src/log.ts). */
const LOG_FLUSHED_MS = 500;

export const closeFuzzAgent = (): void => agent.destroy();
