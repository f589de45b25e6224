// The search part of the API's dependencies: the engine (with its timings and the operator's
// synonyms), the overload guard in front of it, and the search-load metrics that watch both.
import type { Config } from '../config.js';
import type { SearchEngine } from '../search/engine.js';
import { createSearchEngine } from '../search/factory.js';
import { measureEngine } from '../search/measuredEngine.js';
import type { SynonymRules } from '../grants/synonyms.js';
import { loadSynonyms, synonymEngine } from '../search/synonymSearch.js';
import type { ApiMetrics } from '../http/metrics/apiMetrics.js';
import { OverloadGuard } from '../http/middleware/overload.js';
import { registerSearchLoadMetrics, type SearchLoadEvents } from '../http/metrics/searchLoadMetrics.js';

export interface SearchPart {
  /** The engine every route and the alert matcher search with: measured, synonyms applied. */
  engine: SearchEngine;
  synonyms: SynonymRules;
  overload: OverloadGuard;
  /** Stops the overload sampler and closes the engine. */
  close(): Promise<void>;
}

export async function createSearch(config: Config, metrics: ApiMetrics): Promise<SearchPart> {
  // Read before anything is opened: an invalid file stops the start, naming its line.
  const synonyms = loadSynonyms(config.synonymsFile);
  // The engine and the guard report to the metrics registered once both exist.
  let searchEvents: SearchLoadEvents | null = null;
  const searchEngine = await createSearchEngine(config, {
    onTimeout: () => searchEvents?.timeout(),
    onWorkerLost: () => searchEvents?.workerLost(),
  });
  const engine = synonymEngine(measureEngine(searchEngine, metrics), synonyms);
  const overload = new OverloadGuard({
    searchConcurrency: config.searchLoad.workers,
    queueLimit: config.searchLoad.queueLimit,
    eventLoopDelayMs: config.searchLoad.eventLoopDelayMs,
    onShed: (reason) => searchEvents?.shed(reason),
  });
  const poolLoad = () => searchEngine.pending?.() ?? { queued: 0, busy: 0 };
  searchEvents = registerSearchLoadMetrics(metrics.registry, {
    queued: () => poolLoad().queued,
    busy: () => poolLoad().busy,
    inFlight: () => overload.searchesInFlight,
    eventLoopDelayMs: () => overload.eventLoopDelayMs,
  });
  return {
    engine,
    synonyms,
    overload,
    async close() {
      overload.stop();
      await engine.close();
    },
  };
}
