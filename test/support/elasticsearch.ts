// Test support for suites that need a real Elasticsearch: skip outside CI when ELASTICSEARCH_URL
// is unset (saying why); in CI, fail instead of skipping. Each suite uses its own alias.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { dropCatalogIndexes } from '../../src/search/elasticsearch/changeLog.js';
import type { Grant } from '../../src/grants/schema.js';
import type { EsConfig } from '../../src/search/elasticsearch/client.js';
import { ElasticsearchCatalogWriter } from '../../src/search/elasticsearch/writer.js';
import { REPO_ROOT } from './api.js';
import { reindexGrants } from './catalog.js';
import {
  descendants,
  freePort,
  isRunning,
  killAtExit,
  portIsFree,
  serviceUser,
  signalTree,
  waitFor,
} from './processes.js';
import { describeRequiring } from './redis.js';

export const ES_URL = process.env.ELASTICSEARCH_URL;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** describe() for a suite that needs Elasticsearch. */
export function describeWithElasticsearch(title: string, body: (this: Mocha.Suite) => void): void {
  if (ES_URL) {
    describe(`${title} [elasticsearch]`, body);
    return;
  }
  if (IN_CI) {
    describe(`${title} [elasticsearch]`, () => {
      it('needs ELASTICSEARCH_URL, which CI must set (.ci/run starts Elasticsearch)', () => {
        throw new Error('ELASTICSEARCH_URL is not set in CI: the Elasticsearch suites must run there');
      });
    });
    return;
  }
  describe(`${title} [elasticsearch]`, () => {
    before(function () {
      process.stderr.write(
        `  skipped "${title}": ELASTICSEARCH_URL is not set (npm run services:start, then export it)\n`,
      );
      this.skip();
    });
    it('needs a real Elasticsearch', () => {});
  });
}

/** A fresh alias name for one suite; its indexes are named `<alias>-<timestamp>-<hex>`. */
export const uniqueAlias = (): string => `test-${randomBytes(5).toString('hex')}`;

/** The settings of an API searching Elasticsearch through `alias`. */
export const elasticsearchEnv = (alias: string): Record<string, string> => ({
  SEARCH_ENGINE: 'elasticsearch',
  ELASTICSEARCH_URL: ES_URL as string,
  ELASTICSEARCH_INDEX: alias,
});

export function testClient(): Client {
  return new Client({ node: ES_URL as string, requestTimeout: 60_000 });
}

/** Deletes every index of an alias made by a test: its catalog's indexes, change log and history. */
export async function dropAlias(alias: string): Promise<void> {
  const client = testClient();
  try {
    await dropCatalogIndexes(client, alias);
  } finally {
    await client.close();
  }
}

/** Builds a new index of the grants behind the config's alias (one replica-less index kept) and swaps it in. */
export async function reindexAlias(config: EsConfig, grants: readonly Grant[]): Promise<void> {
  const writer = ElasticsearchCatalogWriter.open(config, {}, { keep: 1, replicas: 0 });
  try {
    await reindexGrants(writer, grants);
  } finally {
    await writer.close();
  }
}

// ---- A private throwaway node for fault tests ----------------------------------------------------
// startPrivateElasticsearch: a single node of the install scripts/services.sh makes (the pinned
// integ-test-zip with the grants-analysis plugin, under .cache/elasticsearch/<version>/), with its
// own copy of the config directory (its own ports, data, logs, node and cluster names), run as the
// `elasticsearch` user as services.sh runs it. It can be stopped (SIGTERM or SIGKILL) and started
// again on the same data, and frozen (SIGSTOP of the whole process tree) and thawed. The shared
// node (ELASTICSEARCH_URL) is never touched.

/**
 * Where the install is and which JDK runs it: `bash scripts/services.sh install elasticsearch`
 * (instant once installed). It fetches a missing install (mvn) only when `fetch` is true: in CI
 * (where `.ci/run` has installed it already) and for `npm run chaos`; a plain mocha run elsewhere
 * never starts a download.
 */
export function elasticsearchInstall(fetch = IN_CI): { home: string; javaHome: string } | { missing: string } {
  const configured = process.env.ES_HOME?.trim();
  const configuredJava = process.env.ES_JAVA_HOME?.trim();
  if (configured && configuredJava) {
    return existsSync(path.join(configured, 'bin', 'elasticsearch'))
      ? { home: configured, javaHome: configuredJava }
      : { missing: `ES_HOME=${configured} holds no bin/elasticsearch` };
  }
  const run = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'services.sh'), 'install', 'elasticsearch'], {
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, ES_INSTALL_OFFLINE: fetch ? '0' : '1' },
  });
  const home = /^ES_HOME=(.+)$/m.exec(run.stdout ?? '')?.[1];
  const javaHome = /^ES_JAVA_HOME=(.+)$/m.exec(run.stdout ?? '')?.[1];
  if (run.status !== 0 || !home || !javaHome)
    return {
      missing:
        `scripts/services.sh install elasticsearch failed (${run.status}): ` +
        `${(run.stderr ?? '').trim().split('\n').slice(-3).join(' / ')}`,
    };
  return { home, javaHome };
}

/** Why a private node cannot be run here, or null when it can (the install is made if absent). */
let privateMissing: string | null | undefined;
export function privateElasticsearchMissing(): string | null {
  if (privateMissing !== undefined) return privateMissing;
  const install = elasticsearchInstall();
  privateMissing = 'missing' in install ? install.missing : null;
  return privateMissing;
}

export const PRIVATE_ES_HINT =
  'bash scripts/services.sh install elasticsearch (needs mvn and a JDK >= 21), or set ES_HOME and ES_JAVA_HOME';

