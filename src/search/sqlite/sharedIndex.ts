// The in-memory index of one catalog build as the search worker pool shares it: the columns
// (columns.ts) and the text statistics (textIndex.ts) in shared memory, then every term's postings.
// One thread, the index loader (indexLoader.ts), reads them once per build; every search worker
// adopts them (SqliteSearchEngine.pinned) instead of reading its own copy, so a process holds one
// copy and a new worker is ready at once.
import type { TextStatistics } from './bm25.js';
import type { ColumnsData } from './columns.js';
import type { PostingsData } from './textIndex.js';

/** The columns and text statistics of one build, readable by every thread. */
export interface SharedIndex {
  build: string | null;
  columns: ColumnsData;
  text: TextStatistics;
}

/** Every term's postings of one build (loaded after the index: a minute at 1,000,000 grants). */
export interface SharedPostings {
  build: string | null;
  postings: PostingsData;
}

/** What the index loader tells the pool. */
export type LoaderReport = { index: SharedIndex } | { postings: SharedPostings } | { failed: string };

export interface LoaderSetup {
  /** The catalog's SQLite file. */
  file: string;
  /** How often the loader looks for a new catalog build. */
  refreshMs: number;
}
