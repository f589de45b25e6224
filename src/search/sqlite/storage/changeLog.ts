// The embedded catalog's change log: one row per grant id (its last change) beside the catalog
// tables in the same file, outside the tables a reindex swaps, so it survives every swap. The
// writer records changes in the transaction that makes them visible; the engine reads a page of
// it and the grants' documents in one snapshot. Each change that adds, updates or removes a grant
// also records a version of it (grant_versions, by id and sequence), read newest first as its history.
import {
  versionOf,
  type FieldChange,
  type GrantVersion,
  type HistoryPage,
  type VersionType,
} from '../../../grants/history.js';
import type { Grant } from '../../../grants/schema.js';
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
CREATE UNIQUE INDEX IF NOT EXISTS grant_changes_seq ON grant_changes (seq);
CREATE TABLE IF NOT EXISTS grant_versions (
  id         TEXT    NOT NULL,
  seq        INTEGER NOT NULL,   -- the change log's sequence of the change
  type       TEXT    NOT NULL,   -- created | updated | deleted
  changed_at TEXT    NOT NULL,   -- ISO 8601 UTC with milliseconds
  changes    TEXT,               -- an update's FieldChange[] as JSON; NULL otherwise
  PRIMARY KEY (id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS grant_versions_changed_at ON grant_versions (changed_at);`;

/**
 * Brings a change log written before versions were kept up to date: the `changes` column of its
 * entries (the fields the entry's change updated). In the caller's connection, once per open.
 */
export function upgradeChangeLog(db: Db): void {
  const columns = () => db.prepare("SELECT name FROM pragma_table_info('grant_changes')").pluck().all() as string[];
  if (columns().includes('changes')) return;
  db.transaction(() => {
    if (!columns().includes('changes')) db.exec('ALTER TABLE grant_changes ADD COLUMN changes TEXT');
  }).immediate();
}

const parsed = (doc: string | null | undefined): Grant | null =>
  doc === null || doc === undefined ? null : (JSON.parse(doc) as Grant);

/** Rows of a reindex's changed grants read at a time. */
const REINDEX_PAGE = 1000;

const KEYS = { log: 'changes_log', counter: 'changes_counter', horizon: 'changes_horizon' } as const;

/** The log's state (in the caller's snapshot or transaction). */
function readChangeLogState(db: Db): ChangeLogState {
  const meta = (key: string) =>
    db.prepare('SELECT value FROM catalog_meta WHERE key = ?').pluck().get(key) as string | undefined;
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
  private readonly version;

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
           SELECT id, ? + row_number() OVER (ORDER BY rowid), 0, ? FROM grants WHERE id NOT IN (SELECT id FROM
             grant_changes)`,
        )
        .run(this.state.counter, this.changedAt).changes;
    }
    this.upsert = db.prepare(
      `INSERT INTO grant_changes (id, seq, deleted, changed_at, changes) VALUES (?, ?, 0, ?, ?)
       ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, deleted = 0, changed_at = excluded.changed_at, changes =
         excluded.changes`,
    );
    this.tombstone = db.prepare(
      `INSERT INTO grant_changes (id, seq, deleted, changed_at, changes) VALUES (?, ?, 1, ?, NULL)
       ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, deleted = 1, changed_at = excluded.changed_at, changes =
         NULL`,
    );
    this.version = db.prepare('INSERT INTO grant_versions (id, seq, type, changed_at, changes) VALUES (?, ?, ?, ?, ?)');
  }

  /**
   * Records the version a change made (none when the grant's content did not change); the JSON of an update's changes.
   */
  private record(id: string, seq: number, type: VersionType, changes: FieldChange[] | null): string | null {
    const json = changes === null ? null : JSON.stringify(changes);
    this.version.run(id, seq, type, this.changedAt, json);
    return json;
  }

  /** A grant added or changed: its document before (null: the catalog did not hold it) and after, as JSON text. */
  changed(id: string, beforeDoc: string | null, afterDoc: string): void {
    const seq = ++this.state.counter;
    const version = beforeDoc === afterDoc ? null : versionOf(parsed(beforeDoc), parsed(afterDoc));
    const changes = version === null ? null : this.record(id, seq, version.type, version.changes);
    this.upsert.run(id, seq, this.changedAt, changes);
  }

  /** A grant removed. */
  removed(id: string): void {
    const seq = ++this.state.counter;
    this.record(id, seq, 'deleted', null);
    this.tombstone.run(id, seq, this.changedAt);
  }

  /**
   * A reindex: `building` is about to replace `live`. Grants added, changed by content (their
   * served document differs) or without an entry yet get new sequences, in source order, and a
   * version each when they were added or changed; grants of the log that the new catalog lacks get
   * tombstones (and a deleted version); unchanged grants keep theirs.
   */
  reindexed(live: string, building: string): void {
    // In pages of the build's rowids: a page is read whole before its entries are written.
    const page = this.db
      .prepare(
        `SELECT b.rowid, b.id, b.doc, g.doc FROM ${building} b LEFT JOIN ${live} g ON g.id = b.id LEFT JOIN
          grant_changes c ON c.id = b.id
       WHERE b.rowid > ? AND (c.id IS NULL OR c.deleted = 1 OR g.doc IS NULL OR g.doc <> b.doc) ORDER BY b.rowid LIMIT
         ${REINDEX_PAGE}`,
      )
      .raw();
    for (let after = 0; ;) {
      const rows = page.all(after) as [number, string, string, string | null][];
      for (const [, id, doc, before] of rows) this.changed(id, before, doc);
      if (rows.length < REINDEX_PAGE) break;
      after = rows[rows.length - 1][0];
    }
    const gone = this.db
      .prepare(
        `SELECT id FROM grant_changes WHERE deleted = 0 AND NOT EXISTS (SELECT 1 FROM ${building} b WHERE ` +
          `b.id = grant_changes.id) ORDER BY id`,
      )
      .pluck()
      .all() as string[];
    for (const id of gone) this.removed(id);
  }

  /**
   * Drops the versions older than the history's retention, and the tombstones older than the
   * feed's, raising the horizon past them; writes the counter, and the log id on the log's first write.
   */
  finish(retentionMs: number, now: Date, historyRetentionMs: number): void {
    this.db
      .prepare('DELETE FROM grant_versions WHERE changed_at < ?')
      .run(new Date(now.getTime() - historyRetentionMs).toISOString());
    const cutoff = new Date(now.getTime() - retentionMs).toISOString();
    const dropped = this.db
      .prepare('SELECT max(seq) FROM grant_changes WHERE deleted = 1 AND changed_at < ?')
      .pluck()
      .get(cutoff) as number | null;
    if (dropped !== null) {
      this.db.prepare('DELETE FROM grant_changes WHERE deleted = 1 AND changed_at < ?').run(cutoff);
      this.state.horizon = Math.max(this.state.horizon, dropped);
    }
    const set = this.db.prepare(
      'INSERT INTO catalog_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    if (this.state.log === null) set.run(KEYS.log, (this.state.log = newChangeLogId()));
    set.run(KEYS.counter, String(this.state.counter));
    set.run(KEYS.horizon, String(this.state.horizon));
  }
}

