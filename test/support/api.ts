// Test harness: a real API on a real port over a temporary DATA_DIR, built with createApp(deps).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { validateGrant, type Grant } from '../../src/grants/schema.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type Layer } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import type { DestinationStream } from 'pino';
import { createLogger } from '../../src/log.js';
import { seedCatalogIfEmpty } from '../../indexer/seed.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { checkedExchange, type CheckedAnswer, type CheckOptions } from './checkedFetch.js';
import { MAX_MONTHLY_LIMIT, MAX_RATE_LIMIT, type Tier } from '../../src/subscriptions/tiers.js';
import type { SqliteStore } from '../../src/subscriptions/sqlite/store.js';
import type { SubscriptionStore } from '../../src/subscriptions/sqlite/subscriptionStore.js';
import type { UsageStore } from '../../src/subscriptions/sqlite/usageStore.js';
import type { Resolver } from '../../src/alerts/targets.js';
import { repoPath } from '../../src/repoRoot.js';

export { REPO_ROOT } from '../../src/repoRoot.js';
export const FIXTURES = repoPath('fixtures/grants.ndjson');

/** The harness's deps: the SQLite store in its DATA_DIR, whose methods answer synchronously. */
export type TestDeps = Omit<Deps, 'store' | 'subscriptions' | 'usage'> & {
  store: SqliteStore;
  subscriptions: SubscriptionStore;
  usage: UsageStore;
};

export interface TestApi {
  url: string;
  /**
   * The key of a subscription created for the test (ENTERPRISE with the maximum overrides unless env.TEST_TIER names a
   * tier) (sent by request() by default).
   */
  key: string;
  subscriptionId: string;
  dataDir: string;
  config: Config;
  deps: TestDeps;
  /**
   * GET (or another method) on a path under the server, with the test key unless told otherwise.
   * The request and its answer are checked against the OpenAPI document (checkedFetch.ts): a
   * test of a refusal marks its call `invalidRequest: true`.
   */
  request(pathAndQuery: string, init?: RequestInit & { key?: string | null } & CheckOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

export type TestResponse = CheckedAnswer;

export const tempDir = (prefix = 'grants-test-'): string => mkdtempSync(path.join(tmpdir(), prefix));

export interface TestApiOptions {
  /** Injected clock for month arithmetic (the per-second limiter keeps real time). */
  clock?: () => Date;
  /** The app's middleware instead of apiLayers(deps) (e.g. to prove the response check fails on a wrong answer). */
  layers?: (deps: Deps) => Layer[];
  /** Where the API's JSON log lines go (stdout by default). */
  logDestination?: DestinationStream;
  /** How webhook hosts are resolved (the system's resolver by default). */
  resolve?: Resolver;
}

export async function startTestApi(env: Record<string, string> = {}, options: TestApiOptions = {}): Promise<TestApi> {
  const dataDir = env.DATA_DIR ?? tempDir();
  // The search budget and the event-loop check depend on the machine's speed: the suites that test
  // them set them; elsewhere a loaded machine must not turn a slow answer into a 503. One search
  // worker: searches still go through the pool and its thread, and each API started costs one
  // thread fewer than the default of one per core (search-workers.test.ts tests the pool's size).
  const config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SEED_FILE: FIXTURES,
    SEARCH_WORKERS: '1',
    SEARCH_TIMEOUT_MS: '60000',
    OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
    ...env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const log = createLogger(config.logLevel, { destination: options.logDestination });
  const created0 = await createDeps(config, log, { clock: options.clock, resolve: options.resolve });
  if (created0.store.kind !== 'sqlite')
    throw new Error('startTestApi runs the SQLite store (DATABASE_URL is not taken from the test env)');
  const deps = created0 as TestDeps;
  await seedCatalogIfEmpty(config, deps.engine, log);
  const running: RunningServer = await startServer(
    createApp(deps, options.layers?.(deps)),
    0,
    '127.0.0.1',
    log,
    config.http,
  );
  // Without TEST_TIER the subscription has generous overrides, so functional tests never meet a limit.
  const tier = env.TEST_TIER as Tier | undefined;
  const created = deps.subscriptions.create(
    tier === undefined
      ? { name: 'test', tier: 'ENTERPRISE', rateLimit: MAX_RATE_LIMIT, monthlyLimit: MAX_MONTHLY_LIMIT }
      : { name: 'test', tier },
  );
  return {
    url: running.url,
    key: created.apiKey,
    subscriptionId: created.subscription.id,
    dataDir,
    config,
    deps,
    async request(pathAndQuery, init = {}) {
      const { key = created.apiKey, invalidRequest, tolerantLists, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set('Authorization', `Bearer ${key}`);
      return checkedExchange(running.url + pathAndQuery, { ...rest, headers }, { invalidRequest, tolerantLists });
    },
    async stop() {
      await running.stop(1000);
      await deps.close();
      if (env.DATA_DIR === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The bundled fixture grants in canonical form (each validated; an invalid one fails loudly). */
export function fixtureGrants(): Grant[] {
  return readFileSync(FIXTURES, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const checked = validateGrant(JSON.parse(line));
      if (!checked.ok) throw new Error('fixture record invalid');
      return checked.grant;
    });
}
