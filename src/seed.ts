// Start-up seeding: an empty catalog is filled from the bundled fixtures, so a fresh checkout serves grants.
import { grantsOnly, RejectionLog, validRecords } from '../indexer/pipeline.js';
import { openSource, readSource } from '../indexer/source.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { SearchEngine } from './search/engine.js';
import { createCatalogWriter } from './search/factory.js';

export async function seedCatalogIfEmpty(config: Config, engine: SearchEngine, log: Logger): Promise<void> {
  if (!config.seedCatalog || (await engine.count()) > 0) return;
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
