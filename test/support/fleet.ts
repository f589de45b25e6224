// A fleet of API processes (node dist/src/main.js, or src/main.ts from source), each with a DATA_DIR of its own as
// separate machines would have, sharing one PostgreSQL database, one Redis (a key prefix of the test's own) and one
// Elasticsearch alias. Each instance is a real process: it can be sent SIGTERM under load.
// - describeWithFleetServices: a suite that needs all three services (skipped outside CI, saying why).
// - startInstance / fleetAdmin / createSubscription: the processes and grants-admin against their store.
// - waitForSharedLimits / burstAcross / refusalTimes / usageFromEach: what a fleet test checks.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './api.js';
import { runBin, type BinRun } from './bins.js';
import { dropAlias, ES_URL } from './elasticsearch.js';
import { describeWithPostgres, type TestDatabase } from './postgres.js';
import { apiProcessArgs, launch, waitFor, type Launched } from './processes.js';
import { deleteKeys, REDIS_URL, tally } from './redis.js';
import { checkedExchange } from './checkedFetch.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/**
 * describe() for a suite that needs PostgreSQL (TEST_POSTGRES_URL), Redis (REDIS_URL) and
 * Elasticsearch (ELASTICSEARCH_URL): skipped with the reason outside CI, failed in CI.
 */
export function describeWithFleetServices(title: string, body: (this: Mocha.Suite) => void): void {
  if (!ES_URL || !REDIS_URL) {
    describeWithPostgres(title, function () {
      it('needs ELASTICSEARCH_URL and REDIS_URL as well', function () {
        if (IN_CI) throw new Error('a fleet suite needs ELASTICSEARCH_URL and REDIS_URL in CI');
        process.stderr.write(
          `  skipped "${title}": ELASTICSEARCH_URL and REDIS_URL must both be set (npm run services:start, ` +
            `then export them)\n`,
        );
        this.skip();
      });
    });
    return;
  }
  describeWithPostgres(title, body);
}

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
  /** An existing DATA_DIR to start on (a restart of a killed instance); a new one under workDir when absent. */
  dataDir?: string;
}

/** Starts one instance on a free port and waits for its "listening" line. */
export async function startInstance(name: string, options: FleetOptions): Promise<FleetInstance> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(options.workDir, `${name}-`));
  const proc = launch(process.execPath, apiProcessArgs(), {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      ...options.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
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
      // The request and its answer checked against the OpenAPI document.
      const answer = await checkedExchange(url + pathAndQuery, { ...init, headers });
      return {
        status: answer.status,
        headers: answer.headers,
        body: answer.body ?? (answer.text === '' ? null : answer.text),
      };
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
export async function createSubscription(
  env: Record<string, string>,
  cwd: string,
  args: string[],
): Promise<{ subscriptionId: string; keyId: string; apiKey: string }> {
  const run = await fleetAdmin(['subscription', 'create', ...args, '--json'], env, cwd);
  if (run.code !== 0) throw new Error(`grants-admin subscription create failed (${run.code}): ${run.err}`);
  const created = JSON.parse(run.out) as Record<string, any>;
  return {
    subscriptionId: created.subscription?.id ?? created.id ?? created.subscriptionId,
    keyId: created.keyId ?? created.key?.id,
    apiKey: created.apiKey ?? created.key?.apiKey,
  };
}

/** One answer's outcome: 'ok' for a 200, else the envelope's error code (or the status). */
export const outcome = (a: Answer): string => (a.status === 200 ? 'ok' : String(a.body?.error?.code ?? a.status));

/** `n` requests at once, round-robin over the instances. */
export async function burstAcross(
  fleet: FleetInstance[],
  n: number,
  key: string,
  pathAndQuery: string,
): Promise<{ answers: Answer[]; counts: Record<string, number> }> {
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => fleet[i % fleet.length].request(pathAndQuery, key)),
  );
  return { answers, counts: tally(answers.map(outcome)) };
}

/** Waits until every instance's /readyz says it uses the shared limits (Redis); the instances that never did. */
export async function waitForSharedLimits(fleet: FleetInstance[], timeoutMs = 10_000): Promise<string[]> {
  const late: string[] = [];
  for (const instance of fleet) {
    const onRedis = await waitFor(
      async () => ((await (await fetch(`${instance.url}/readyz`)).json()) as { limits?: string }).limits === 'redis',
      timeoutMs,
      100,
    );
    if (!onRedis) late.push(instance.name);
  }
  return late;
}

/**
 * After a key was revoked (at `revokedAt`, Date.now()), asks every instance with it until each
 * answers 401 or `timeoutMs` passes; returns how long after the revocation each refused it.
 */
export async function refusalTimes(
  fleet: FleetInstance[],
  apiKey: string,
  revokedAt: number,
  pathAndQuery: string,
  timeoutMs = 3000,
): Promise<Map<string, number>> {
  const refusedBy = new Map<string, number>();
  await waitFor(
    async () => {
      for (const instance of fleet) {
        if (refusedBy.has(instance.name)) continue;
        if ((await instance.request(pathAndQuery, apiKey)).status === 401)
          refusedBy.set(instance.name, Date.now() - revokedAt);
      }
      return refusedBy.size === fleet.length;
    },
    timeoutMs,
    20,
  );
  return refusedBy;
}

/** GET /subscription/usage from every instance with the key. */
export const usageFromEach = (fleet: FleetInstance[], apiKey: string): Promise<Answer[]> =>
  Promise.all(fleet.map((i) => i.request('/external/v1/subscription/usage', apiKey)));

/** What a fleet suite made, any part of which may be missing when its set-up failed half way. */
export interface FleetMade {
  fleet: FleetInstance[];
  database?: TestDatabase;
  prefix?: string;
  alias?: string;
  workDir?: string;
}

/** Stops the instances and removes the suite's database, Redis keys, alias and work directory. */
export async function tearDownFleet({ fleet, database, prefix, alias, workDir }: FleetMade): Promise<void> {
  for (const instance of fleet) instance.process.kill();
  await Promise.allSettled(fleet.map((i) => i.process.exited));
  await database?.drop().catch(() => undefined);
  if (prefix) await deleteKeys(prefix).catch(() => undefined);
  if (alias) await dropAlias(alias).catch(() => undefined);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}
