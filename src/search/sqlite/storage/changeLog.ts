// The embedded catalog's change log: one row per grant id (its last change) beside the catalog
// tables in the same file, outside the tables a reindex swaps, so it survives every swap. The
// writer records changes in the transaction that makes them visible; the engine reads a page of
// it and the grants' documents in one snapshot.
import { newChangeLogId, type ChangeEntryJson, type ChangeLogState, type ChangesPage } from '../../changes.js';
import type Database from 'better-sqlite3';

type Db = Database.Database;

export const CHANGE_LOG_DDL = `
CREATE TABLE IF NOT EXISTS grant_changes (
  id         TEXT    PRIMARY KEY,
  seq        INTEGER NOT NULL,
  deleted    INTEGER NOT NULL,   -- 1: a tombstone (the grant was removed at seq)
  changed_at TEXT    NOT NULL    -- ISO 8601 UTC with milliseconds
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS grant_changes_seq ON grant_changes (seq);`;

const KEYS = { log: 'changes_log', counter: 'changes_counter', horizon: 'changes_horizon' } as const;

/** The log's state (in the caller's snapshot or transaction). */
export function readChangeLogState(db: Db): ChangeLogState {
  const meta = (key: string) => db.prepare('SELECT value FROM catalog_meta WHERE key = ?').pluck().get(key) as string | undefined;
  const maxSeq = (db.prepare('SELECT max(seq) FROM grant_changes').pluck().get() as number | null) ?? 0;
  return {
    log: meta(KEYS.log) ?? null,
    counter: Math.max(Number(meta(KEYS.counter) ?? 0), maxSeq),
    horizon: Number(meta(KEYS.horizon) ?? 0),
  };
}

/** What `grants-indexer status` reports of the log. */
export function changeLogStatus(db: Db): { counter: number; horizon: number; tombstones: number } {
  const { counter, horizon } = readChangeLogState(db);
  const tombstones = db.prepare('SELECT count(*) FROM grant_changes WHERE deleted = 1').pluck().get() as number;
  return { counter, horizon, tombstones };
}

/**
 * The changes one writer transaction records: it takes sequences from the counter as it goes and
 * writes the counter back at `finish` (all inside the caller's transaction: BEGIN IMMEDIATE
 * serialises writers, so sequences are given out once, in commit order).
 */
export class ChangeRecorder {
  private readonly state: ChangeLogState;
  private readonly changedAt: string;
  private readonly upsert;
  private readonly tombstone;

  constructor(
    private readonly db: Db,
    now: Date,
  ) {
    this.state = readChangeLogState(db);
    this.changedAt = now.toISOString();
    if (this.state.log === null) {
      // A catalog written before the log existed: its grants enter the log once, as they stand.
      this.state.counter += db
        .prepare(
          `INSERT INTO grant_changes (id, seq, deleted, changed_at)
           SELECT id, ? + row_number() OVER (ORDER BY rowid), 0, ? FROM grants WHERE id NOT IN (SELECT id FROM grant_changes)`,
        )
        .run(this.state.counter, this.changedAt).changes;
    }
    this.upsert = db.prepare(
      `INSERT INTO grant_changes (id, seq, deleted, changed_at) VALUES (?, ?, 0, ?)
       ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, deleted = 0, changed_at = excluded.changed_at`,
    );
    this.tombstone = db.prepare(
      `INSERT INTO grant_changes (id, seq, deleted, changed_at) VALUES (?, ?, 1, ?)
       ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, deleted = 1, changed_at = excluded.changed_at`,
    );
  }

  /** A grant added or changed. */
  changed(id: string): void {
    this.upsert.run(id, ++this.state.counter, this.changedAt);
  }

  /** A grant removed. */
  removed(id: string): void {
    this.tombstone.run(id, ++this.state.counter, this.changedAt);
  }

  /**
   * A reindex: `building` is about to replace `live`. Grants added, changed by content (their
   * served document differs) or without an entry yet get new sequences, in source order; grants
   * of the log that the new catalog lacks get tombstones; unchanged grants keep theirs.
   */
  reindexed(live: string, building: string): void {
    const base = this.state.counter;
    const changed = this.db
      .prepare(
        `INSERT INTO grant_changes (id, seq, deleted, changed_at)
         SELECT b.id, ? + row_number() OVER (ORDER BY b.rowid), 0, ?
         FROM ${building} b LEFT JOIN ${live} g ON g.id = b.id LEFT JOIN grant_changes c ON c.id = b.id
         WHERE c.id IS NULL OR c.deleted = 1 OR g.doc IS NULL OR g.doc <> b.doc
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, deleted = 0, changed_at = excluded.changed_at`,
      )
      .run(base, this.changedAt).changes;
    this.state.counter = base + changed;
    const gone = this.db
      .prepare(
        `WITH gone AS (
           SELECT id, row_number() OVER (ORDER BY id) AS n FROM grant_changes
           WHERE deleted = 0 AND NOT EXISTS (SELECT 1 FROM ${building} b WHERE b.id = grant_changes.id))
         UPDATE grant_changes SET seq = ? + gone.n, deleted = 1, changed_at = ? FROM gone WHERE gone.id = grant_changes.id`,
      )
      .run(this.state.counter, this.changedAt).changes;
    this.state.counter += gone;
  }

  /**
   * Drops the tombstones older than the retention and raises the horizon past them; writes the
   * counter, and the log id on the log's first write.
   */
  finish(retentionMs: number, now: Date): void {
    const cutoff = new Date(now.getTime() - retentionMs).toISOString();
    const dropped = this.db.prepare('SELECT max(seq) FROM grant_changes WHERE deleted = 1 AND changed_at < ?').pluck().get(cutoff) as number | null;
    if (dropped !== null) {
      this.db.prepare('DELETE FROM grant_changes WHERE deleted = 1 AND changed_at < ?').run(cutoff);
      this.state.horizon = Math.max(this.state.horizon, dropped);
    }
    const set = this.db.prepare('INSERT INTO catalog_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    if (this.state.log === null) set.run(KEYS.log, (this.state.log = newChangeLogId()));
    set.run(KEYS.counter, String(this.state.counter));
    set.run(KEYS.horizon, String(this.state.horizon));
  }
}

/** Reads one page of the feed: the state, then up to limit + 1 entries after `afterSeq`, with the live grants' documents. */
export class ChangeLogReader {
  private readonly page;

  constructor(private readonly db: Db) {
    this.page = db
      .prepare(
        `SELECT c.seq, c.id, c.deleted, c.changed_at, g.doc FROM grant_changes c LEFT JOIN grants g ON g.id = c.id
         WHERE c.seq > ? AND (c.deleted = 1 OR g.doc IS NOT NULL) ORDER BY c.seq LIMIT ?`,
      )
      .raw();
  }

  /** Call inside one read transaction, so the state, the entries and the documents are one snapshot. */
  read(afterSeq: number, limit: number): ChangesPage {
    const state = readChangeLogState(this.db);
    const rows = this.page.all(afterSeq, limit + 1) as [number, string, number, string, string | null][];
    const entries: ChangeEntryJson[] = rows.map(([seq, id, deleted, changedAt, doc]) => ({
      seq,
      id,
      deleted: deleted === 1,
      changedAt,
      grantJson: deleted === 1 ? null : doc,
    }));
    return { state, entries };
  }
}
