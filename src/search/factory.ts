// Chooses the engine named by the configuration, for the API (reads) and the indexer (writes).
import { mkdirSync } from 'node:fs';
import type { Config } from '../config.js';
import { DAY_MS, type CatalogWriter, type ChangeLogOptions, type SearchEngine, type WriterHooks } from './engine.js';
import { ElasticsearchSearchEngine } from './elasticsearch/engine.js';
import { ElasticsearchCatalogWriter } from './elasticsearch/writer.js';
import { catalogPath } from './sqlite/storage/catalogFile.js';
import { SqliteSearchEngine } from './sqlite/runtime/engine.js';
import { PooledSqliteSearchEngine } from './sqlite/runtime/pooledEngine.js';
import { SearchWorkerPool, type WorkerPoolOptions } from './sqlite/runtime/workerPool.js';
import { SqliteCatalogWriter } from './sqlite/storage/writer.js';

/**
 * The engine serving reads. Embedded: with SEARCH_WORKERS > 0 its searches run on that many
 * worker threads (PooledSqliteSearchEngine), otherwise on the event loop. Elasticsearch: each
 * search gets SEARCH_TIMEOUT_MS as its request timeout.
 */
export async function createSearchEngine(
  config: Config,
  events: WorkerPoolOptions['events'] = {},
): Promise<SearchEngine> {
  switch (config.searchEngine) {
    case 'sqlite': {
      mkdirSync(config.dataDir, { recursive: true });
      const file = catalogPath(config.dataDir);
      const local = SqliteSearchEngine.open(file, {
        searchTimeoutMs: config.searchLoad.workers === 0 ? config.searchLoad.timeoutMs : undefined,
      });
      if (config.searchLoad.workers === 0) return local;
      try {
        const pool = await SearchWorkerPool.start({
          file,
          size: config.searchLoad.workers,
          timeoutMs: config.searchLoad.timeoutMs,
          nice: config.searchLoad.workerNice,
          events,
        });
        return new PooledSqliteSearchEngine(local, pool);
      } catch (error) {
        await local.close();
        throw error;
      }
    }
    case 'elasticsearch':
      return ElasticsearchSearchEngine.open(config.elasticsearch, { searchTimeoutMs: config.searchLoad.timeoutMs });
  }
}

interface WriterOptions {
  /** Elasticsearch: previous indexes kept after a swap, for rollback. */
  keep?: number;
  /** The change log's clock (tests); the wall clock by default. */
  clock?: () => Date;
}

export async function createCatalogWriter(
  config: Config,
  hooks: WriterHooks = {},
  options: WriterOptions = {},
): Promise<CatalogWriter> {
  const changes: ChangeLogOptions = {
    retentionMs: config.changesRetentionDays * DAY_MS,
    historyRetentionMs: config.historyRetentionDays * DAY_MS,
    clock: options.clock ?? (() => new Date()),
  };
  switch (config.searchEngine) {
    case 'sqlite':
      mkdirSync(config.dataDir, { recursive: true });
      return SqliteCatalogWriter.open(catalogPath(config.dataDir), hooks, changes);
    case 'elasticsearch':
      return ElasticsearchCatalogWriter.open(config.elasticsearch, hooks, {
        keep: options.keep ?? 1,
        replicas: config.elasticsearch.replicas,
        changes,
      });
  }
}
