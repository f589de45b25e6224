// The SearchEngine port: what the API needs from a catalog, whatever holds it.
import type { Grant } from '../grants/schema.js';
import type { Facets, GrantQuery, KeysetPosition } from '../grants/query.js';
import type { ChangesPage } from './changes.js';
import type { HistoryPage } from '../grants/history.js';
import type { Neighbour, Suggestion } from '../grants/typos.js';
import type { SuggestItem } from '../grants/suggest.js';
import type { SuggestRequest } from './suggestSearch.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';

/** A search result with each grant as its served JSON text (wire field order), ready to splice into a response. */
export interface SearchResultJson {
  total: number;
  grantsJson: string[];
  /** Present when query.facets is not empty: each asked facet, in the order asked. */
  facets?: Facets;
  /**
   * Cursor paging only (query.cursor set): the place of the page's last grant when more matches
   * follow it, null when this page ends the matches.
   */
  next?: KeysetPosition | null;
  /** With a search: the "did you mean" (search/typoSearch.ts), null when there is none. */
  suggestion?: Suggestion | null;
  /**
   * With a search: the search as the engine ran it, its terms with their synonyms and typo alternatives (what the
   * highlights mark).
   */
  search?: ParsedSearch;
}

/** A count query (no page, no facet) whose search is the one word `word`, as written. */
export interface WordCount {
  word: string;
  query: GrantQuery;
}

/**
 * Every match of a query, in its order, read from one snapshot of the catalog: how many there
 * are, then their JSON texts in batches. close() releases the snapshot (after the last batch,
 * or early when the reader gives up); reading after close() ends the batches.
 */
export interface GrantExport {
  total: number;
  batches: AsyncIterable<string[]>;
  close(): Promise<void>;
}

export interface FilterOptions {
  funderTypes: string[];
  fundingTypes: string[];
  eligibleProvinces: string[];
  targetBeneficiaries: string[];
  currencies: string[];
}

export interface SearchEngine {
  readonly name: string;
  /**
   * One page of matches and the total, each grant as its JSON text: what the API serves, without a parse and
   * re-serialisation.
   */
  searchJson(query: GrantQuery): Promise<SearchResultJson>;
  /** Every match of the query (its filters and sort; paging ignored) from one snapshot, for GET /grants/export. */
  exportJson(query: GrantQuery): Promise<GrantExport>;
  /** One grant as its JSON text, or null for an unknown id. */
  getByIdJson(id: string): Promise<string | null>;
  filterOptions(): Promise<FilterOptions>;
  /** Number of grants in the catalog being served; throws ServiceUnavailableError when unreachable. */
  count(): Promise<number>;
  /**
   * One page of the changes feed: the change log's state and up to limit + 1 entries with a
   * sequence after `afterSeq`, oldest first, all from one snapshot of the catalog.
   */
  changesJson?(afterSeq: number, limit: number): Promise<ChangesPage>;
  /**
   * One page of a grant's history (grants/history.ts), newest first: up to limit + 1 versions with
   * a sequence below `beforeSeq` (null: from the newest), and whether the id is known at all (in the
   * catalog or in the history), from one snapshot.
   */
  historyJson?(id: string, beforeSeq: number | null, limit: number): Promise<HistoryPage>;
  /**
   * The catalog's neighbours of search words (search/typoSearch.ts neighboursOf, the first
   * MAX_TYPO_WORDS of each search looked up together): what the alert matcher derives `typos=auto`
   * searches with, as a search derives them.
   */
  typoNeighbours?(words: readonly string[]): Promise<Map<string, Neighbour[]>>;
  /**
   * The totals of single-word count queries (GET /grants/:id/similar's match counts, search/similarSearch.ts), in
   * order, from one snapshot, where a total above `atMost` may come back as any number above it: a word held as
   * written by more than `atMost` grants (a lower bound of its search's total) needs no search. Absent: each query is
   * run as a search.
   */
  wordTotals?(counts: readonly WordCount[], atMost: number): Promise<number[]>;
  /** GET /grants/suggest: the completions of the typed text under the filters (search/suggestSearch.ts). */
  suggest(request: SuggestRequest): Promise<SuggestItem[]>;
  /**
   * Searches waiting for and running on the engine's own threads (the embedded engine's pool); absent: the engine keeps
   * none.
   */
  pending?(): { queued: number; busy: number };
  /**
   * Resolves once the engine answers from the catalog as it is now (after the API's own start-up
   * seeding): the embedded engine's workers hold the new build's index, Elasticsearch's suggestion
   * index of the alias's index is read. Absent: the engine answers from the catalog as it is at once.
   */
  caughtUp?(): Promise<void>;
  /** True when there is no catalog to serve yet (empty, or on Elasticsearch a missing alias). */
  isEmpty(): Promise<boolean>;
  close(): Promise<void>;
}

/** What the indexer needs from an engine: a whole new catalog, or changes to the live one. */
export interface CatalogWriter {
  /** Builds a new catalog from the records and swaps it in atomically; returns how many were indexed. */
  reindex(grants: AsyncIterable<Grant>, options?: ReindexOptions): Promise<{ indexed: number }>;
  /** Upserts changed grants and, with prune, deletes those not seen. */
  sync(grants: AsyncIterable<SyncItem>, options: { prune: boolean }): Promise<SyncCounts>;
  status(): Promise<Record<string, unknown>>;
  /** Swaps back to the previous catalog, where the engine keeps one. */
  rollback?(): Promise<{ from: string; to: string }>;
  close(): Promise<void>;
}

export interface WriterHooks {
  /** A second record with an id already seen in this run; it is not indexed. */
  onDuplicate?: (grant: Grant) => void;
  /**
   * Called before the change becomes visible, with the catalog's size before and after it;
   * throw to abandon the run (the ingestion pipeline's guards live there, not in the writers).
   */
  beforeCommit?: (change: PendingChange) => void;
}

/** What a reindex or sync is about to do to the live catalog, in grants. */
export interface PendingChange {
  /** Grants in the live catalog before this run. */
  live: number;
  /** Grants it will hold once the run commits. */
  after: number;
}

export interface ReindexOptions {
  /** Called with the number of records indexed so far, for progress reports. */
  onProgress?: (indexed: number) => void;
}

/** How a writer keeps the change log (src/search/changes.ts): tombstones' retention, and its clock. */
export interface ChangeLogOptions {
  /** Tombstones older than this are dropped by the next run (CHANGES_RETENTION_DAYS). */
  retentionMs: number;
  /** Versions of grants older than this are dropped by the next run (HISTORY_RETENTION_DAYS). */
  historyRetentionMs: number;
  clock: () => Date;
}

export const DAY_MS = 86_400_000;
export const DEFAULT_CHANGE_LOG_OPTIONS: ChangeLogOptions = Object.freeze({
  retentionMs: 365 * DAY_MS,
  historyRetentionMs: 365 * DAY_MS,
  clock: () => new Date(),
});

/** A source record for sync: a valid grant, or the id of a rejected record (protected from pruning). */
export type SyncItem = { grant: Grant } | { rejectedId: string | null };

export interface SyncCounts {
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
}