/** describe() for a suite that starts Elasticsearch nodes of its own. */
export function describeWithElasticsearchServer(title: string, body: (this: Mocha.Suite) => void): void {
  describeRequiring(title, 'elasticsearch-server', privateElasticsearchMissing(), PRIVATE_ES_HINT, body);
}

export interface PrivateElasticsearch {
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** The node's launcher process, or null while stopped. */
  readonly process: ChildProcess | null;
  /** Stops the node (SIGTERM: a clean shutdown; SIGKILL: a crash) and waits for every process of it to exit. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) every process of the node: its port stays open, nothing answers. */
  pause(): void;
  resume(): void;
  /** Starts the node again on the same ports and data, and waits for yellow health. */
  start(): Promise<void>;
  /** Stops the node if it runs and removes its directory. */
  dispose(): Promise<void>;
  /** The last lines the node printed. */
  log(): string;
}

/**
 * Copies the install's config directory into a temp directory with an elasticsearch.yml of its own
 * (free HTTP and transport ports, its own path.data and path.logs, node and cluster names, single
 * node, no disk threshold), owned by the `elasticsearch` user, and starts the node, waiting until
 * the cluster is yellow.
 */
export async function startPrivateElasticsearch(
  options: { heap?: string; startTimeoutMs?: number; fetch?: boolean } = {},
): Promise<PrivateElasticsearch> {
  const install = elasticsearchInstall(options.fetch);
  if ('missing' in install) throw new Error(install.missing);
  const owner = serviceUser(
    'elasticsearch',
    'running as root needs an `elasticsearch` user (scripts/services.sh install elasticsearch creates it)',
  );
  const base = mkdtempSync(path.join(tmpdir(), 'grants-es-'));
  const conf = path.join(base, 'config');
  const data = path.join(base, 'data');
  const logs = path.join(base, 'logs');
  const esTmp = path.join(base, 'tmp');
  cpSync(path.join(install.home, 'config'), conf, { recursive: true });
  for (const dir of [data, logs, esTmp]) mkdirSync(dir);
  const port = await freePort();
  const transportPort = await freePort();
  const name = `grants-private-${port}`;
  const yml = [
    '# a private node of test/support/elasticsearch.ts',
    `cluster.name: ${name}`,
    `node.name: ${name}`,
    `path.data: ${data}`,
    `path.logs: ${logs}`,
    'network.host: 127.0.0.1',
    `http.port: ${port}`,
    `transport.port: ${transportPort}`,
    'discovery.type: single-node',
    'cluster.routing.allocation.disk.threshold_enabled: false',
    'action.destructive_requires_name: false',
  ];
  if (existsSync(path.join(install.home, 'modules', 'x-pack-security'))) yml.push('xpack.security.enabled: false');
  writeFileSync(path.join(conf, 'elasticsearch.yml'), `${yml.join('\n')}\n`);
  if (owner) spawnSync('chown', ['-R', `${owner.uid}:${owner.gid}`, base]);
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let output = '';

  const healthy = async (): Promise<boolean> => {
    try {
      const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, {
        signal: AbortSignal.timeout(3000),
      });
      const body = (await res.json()) as { status?: string };
      return body.status === 'yellow' || body.status === 'green';
    } catch {
      return false;
    }
  };

  const start = async () => {
    if (child !== null) return;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ES_JAVA_HOME: install.javaHome,
      ES_JAVA_OPTS: `-Xms${options.heap ?? '512m'} -Xmx${options.heap ?? '512m'}`,
      ES_PATH_CONF: conf,
      ES_TMPDIR: esTmp,
    };
    const proc = spawn(path.join(install.home, 'bin', 'elasticsearch'), [], {
      ...(owner ?? {}),
      cwd: base,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    child = proc;
    killAtExit(proc, () => {
      if (proc.pid !== undefined) signalTree(proc.pid, 'SIGKILL');
    });
    let exited = false;
    proc.once('exit', () => {
      exited = true;
      if (child === proc) child = null;
    });
    const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
    while (!(await healthy())) {
      if (exited) throw new Error(`private Elasticsearch on port ${port} exited at start-up:\n${output}`);
      if (Date.now() > deadline) {
        signalTree(proc.pid as number, 'SIGKILL');
        throw new Error(
          `private Elasticsearch on port ${port} was not yellow within ${options.startTimeoutMs ?? 180_000} ` +
            `ms:\n${output}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const proc = child;
    if (proc === null) return;
    const root = proc.pid as number;
    const tree = [root, ...descendants(root)];
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      signalTree(root, 'SIGCONT'); // a frozen node must run to shut down
      if (signal === 'SIGKILL') signalTree(root, 'SIGKILL');
      else proc.kill('SIGTERM'); // the launcher passes it on to the server JVM
      await exited;
    }
    child = null;
    // The server JVM may outlive the launcher by a moment: wait until none of the tree runs.
    await waitFor(() => tree.every((pid) => !isRunning(pid)), 60_000, 100);
    await waitFor(() => portIsFree(port), 10_000, 100);
  };

  await start();
  return {
    port,
    url,
    get process() {
      return child;
    },
    stop,
    pause: () => {
      if (child?.pid !== undefined) signalTree(child.pid, 'SIGSTOP');
    },
    resume: () => {
      if (child?.pid !== undefined) signalTree(child.pid, 'SIGCONT');
    },
    start,
    async dispose() {
      await stop('SIGKILL');
      rmSync(base, { recursive: true, force: true });
    },
    log: () => output,
  };
}
