// A SearchEngine that reports how long each of the wrapped engine's operations took and which
// failed, to whoever asks (the metrics): a decorator, so the engines themselves stay as they are.
import type { SearchEngine, WordCount } from './engine.js';

export type EngineOperation =
  | 'search'
  | 'export'
  | 'getById'
  | 'filterOptions'
  | 'count'
  | 'isEmpty'
  | 'changes'
  | 'history'
  | 'typoNeighbours'
  | 'wordTotals'
  | 'suggest';

export interface EngineObserver {
  /** One operation finished, `failure` the thrown value when it failed. */
  observe(engine: string, operation: EngineOperation, seconds: number, failure?: unknown): void;
}

export function measureEngine(engine: SearchEngine, observer: EngineObserver): SearchEngine {
  const timed =
    <A extends unknown[], R>(operation: EngineOperation, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        const result = await call(...args);
        observer.observe(engine.name, operation, (performance.now() - started) / 1000);
        return result;
      } catch (error) {
        observer.observe(engine.name, operation, (performance.now() - started) / 1000, error);
        throw error;
      }
    };
  return {
    name: engine.name,
    searchJson: timed('search', (query) => engine.searchJson(query)),
    exportJson: timed('export', (query) => engine.exportJson(query)),
    getByIdJson: timed('getById', (id: string) => engine.getByIdJson(id)),
    filterOptions: timed('filterOptions', () => engine.filterOptions()),
    suggest: timed('suggest', (request: Parameters<SearchEngine['suggest']>[0]) => engine.suggest(request)),
    count: timed('count', () => engine.count()),
    isEmpty: timed('isEmpty', () => engine.isEmpty()),
    ...(engine.typoNeighbours !== undefined && {
      typoNeighbours: timed('typoNeighbours', (words: readonly string[]) => engine.typoNeighbours!(words)),
    }),
    ...(engine.wordTotals !== undefined && {
      wordTotals: timed('wordTotals', (counts: readonly WordCount[], atMost: number) =>
        engine.wordTotals!(counts, atMost),
      ),
    }),
    ...(engine.changesJson !== undefined && {
      changesJson: timed('changes', (afterSeq: number, limit: number) => engine.changesJson!(afterSeq, limit)),
    }),
    ...(engine.historyJson !== undefined && {
      historyJson: timed('history', (id: string, beforeSeq: number | null, limit: number) =>
        engine.historyJson!(id, beforeSeq, limit),
      ),
    }),
    ...(engine.caughtUp !== undefined && { caughtUp: () => engine.caughtUp!() }),
    close: () => engine.close(),
  };
}
