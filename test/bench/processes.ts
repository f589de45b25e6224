// Child processes of the bench: the API (production build), the baseline servers and the admin CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './catalog.js';

/**
 * The V8 options production starts the API with (`npm start`, the image's CMD; a unit test checks
 * that the three agree): semi-spaces of up to 64 MB instead of V8's 16, so the short-lived objects
 * of each request are collected by fewer, cheaper scavenges. /grants/:id at LOG_LEVEL=info: 107 ->
 * 86 µs of CPU per request (medians of 5 interleaved rounds, lower in 5 of 5, load 6-8).
 */
export const API_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=64'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Settings the child processes must not inherit from the shell running a bench. */
const INHERITED_OUT = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'SEARCH_ENGINE',
  'LOG_LEVEL',
  'SEED_CATALOG',
  'SEED_FILE',
  'DEMO_API_KEY',
  'REDIS_URL',
  'REDIS_KEY_PREFIX',
  'ELASTICSEARCH_INDEX',
  'NODE_OPTIONS',
  'DATABASE_URL',
  'ALERTS_WORKER',
];

/** The bench's own environment less INHERITED_OUT, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_OUT) delete env[name];
  return { ...env, ...extra };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningProcess {
  name: string;
  pid: number;
  origin: string;
  child: ChildProcess;
  /** Where its stdout and stderr go. */
  logFile: string;
  stop(): Promise<void>;
}

/** Polls GET /healthz (or the given path) until it answers 200. */
async function waitReady(
  child: ChildProcess,
  origin: string,
  readyPath: string,
  name: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(origin + readyPath, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${name} was not ready within ${timeoutMs} ms`);
}

export async function startProcess(options: {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  logDir: string;
  readyPath?: string;
  /** How long to wait for the ready path (default 60 s). */
  readyTimeoutMs?: number;
  /** Opens an IPC channel to the process (child.send / 'message'), for a probe it loads. */
  ipc?: boolean;
  /** The checkout whose build runs (default this one; bench:compare starts another build's API). */
  cwd?: string;
}): Promise<RunningProcess> {
  const logFile = path.join(options.logDir, `${options.name}.log`);
  // The child writes its lines to the file itself, as it would to a collector's pipe: the bench's
  // process (autocannon's too) does not carry them (an access line per request at LOG_LEVEL=info).
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    stdio: options.ipc ? ['ignore', log, log, 'ipc'] : ['ignore', log, log],
  });
  closeSync(log);
  const origin = `http://127.0.0.1:${options.port}`;
  try {
    await waitReady(child, origin, options.readyPath ?? '/healthz', options.name, options.readyTimeoutMs ?? 600_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; see ${logFile}`, { cause: error });
  }
  const exited = once(child, 'exit');
  return {
    name: options.name,
    pid: child.pid!,
    origin,
    child,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a CLI of bin/ (of the checkout `cwd`) to completion; resolves with its stdout, rejects on a non-zero exit. */
export async function runCli(script: string, args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Promise<string> {
  const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited ${code}: ${err.trim()}`);
  return out;
}

/** An ENTERPRISE subscription with high overrides, made with grants-admin (of the checkout `cwd`); returns its key. */
export async function createBenchSubscription(
  env: NodeJS.ProcessEnv,
  cwd = REPO_ROOT,
): Promise<{ subscriptionId: string; apiKey: string }> {
  const out = await runCli(
    'bin/grants-admin.js',
    [
      'subscription',
      'create',
      '--name',
      'bench',
      '--tier',
      'ENTERPRISE',
      '--rate-limit',
      '100000',
      '--monthly-limit',
      '1000000000',
      '--json',
    ],
    env,
    cwd,
  );
  const created = JSON.parse(out) as { subscriptionId: string; apiKey: string };
  return { subscriptionId: created.subscriptionId, apiKey: created.apiKey };
}
