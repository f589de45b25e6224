// A fleet of API processes (node dist/src/main.js), each with a DATA_DIR of its own as separate
// machines would have, sharing one PostgreSQL database, one Redis (a key prefix of the test's own)
// and one Elasticsearch alias. Each instance is a real process: it can be sent SIGTERM under load.
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './api.js';
import { runBin, type BinRun } from './bins.js';
import { launch, type Launched } from './processes.js';

const READY = /"url":"(http:\/\/[^"]+)\/external\/v1\/grants"[^\n]*"msg":"grants API listening"/;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface FleetInstance {
  name: string;
  url: string;
  dataDir: string;
  process: Launched;
  request(pathAndQuery: string, key: string, init?: RequestInit): Promise<Answer>;
  /** SIGTERM, then waits for the exit (code and signal). */
  terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface FleetOptions {
  /** Environment shared by every instance (DATABASE_URL, REDIS_URL, …). */
  env: Record<string, string>;
  /** Parent folder for the instances' DATA_DIRs. */
  workDir: string;
}

/** Starts one instance on a free port and waits for its "listening" line. */
export async function startInstance(name: string, options: FleetOptions): Promise<FleetInstance> {
  const dataDir = mkdtempSync(path.join(options.workDir, `${name}-`));
  const proc = launch(process.execPath, ['dist/src/main.js'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...options.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
  });
  const match = await proc.waitFor('stdout', READY, 60_000);
  const url = match[1];
  return {
    name,
    url,
    dataDir,
    process: proc,
    async request(pathAndQuery, key, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${key}`);
      const response = await fetch(url + pathAndQuery, { ...init, headers });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, headers: response.headers, body };
    },
    async terminate() {
      proc.child.kill('SIGTERM');
      return proc.exited;
    },
  };
}

/** grants-admin against the fleet's store (the same environment, no DATA_DIR needed). */
export function fleetAdmin(args: string[], env: Record<string, string>, cwd: string): Promise<BinRun> {
  return runBin('grants-admin', args, { cwd, env: { PATH: process.env.PATH, ...env } });
}

/** `grants-admin subscription create … --json`: the subscription id and its first key. */
export async function createSubscription(env: Record<string, string>, cwd: string, args: string[]): Promise<{ subscriptionId: string; keyId: string; apiKey: string }> {
  const run = await fleetAdmin(['subscription', 'create', ...args, '--json'], env, cwd);
  if (run.code !== 0) throw new Error(`grants-admin subscription create failed (${run.code}): ${run.err}`);
  const created = JSON.parse(run.out) as Record<string, any>;
  return {
    subscriptionId: created.subscription?.id ?? created.id ?? created.subscriptionId,
    keyId: created.keyId ?? created.key?.id,
    apiKey: created.apiKey ?? created.key?.apiKey,
  };
}
