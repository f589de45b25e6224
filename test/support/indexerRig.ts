// Test support for suites that drive the real grants-indexer, then an API over what it wrote, on
// either engine and afresh for each test: engineSetups() gives each engine's settings for one test,
// indexerRig() registers the per-test hooks and runs the indexer and the API in them.
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { runIndexer } from '../../indexer/cli.js';
import { startTestApi, tempDir, type TestApi } from './api.js';
import { captureCli, writeNdjson, type CliRun, type GrantRecord } from './catalog.js';
import { dropAlias, elasticsearchEnv, uniqueAlias } from './elasticsearch.js';

export interface EngineSetup {
  name: 'sqlite' | 'elasticsearch';
  /** The environment of the API and the indexer for one test. */
  env(): Record<string, string>;
  cleanup(env: Record<string, string>): Promise<void>;
}

/**
 * Each engine's settings for one test of the suite `name`: a fresh DATA_DIR (`grants-<name>-…`, or
 * `grants-<name>-es-…` beside Elasticsearch), and on Elasticsearch an alias `<name>-…` of its own.
 */
export function engineSetups(name: string): { sqlite: EngineSetup; elasticsearch: EngineSetup } {
  return {
    sqlite: {
      name: 'sqlite',
      env: () => ({ SEARCH_ENGINE: 'sqlite', DATA_DIR: tempDir(`grants-${name}-`) }),
      cleanup: async (env) => rmSync(env.DATA_DIR, { recursive: true, force: true }),
    },
    elasticsearch: {
      name: 'elasticsearch',
      env: () => ({
        ...elasticsearchEnv(`${name}-${uniqueAlias()}`),
        DATA_DIR: tempDir(`grants-${name}-es-`),
      }),
      cleanup: async (env) => {
        await dropAlias(env.ELASTICSEARCH_INDEX);
        rmSync(env.DATA_DIR, { recursive: true, force: true });
      },
    },
  };
}

export interface IndexerRig {
  /** The current test's environment. */
  readonly env: Record<string, string>;
  /** The API start() started, until stop() or the end of the test. */
  readonly api: TestApi | undefined;
  /** grants-indexer `args` (with `records` as its --source when given), expected to exit 0. */
  indexer(args: string[], records?: readonly GrantRecord[]): Promise<CliRun>;
  /** Starts an API over the catalog the indexer wrote (no seeding). */
  start(): Promise<TestApi>;
  stop(): Promise<void>;
}

/**
 * Registers a suite's beforeEach (a fresh environment from `setup`) and afterEach (the API stopped,
 * then `setup.cleanup`), and returns what the tests run in between.
 */
export function indexerRig(setup: EngineSetup): IndexerRig {
  let env: Record<string, string> = {};
  let api: TestApi | undefined;
  let step = 0;
  const rig: IndexerRig = {
    get env() {
      return env;
    },
    get api() {
      return api;
    },
    async indexer(args, records) {
      const source =
        records === undefined ? [] : ['--source', writeNdjson(env.DATA_DIR, `source-${++step}.ndjson`, records)];
      const run = await captureCli((io) =>
        runIndexer([...args, ...source], { ...process.env, ...env, LOG_LEVEL: 'silent' }, io),
      );
      expect(run.code, `${args.join(' ')}: ${run.err.join('\n')}`).to.equal(0);
      return run;
    },
    async start() {
      api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
      return api;
    },
    async stop() {
      await api?.stop();
      api = undefined;
    },
  };
  beforeEach(() => {
    env = setup.env();
    step = 0;
  });
  afterEach(async () => {
    await rig.stop();
    await setup.cleanup(env);
  });
  return rig;
}
