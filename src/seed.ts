// Start-up seeding: an empty catalog is filled from the bundled fixtures, so a fresh checkout serves grants.
import { grantsOnly, RejectionLog, validRecords } from '../indexer/pipeline.js';
import { openSource, readSource } from '../indexer/source.js';
import type { Config } from './config.js';
import { ServiceUnavailableError } from './failures.js';
import type { Logger } from './log.js';
import type { SearchEngine } from './search/engine.js';
import { createCatalogWriter } from './search/factory.js';

export async function seedCatalogIfEmpty(config: Config, engine: SearchEngine, log: Logger): Promise<void> {
  let empty: boolean;
  try {
    empty = await engine.isEmpty();
  } catch (error) {
    if (!(error instanceof ServiceUnavailableError)) throw error;
    // Never down: serve 503s until the engine answers, and recover by itself.
    log.error('the search engine is unavailable at start-up; grant endpoints answer 503 until it is back', { engine: engine.name, reason: error.message });
    return;
  }
  if (!empty) return;
  if (!config.seedCatalog) {
    log.warn(
      config.searchEngine === 'elasticsearch'
        ? `the Elasticsearch alias "${config.elasticsearch.index}" is missing or empty; run "grants-indexer reindex --source <file>"`
        : 'the catalog is empty; run "grants-indexer reindex --source <file>"',
    );
    return;
  }
  log.info('the catalog is empty; indexing the bundled fixtures', { source: config.seedFile });
  const rejections = new RejectionLog((line) => log.warn(line));
  const writer = await createCatalogWriter(config, { onDuplicate: (g) => rejections.duplicate(g) });
  try {
    const { indexed } = await writer.reindex(grantsOnly(validRecords(readSource(openSource(config.seedFile)), rejections)));
    log.info('fixtures indexed', { indexed, rejected: rejections.count });
  } finally {
    await writer.close();
  }
}
