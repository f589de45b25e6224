// The catalog's size and the times of its last reindex and sync, as the catalog writers record
// them (what `grants-indexer status` shows), read for the metrics at most once per interval.
import type { Config } from '../config.js';
import type { SearchEngine } from './engine.js';
import { createCatalogWriter } from './factory.js';

interface CatalogStatus {
  grants: number;
  lastReindexAt: string | null;
  lastSyncAt: string | null;
}

const isoOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A reader of the catalog's status; the times are re-read after `maxAgeMs`, the size each call. */
export function catalogStatusReader(
  config: Config,
  engine: SearchEngine,
  maxAgeMs = 30_000,
): () => Promise<CatalogStatus> {
  let times: { at: number; lastReindexAt: string | null; lastSyncAt: string | null } | null = null;
  return async () => {
    if (times === null || Date.now() - times.at >= maxAgeMs) {
      const writer = await createCatalogWriter(config);
      try {
        const status = await writer.status();
        times = {
          at: Date.now(),
          lastReindexAt: isoOrNull(status.lastReindexAt),
          lastSyncAt: isoOrNull(status.lastSyncAt),
        };
      } finally {
        await writer.close();
      }
    }
    return { grants: await engine.count(), lastReindexAt: times.lastReindexAt, lastSyncAt: times.lastSyncAt };
  };
}
