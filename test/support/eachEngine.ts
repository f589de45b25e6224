// Test support for suites whose one body runs over an API on each engine: describeOnEachEngine()
// registers `<title> [sqlite]` over the embedded engine and `<title>` over Elasticsearch (skipped
// without ELASTICSEARCH_URL), each with the hooks that start its API and stop it after.
import type { Grant } from '../../src/grants/schema.js';
import { catalogPath } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { startTestApi, type TestApi, type TestApiOptions } from './api.js';
import { reindexGrants } from './catalog.js';
import { describeWithElasticsearch, dropAlias, elasticsearchEnv, reindexAlias, uniqueAlias } from './elasticsearch.js';

/** What a suite gets on each engine: the running API and a way to swap its catalog. */
export interface EngineUnderTest {
  api(): TestApi;
  reindex(grants: readonly Grant[]): Promise<void>;
}

export interface EachEngineOptions {
  /** Settings both APIs start with, beside the engine's own. */
  env?: Record<string, string>;
  /** Options both APIs start with (an injected clock, for example). */
  api?: TestApiOptions;
}

/** Replaces the catalog of an embedded-engine API's DATA_DIR with `grants`. */
async function reindexSqlite(dataDir: string, grants: readonly Grant[]): Promise<void> {
  const writer = SqliteCatalogWriter.open(catalogPath(dataDir));
  try {
    await reindexGrants(writer, grants);
  } finally {
    await writer.close();
  }
}

/**
 * Runs `suite` twice: in `<title> [sqlite]` (timeout 120 s) over an API on the embedded engine, and in
 * `<title>` (timeout 180 s) over an API on Elasticsearch behind an alias of its own, dropped after.
 */
export function describeOnEachEngine(
  title: string,
  suite: (engine: EngineUnderTest) => void,
  options: EachEngineOptions = {},
): void {
  const env = options.env ?? {};
  describe(`${title} [sqlite]`, function () {
    this.timeout(120_000);
    let api: TestApi;
    before(async () => {
      api = await startTestApi(env, options.api);
    });
    after(async () => {
      await api?.stop();
    });
    suite({ api: () => api, reindex: (grants) => reindexSqlite(api.dataDir, grants) });
  });

  describeWithElasticsearch(title, function () {
    this.timeout(180_000);
    const alias = uniqueAlias();
    let api: TestApi;
    before(async () => {
      api = await startTestApi({ ...elasticsearchEnv(alias), ...env }, options.api);
    });
    after(async () => {
      await api?.stop();
      await dropAlias(alias);
    });
    suite({ api: () => api, reindex: (grants) => reindexAlias(api.config.elasticsearch, grants) });
  });
}