/**
 * Reads one page of the feed: the state, then up to limit + 1 entries after `afterSeq`, with the live grants'
 * documents.
 */
export class ChangeLogReader {
  private readonly page;

  constructor(private readonly db: Db) {
    this.page = db
      .prepare(
        `SELECT c.seq, c.id, c.deleted, c.changed_at, g.doc, c.changes FROM grant_changes c LEFT JOIN grants g ON g.id
          = c.id
         WHERE c.seq > ? AND (c.deleted = 1 OR g.doc IS NOT NULL) ORDER BY c.seq LIMIT ?`,
      )
      .raw();
  }

  /** Call inside one read transaction, so the state, the entries and the documents are one snapshot. */
  read(afterSeq: number, limit: number): ChangesPage {
    const state = readChangeLogState(this.db);
    const rows = this.page.all(afterSeq, limit + 1) as [number, string, number, string, string | null, string | null][];
    const entries: ChangeEntryJson[] = rows.map(([seq, id, deleted, changedAt, doc, changes]) => ({
      seq,
      id,
      deleted: deleted === 1,
      changedAt,
      grantJson: deleted === 1 ? null : doc,
      changesJson: changes,
    }));
    return { state, entries };
  }
}

/** Reads one page of a grant's history, newest first. */
export class HistoryReader {
  private readonly page;
  private readonly live;

  constructor(db: Db) {
    this.page = db
      .prepare(
        'SELECT seq, changed_at, type, changes FROM grant_versions WHERE id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      )
      .raw();
    this.live = db.prepare('SELECT 1 FROM grants WHERE id = ?').pluck();
  }

  /** Call inside one read transaction: the versions before `beforeSeq` (null: from the newest), up to limit + 1. */
  read(id: string, beforeSeq: number | null, limit: number): HistoryPage {
    const rows = this.page.all(id, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit + 1) as [
      number,
      string,
      string,
      string | null,
    ][];
    const versions: GrantVersion[] = rows.map(([seq, changedAt, type, changes]) => ({
      seq,
      changedAt,
      type: type as VersionType,
      changes: changes === null ? null : (JSON.parse(changes) as FieldChange[]),
    }));
    // A grant whose versions are all past the cursor is still known: asked again from the newest.
    const known =
      versions.length > 0 ||
      this.live.get(id) !== undefined ||
      (beforeSeq !== null && this.page.all(id, Number.MAX_SAFE_INTEGER, 1).length > 0);
    return { known, versions };
  }
}
