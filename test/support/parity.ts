// Test support for the parity suites: the same catalog on both engines, an API per engine, and
// one request sent to both so a test compares the answers. bothEngines() registers the suite's
// before and after hooks (start both APIs, then stop them, drop the alias, remove the seed).
import { rmSync } from 'node:fs';
import type { Grant } from '../../src/grants/schema.js';
import { FIXTURES, startTestApi, tempDir, type TestApi, type TestApiOptions, type TestResponse } from './api.js';
import { GRANTS_PATH, writeNdjson } from './catalog.js';
import { dropAlias, elasticsearchEnv, uniqueAlias } from './elasticsearch.js';

export interface BothEnginesOptions {
  /** The grants both engines serve (seeded at start from one NDJSON file); the bundled fixtures when absent. */
  grants?: () => readonly Grant[];
  /** Settings both APIs start with, beside the seed and the engine. */
  env?: Record<string, string>;
  /** Options both APIs start with (an injected clock, for example). */
  api?: TestApiOptions;
}

export interface BothEngines {
  /** The Elasticsearch alias the suite's catalog is indexed under. */
  readonly alias: string;
  /** The API over the embedded engine (once the suite's before hook has run). */
  sqlite(): TestApi;
  /** The API over Elasticsearch (once the suite's before hook has run). */
  es(): TestApi;
  /** The same request to both APIs at once: the embedded engine's answer first. */
  both(pathAndQuery: string, init?: Parameters<TestApi['request']>[1]): Promise<[TestResponse, TestResponse]>;
}

/**
 * Waits until the API's searches see the whole seeded catalog: the embedded engine's search
 * workers take up a new build a moment after the seeding wrote it.
 */
async function serving(api: TestApi): Promise<void> {
  const stored = await api.deps.engine.count();
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await api.request(`${GRANTS_PATH}?limit=0`);
    if (res.status === 200 && res.body.pagination.total === stored) return;
    if (Date.now() > deadline) throw new Error(`the ${api.config.searchEngine} API never served its ${stored} grants`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Both engines over one catalog, for the `it`s of the describe() that calls it. */
export function bothEngines(options: BothEnginesOptions = {}): BothEngines {
  const alias = uniqueAlias();
  const dir = tempDir('grants-parity-');
  let sqlite: TestApi | undefined;
  let es: TestApi | undefined;
  before(async () => {
    const seed = options.grants === undefined ? FIXTURES : writeNdjson(dir, 'grants.ndjson', options.grants());
    const env = { ...options.env, SEED_FILE: seed };
    es = await startTestApi({ ...env, ...elasticsearchEnv(alias) }, options.api);
    sqlite = await startTestApi(env, options.api);
    await serving(es);
    await serving(sqlite);
  });
  after(async () => {
    await es?.stop();
    await sqlite?.stop();
    await dropAlias(alias);
    rmSync(dir, { recursive: true, force: true });
  });
  const started = (api: TestApi | undefined, engine: string): TestApi => {
    if (api === undefined) throw new Error(`the API over ${engine} has not started`);
    return api;
  };
  const engines: BothEngines = {
    alias,
    sqlite: () => started(sqlite, 'the embedded engine'),
    es: () => started(es, 'Elasticsearch'),
    both: (pathAndQuery, init) =>
      Promise.all([engines.sqlite().request(pathAndQuery, init), engines.es().request(pathAndQuery, init)]),
  };
  return engines;
}
