// Start-up seeding: an empty catalog is filled from the bundled fixtures, so a fresh checkout serves grants.
// The API process runs it (src/main.ts, the one module of src/ that imports from indexer/).
import type { Config } from '../src/config.js';
import { ServiceUnavailableError } from '../src/failures.js';
import { reindexFromSource } from './pipeline.js';
import type { Logger } from '../src/log.js';
import type { SearchEngine } from '../src/search/engine.js';
import { createCatalogWriter } from '../src/search/factory.js';

export async function seedCatalogIfEmpty(config: Config, engine: SearchEngine, log: Logger): Promise<void> {
  let empty: boolean;
  try {
    empty = await engine.isEmpty();
  } catch (error) {
    if (!(error instanceof ServiceUnavailableError)) throw error;
    // Never down: serve 503s until the engine answers, and recover by itself.
    log.error('the search engine is unavailable at start-up; grant endpoints answer 503 until it is back', {
      engine: engine.name,
      reason: error.message,
    });
    return;
  }
  if (!empty) {
    // A catalog already there is taken up before the API answers (Elasticsearch reads the build's
    // suggestion index), so that no first request waits for it past its budget.
    await engine.caughtUp?.().catch((error: unknown) =>
      log.warn('the search engine has not taken up the catalog yet; it will at the first request', {
        reason: error instanceof Error ? error.message : String(error),
      }),
    );
    return;
  }
  if (!config.seedCatalog) {
    log.warn(
      config.searchEngine === 'elasticsearch'
        ? `the Elasticsearch alias "${config.elasticsearch.index}" is missing or empty; run "grants-indexer ` +
            `reindex --source <file>"`
        : 'the catalog is empty; run "grants-indexer reindex --source <file>"',
    );
    return;
  }
  log.info('the catalog is empty; indexing the bundled fixtures', { source: config.seedFile });
  const { indexed, rejected } = await reindexFromSource((hooks) => createCatalogWriter(config, hooks), {
    source: config.seedFile,
    skipInvalid: true,
    report: (line) => log.warn(line),
  });
  // Served from the first request: the engine takes up the seeded catalog before the API answers.
  await engine.caughtUp?.();
  log.info('fixtures indexed', { indexed, rejected });
}
