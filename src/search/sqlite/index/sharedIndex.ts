// The in-memory index of one catalog build as the search worker pool shares it: the columns
// (columns.ts) and the text statistics (textIndex.ts) in shared memory. One thread, the index
// loader (indexLoader.ts), reads them once per build; every search worker adopts them
// (SqliteSearchEngine.pinned) instead of reading its own copy, so a process holds one copy and a
// new worker is ready at once. A term's postings are read later, when a search first asks for the
// term: by the loader, on a worker's request, into shared memory, and handed to every worker.
import type { Postings, TextStatistics } from './postings.js';
import type { ColumnsData } from './columns.js';

/** The columns and text statistics of one build, readable by every thread. */
export interface SharedIndex {
  build: string | null;
  columns: ColumnsData;
  text: TextStatistics;
}

/** A term's postings of one build (its arrays in shared memory). */
export interface SharedPostings {
  build: string;
  term: string;
  postings: Postings;
}

/** Terms a worker's search needs the postings of, in the build it serves. */
export interface PostingsWanted {
  build: string;
  terms: string[];
}

/** What the index loader tells the pool (unread: postings it was asked for and could not read). */
export type LoaderReport =
  { index: SharedIndex } | { postings: SharedPostings } | { unread: PostingsWanted } | { failed: string };

/** What the pool tells the index loader: look for a new build now, or read these postings. */
export type LoaderRequest = 'check' | { want: PostingsWanted };

export interface LoaderSetup {
  /** The catalog's SQLite file. */
  file: string;
  /** How often the loader looks for a new catalog build. */
  refreshMs: number;
  /** This thread's nice value (threadPriority.ts). */
  nice: number;
}
