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
 * Waits until both APIs list the same grants (and some): the embedded engine's search workers
 * take up a new catalog build a moment after the seeding wrote it, answering from the empty one
 * until then.
 */
async function bothServing(sqlite: TestApi, es: TestApi): Promise<void> {
  const total = async (api: TestApi): Promise<number | null> => {
    const res = await api.request(`${GRANTS_PATH}?limit=0`);
    return res.status === 200 ? (res.body.pagination.total as number) : null;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [onSqlite, onEs] = [await total(sqlite), await total(es)];
    if (onSqlite !== null && onSqlite > 0 && onSqlite === onEs) return;
    if (Date.now() > deadline) throw new Error(`the engines never listed the same grants (${onSqlite} and ${onEs})`);
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
    await bothServing(sqlite, es);
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
