// Chooses the engine named by the configuration, for the API (reads) and the indexer (writes).
import { mkdirSync } from 'node:fs';
import type { Config } from '../config.js';
import type { CatalogWriter, SearchEngine } from './engine.js';
import { catalogPath } from './sqlite/catalogFile.js';
import { SqliteSearchEngine } from './sqlite/engine.js';
import { SqliteCatalogWriter, type WriterHooks } from './sqlite/writer.js';

export async function createSearchEngine(config: Config): Promise<SearchEngine> {
  switch (config.searchEngine) {
    case 'sqlite':
      mkdirSync(config.dataDir, { recursive: true });
      return SqliteSearchEngine.open(catalogPath(config.dataDir));
    case 'elasticsearch':
      throw new Error('the elasticsearch engine is not available in this build');
  }
}

export async function createCatalogWriter(config: Config, hooks: WriterHooks = {}): Promise<CatalogWriter> {
  switch (config.searchEngine) {
    case 'sqlite':
      mkdirSync(config.dataDir, { recursive: true });
      return SqliteCatalogWriter.open(catalogPath(config.dataDir), hooks);
    case 'elasticsearch':
      throw new Error('the elasticsearch engine is not available in this build');
  }
}
