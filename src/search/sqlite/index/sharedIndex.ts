// The in-memory index of one catalog build as the search worker pool shares it: the columns
// (columns.ts), the text statistics and every term's postings (textIndex.ts) in shared memory.
// One thread, the index loader (indexLoader.ts), reads them once per build; every search worker
// adopts them (SqliteSearchEngine.pinned) instead of reading its own copy, so a process holds one
// copy and a new worker is ready at once.
import type { TextStatistics } from './postings.js';
import type { ColumnsData } from './columns.js';
import type { PostingsData } from './textIndex.js';

/** The columns, text statistics and postings of one build, readable by every thread. */
export interface SharedIndex {
  build: string | null;
  columns: ColumnsData;
  text: TextStatistics;
  postings: PostingsData;
}

/** What the index loader tells the pool. */
export type LoaderReport = { index: SharedIndex } | { failed: string };

export interface LoaderSetup {
  /** The catalog's SQLite file. */
  file: string;
  /** How often the loader looks for a new catalog build. */
  refreshMs: number;
  /** This thread's nice value (threadPriority.ts). */
  nice: number;
}
