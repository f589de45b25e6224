// How an embedded engine's reads see the catalog, in one of two modes, each its own type:
// - TurnSnapshots follows the catalog: the reads of one event-loop turn share one read
//   transaction, and the index is loaded again from that snapshot whenever the catalog's build
//   changed (SqliteSearchEngine.open: the engine without workers, and the main thread's).
// - PinnedSnapshot holds one read transaction on one build for the engine's life, over the
//   build's shared index (sharedIndex.ts) (SqliteSearchEngine.pinned: a search worker's engine).
// Either way a page, its total and its facets come from one snapshot and its build's index.
import type Database from 'better-sqlite3';
import { CatalogColumns } from '../index/columns.js';
import type { SharedIndex } from '../index/sharedIndex.js';
import { TextIndex } from '../index/textIndex.js';
import { WordDictionary } from '../index/wordDictionary.js';
import { SuggestIndex } from '../index/suggestIndex.js';
import { buildOf, openCatalogReadOnly, type Db } from '../storage/catalogFile.js';

/** The in-memory index of one catalog build, as an engine answers from it. */
export interface BuildIndex {
  /** The writer's build id of the catalog (null for a catalog no writer of this version wrote). */
  readonly build: string | null;
  readonly columns: CatalogColumns;
  /** The text statistics and postings of the same build (a following engine reads them on the first text search). */
  text(): TextIndex;
  /** The catalog's words as written, for typo tolerance and suggestions (read on first use). */
  words(): WordDictionary;
  /** The word postings and names search as you type reads (read on first use). */
  suggest(): SuggestIndex;
}

export interface CatalogSnapshots {
  /** Opens the snapshot the current read sees, if none is open. */
  open(): void;
  /** The index of the catalog the open snapshot holds. */
  index(): BuildIndex;
  /** The index held now, without looking at the catalog (null before the first read). */
  held(): BuildIndex | null;
  /**
   * A row the index holds is gone from the snapshot (the catalog changed without a new build id):
   * true when the index was dropped and the next index() reads it again; false when that cannot help.
   */
  forget(): boolean;
  /** Ends the open snapshot (before the connection closes). */
  close(): void;
}

/** An index whose text statistics are read from `db` on first use. */
function lazyTextIndex(db: Db, build: string | null, columns: CatalogColumns): BuildIndex {
  let text: TextIndex | null = null;
  let words: WordDictionary | null = null;
  let suggest: SuggestIndex | null = null;
  return {
    build,
    columns,
    text: () => (text ??= TextIndex.load(db, columns)),
    words: () => (words ??= WordDictionary.load(db)),
    suggest: () => (suggest ??= new SuggestIndex(db, columns)),
  };
}

/**
 * One snapshot per event-loop turn, following the catalog. PRAGMA data_version (read inside the
 * snapshot) changes when another connection commits; then the writer's build id, written in the
 * same transaction as every reindex and sync, tells whether the catalog changed. A changed
 * catalog's index is loaded from the same snapshot before any answer is given; the old one is
 * dropped as a whole.
 */
export class TurnSnapshots implements CatalogSnapshots {
  private loaded: { index: BuildIndex; dataVersion: number } | null = null;
  /** Whether this turn's snapshot has been checked against the index already. */
  private checkedThisTurn = false;
  private readonly dataVersion: Database.Statement;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.begin = db.prepare('BEGIN DEFERRED');
    this.commit = db.prepare('COMMIT');
  }

  /**
   * The reads of one event-loop turn share one read transaction, opened by the first and ended at
   * the next check phase (setImmediate; for reads made inside a check phase, as the requests the
   * allowance's group commit releases are, that of the next loop iteration): one snapshot of the
   * catalog per turn instead of one per statement, so a busy server begins and ends far fewer
   * transactions. A snapshot lasts about one loop iteration, and a new catalog (the indexer's
   * swap, on its own connection, never blocked by readers in WAL mode) is seen from the next.
   */
  open(): void {
    if (this.db.inTransaction) return;
    this.begin.run();
    setImmediate(this.endTurn);
  }

  index(): BuildIndex {
    const loaded = this.loaded;
    if (loaded !== null && this.checkedThisTurn) return loaded.index;
    const dataVersion = this.dataVersion.get() as number;
    if (loaded === null || loaded.dataVersion !== dataVersion) {
      const build = buildOf(this.db);
      if (loaded === null || build === null || build !== loaded.index.build) {
        this.loaded = { index: lazyTextIndex(this.db, build, CatalogColumns.load(this.db)), dataVersion };
      } else {
        loaded.dataVersion = dataVersion;
      }
    }
    this.checkedThisTurn = true;
    return this.loaded!.index;
  }

  held(): BuildIndex | null {
    return this.loaded?.index ?? null;
  }

  forget(): boolean {
    this.loaded = null;
    return true;
  }

  close(): void {
    this.endTurn();
  }

  private readonly endTurn = (): void => {
    this.checkedThisTurn = false;
    if (!this.db.open || !this.db.inTransaction) return;
    try {
      this.commit.run();
    } catch {
      // A read-only transaction has nothing to lose: roll it back so the next turn starts afresh
      // (and never let this callback throw: it runs outside any request).
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // The connection is broken; the next read reports it.
      }
    }
  };
}

/**
 * One read transaction on one build for the engine's life, begun by `pin`, over that build's
 * shared index: every answer comes from that build however the catalog moves on (a search worker
 * swaps to a new engine when the loader reports a new build).
 */
export class PinnedSnapshot implements CatalogSnapshots {
  private constructor(
    private readonly db: Db,
    private readonly pinned: BuildIndex,
  ) {}

  /**
   * A read-only connection to `file` in a read transaction on the shared index's build, and the
   * snapshot over it; null when the catalog is past that build already.
   */
  static pin(file: string, shared: SharedIndex): { db: Db; snapshots: PinnedSnapshot } | null {
    const db = openCatalogReadOnly(file);
    try {
      db.exec('BEGIN');
      if (buildOf(db) !== shared.build) {
        db.exec('ROLLBACK');
        db.close();
        return null;
      }
      const columns = new CatalogColumns(shared.columns);
      const text = TextIndex.over(db, columns, shared.text);
      let words: WordDictionary | null = null;
      let suggest: SuggestIndex | null = null;
      const index = {
        build: shared.build,
        columns,
        text: () => text,
        words: () => (words ??= WordDictionary.load(db)),
        suggest: () => (suggest ??= new SuggestIndex(db, columns)),
      };
      return { db, snapshots: new PinnedSnapshot(db, index) };
    } catch (error) {
      if (db.open) db.close();
      throw error;
    }
  }

  open(): void {
    // The transaction begun by pin() stays open.
  }

  index(): BuildIndex {
    return this.pinned;
  }

  held(): BuildIndex {
    return this.pinned;
  }

  forget(): boolean {
    return false;
  }

  close(): void {
    if (!this.db.open || !this.db.inTransaction) return;
    try {
      this.db.exec('COMMIT');
    } catch {
      // The connection closes next.
    }
  }
}
