// The embedded engine with its searches on worker threads: a SearchEngine that sends searches and
// filter options (which need the in-memory columns) to a SearchWorkerPool, and answers the cheap
// reads (one grant by id, the count) on its own connection in this thread, so they never wait
// behind a search. Each worker runs SqliteSearchEngine pinned to one catalog build, whose index
// one loader thread reads into shared memory for all of them (workerPool.ts, sharedIndex.ts): a
// page, its total and its facets come from one build; a new build is served once its index is read.
import type { Neighbour } from '../../../grants/typos.js';
import type { GrantQuery } from '../../../grants/query.js';
import type { ChangesPage } from '../../changes.js';
import type { HistoryPage } from '../../../grants/history.js';
import type { FilterOptions, GrantExport, SearchEngine, SearchResultJson, WordCount } from '../../engine.js';
import type { SqliteSearchEngine } from './engine.js';
import type { SuggestItem } from '../../../grants/suggest.js';
import type { SuggestRequest } from '../../suggestSearch.js';
import type { PoolLoad, SearchWorkerPool } from './workerPool.js';

export class PooledSqliteSearchEngine implements SearchEngine {
  readonly name = 'sqlite';

  constructor(
    /** This thread's engine: reads that need no columns (it never loads them). */
    private readonly local: SqliteSearchEngine,
    private readonly pool: SearchWorkerPool,
  ) {}

  /** Resolves once the workers answer from the catalog's build as it is now. */
  caughtUp(): Promise<void> {
    return this.pool.caughtUp();
  }

  pending(): PoolLoad {
    return this.pool.load;
  }

  searchJson(query: GrantQuery): Promise<SearchResultJson> {
    return this.pool.run<SearchResultJson>({ op: 'search', query });
  }

  /** The similar grants' word counts: one job, so a grant's words are searched in one worker, one after another. */
  wordTotals(counts: readonly WordCount[], atMost: number): Promise<number[]> {
    return this.pool.run<number[]>({ op: 'wordTotals', counts, atMost });
  }

  /** Search as you type reads the columns too: a job for the pool, like a search. */
  suggest(request: SuggestRequest): Promise<SuggestItem[]> {
    return this.pool.run<SuggestItem[]>({ op: 'suggest', request });
  }

  filterOptions(): Promise<FilterOptions> {
    return this.pool.run<FilterOptions>({ op: 'filterOptions' });
  }

  /**
   * An export streams batches for minutes from one read transaction, so it runs on this thread's
   * engine, batch by batch as the client reads, over the workers' shared index when its snapshot is
   * of the same build.
   */
  exportJson(query: GrantQuery): Promise<GrantExport> {
    return this.local.exportJson(query, this.pool.index);
  }

  getByIdJson(id: string): Promise<string | null> {
    return this.local.getByIdJson(id);
  }

  /** The changes feed reads the change log only (no columns): this thread's connection. */
  typoNeighbours(words: readonly string[]): Promise<Map<string, Neighbour[]>> {
    return this.local.typoNeighbours(words);
  }

  changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
    return this.local.changesJson(afterSeq, limit);
  }

  historyJson(id: string, beforeSeq: number | null, limit: number): Promise<HistoryPage> {
    return this.local.historyJson(id, beforeSeq, limit);
  }

  count(): Promise<number> {
    return this.local.count();
  }

  isEmpty(): Promise<boolean> {
    return this.local.isEmpty();
  }

  async close(): Promise<void> {
    await this.pool.close();
    await this.local.close();
  }
}
