// SqliteCatalogWriter: builds a new catalog beside the live one and swaps it in one transaction;
// syncs changes into the live catalog in one transaction. Readers always see a whole catalog.
import { statSync } from 'node:fs';
import { BENEFICIARIES, PROVINCES, type Grant } from '../../../grants/grant.js';
import {
  DEFAULT_CHANGE_LOG_OPTIONS,
  type ChangeLogOptions,
  type CatalogWriter,
  type ReindexOptions,
  SyncCounts,
  SyncItem,
  WriterHooks,
} from '../../engine.js';
import { bitsOf, catalogDdl, markNewBuild, newBuildId, openCatalog, tableExists, type Db } from './catalogFile.js';
import { ChangeRecorder, changeLogStatus } from './changeLog.js';
import {
  EARLIER_CATALOG,
  insertTextSql,
  insertWordsSql,
  TEXT_COLUMNS,
  textColumnsOf,
  WORD_COLUMNS,
  wordColumnsOf,
} from './textColumns.js';

const BATCH = 1000;

function rowOf(grant: Grant) {
  return {
    id: grant.id,
    funder_type: grant.funderType,
    funding_type: grant.fundingType,
    currency: grant.currency,
    provinces: bitsOf(grant.eligibleProvinces, PROVINCES),
    beneficiaries: bitsOf(grant.targetBeneficiaries, BENEFICIARIES),
    amount_min: grant.amountMin,
    amount_max: grant.amountMax,
    deadline: grant.deadline,
    updated_at: grant.updatedAt,
    doc: JSON.stringify(grant),
  };
}

const COLUMNS =
  'id, funder_type, funding_type, currency, provinces, beneficiaries, amount_min, amount_max, deadline, ' +
  'updated_at, doc';
const VALUES =
  ':id, :funder_type, :funding_type, :currency, :provinces, :beneficiaries, :amount_min, :amount_max, :deadline, ' +
  ':updated_at, :doc';

export class SqliteCatalogWriter implements CatalogWriter {
  constructor(
    private readonly db: Db,
    private readonly file: string,
    private readonly hooks: WriterHooks = {},
    private readonly changes: ChangeLogOptions = DEFAULT_CHANGE_LOG_OPTIONS,
  ) {}

  static open(
    file: string,
    hooks: WriterHooks = {},
    changes: ChangeLogOptions = DEFAULT_CHANGE_LOG_OPTIONS,
  ): SqliteCatalogWriter {
    return new SqliteCatalogWriter(openCatalog(file), file, hooks, changes);
  }

  private dropBuilding(): void {
    this.db.exec(
      'DROP TABLE IF EXISTS grants_building; DROP TABLE IF EXISTS grants_text_building; DROP TABLE IF EXISTS ' +
        'grants_words_building;',
    );
  }

  async reindex(grants: AsyncIterable<Grant>, options: ReindexOptions = {}): Promise<{ indexed: number }> {
    const build = newBuildId();
    this.dropBuilding();
    this.db.exec(catalogDdl('_building', build));
    const insert = this.db.prepare(`INSERT OR IGNORE INTO grants_building (${COLUMNS}) VALUES (${VALUES})`);
    const insertText = this.db.prepare(insertTextSql('grants_text_building'));
    const insertWords = this.db.prepare(insertWordsSql('grants_words_building'));
    let indexed = 0;
    const flush = this.db.transaction((batch: Grant[]) => {
      for (const grant of batch) {
        const result = insert.run(rowOf(grant));
        if (result.changes === 0) {
          this.hooks.onDuplicate?.(grant);
          continue;
        }
        insertText.run(result.lastInsertRowid, ...textColumnsOf(grant));
        insertWords.run(result.lastInsertRowid, ...wordColumnsOf(grant));
        indexed += 1;
      }
    });
    try {
      let batch: Grant[] = [];
      for await (const grant of grants) {
        batch.push(grant);
        if (batch.length >= BATCH) {
          flush(batch);
          batch = [];
          options.onProgress?.(indexed);
        }
      }
      flush(batch);
      options.onProgress?.(indexed);
      this.hooks.beforeCommit?.({
        live: this.db.prepare('SELECT count(*) FROM grants').pluck().get() as number,
        after: indexed,
      });
      this.db
        .transaction(() => {
          const now = this.changes.clock();
          const recorder = new ChangeRecorder(this.db, now);
          recorder.reindexed('grants', 'grants_building');
          recorder.finish(this.changes.retentionMs, now, this.changes.historyRetentionMs);
          this.db
            .exec(`DROP TABLE IF EXISTS grants; DROP TABLE IF EXISTS grants_text; DROP TABLE IF EXISTS grants_words;
          ALTER TABLE grants_building RENAME TO grants; ALTER TABLE grants_text_building RENAME TO grants_text;
          ALTER TABLE grants_words_building RENAME TO grants_words;`);
          this.stamp('last_reindex_at');
          markNewBuild(this.db, build);
        })
        .immediate();
    } catch (error) {
      this.dropBuilding();
      throw error;
    }
    return { indexed };
  }

  async sync(items: AsyncIterable<SyncItem>, options: { prune: boolean }): Promise<SyncCounts> {
    const counts: SyncCounts = { added: 0, updated: 0, unchanged: 0, deleted: 0 };
    const db = this.db;
    const columnsOf = (table: string) =>
      db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
    const textColumns = columnsOf('grants_text');
    const wordColumns = columnsOf('grants_words');
    if (
      !TEXT_COLUMNS.every((column) => textColumns.includes(column)) ||
      !WORD_COLUMNS.every((column) => wordColumns.includes(column))
    ) {
      throw new Error(EARLIER_CATALOG);
    }
    // valid = 0: only a rejected record had this id (protected from pruning, not yet applied).
    db.exec(
      'CREATE TEMP TABLE IF NOT EXISTS sync_seen (id TEXT PRIMARY KEY, valid INTEGER NOT NULL); DELETE FROM ' +
        'temp.sync_seen;',
    );
    const seeRejected = db.prepare('INSERT OR IGNORE INTO temp.sync_seen (id, valid) VALUES (?, 0)');
    const seeValid = db.prepare(
      'INSERT INTO temp.sync_seen (id, valid) VALUES (?, 1) ON CONFLICT (id) DO UPDATE SET valid = 1 WHERE valid = 0',
    );
    const existing = db.prepare('SELECT rowid, updated_at, doc FROM grants WHERE id = ?');
    const insert = db.prepare(`INSERT INTO grants (${COLUMNS}) VALUES (${VALUES})`);
    const update = db.prepare(`UPDATE grants SET (${COLUMNS}) = (${VALUES}) WHERE rowid = :rowid`);
    const insertText = db.prepare(insertTextSql('grants_text'));
    const insertWords = db.prepare(insertWordsSql('grants_words'));
    // An FTS5 row is replaced whole: deleted, then inserted under the same rowid.
    const removeText = db.prepare('DELETE FROM grants_text WHERE rowid = ?');
    const removeWords = db.prepare('DELETE FROM grants_words WHERE rowid = ?');
    db.exec('BEGIN IMMEDIATE');
    try {
      const now = this.changes.clock();
      const recorder = new ChangeRecorder(db, now);
      for await (const item of items) {
        if (!('grant' in item)) {
          if (item.rejectedId !== null) seeRejected.run(item.rejectedId);
          continue;
        }
        const { grant } = item;
        if (seeValid.run(grant.id).changes === 0) {
          this.hooks.onDuplicate?.(grant);
          continue;
        }
        const row = existing.get(grant.id) as { rowid: number; updated_at: string; doc: string } | undefined;
        if (row === undefined) {
          const values = rowOf(grant);
          const result = insert.run(values);
          insertText.run(result.lastInsertRowid, ...textColumnsOf(grant));
          insertWords.run(result.lastInsertRowid, ...wordColumnsOf(grant));
          recorder.changed(grant.id, null, values.doc);
          counts.added += 1;
        } else if (row.updated_at !== grant.updatedAt) {
          const values = rowOf(grant);
          update.run({ rowid: row.rowid, ...values });
          removeText.run(row.rowid);
          insertText.run(row.rowid, ...textColumnsOf(grant));
          removeWords.run(row.rowid);
          insertWords.run(row.rowid, ...wordColumnsOf(grant));
          recorder.changed(grant.id, row.doc, values.doc);
          counts.updated += 1;
        } else {
          counts.unchanged += 1;
        }
      }
      if (options.prune) {
        const gone = db
          .prepare('SELECT rowid, id FROM grants WHERE id NOT IN (SELECT id FROM temp.sync_seen)')
          .all() as { rowid: number; id: string }[];
        const remove = db.prepare('DELETE FROM grants WHERE rowid = ?');
        for (const { rowid, id } of gone) {
          removeText.run(rowid);
          removeWords.run(rowid);
          remove.run(rowid);
          recorder.removed(id);
        }
        counts.deleted = gone.length;
      }
      const after = db.prepare('SELECT count(*) FROM grants').pluck().get() as number;
      this.hooks.beforeCommit?.({ live: after - counts.added + counts.deleted, after });
      recorder.finish(this.changes.retentionMs, now, this.changes.historyRetentionMs);
      this.stamp('last_sync_at');
      if (counts.added + counts.updated + counts.deleted > 0) markNewBuild(db, newBuildId());
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    } finally {
      db.exec('DELETE FROM temp.sync_seen');
    }
    return counts;
  }

  /** Records when the catalog last changed this way (in the caller's transaction). */
  private stamp(key: 'last_reindex_at' | 'last_sync_at'): void {
    this.db
      .prepare(
        'INSERT INTO catalog_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, new Date().toISOString());
  }

  async status(): Promise<Record<string, unknown>> {
    const count = tableExists(this.db, 'grants')
      ? (this.db.prepare('SELECT count(*) FROM grants').pluck().get() as number)
      : 0;
    const meta = (key: string) =>
      (this.db.prepare('SELECT value FROM catalog_meta WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
    // The catalog's true size: the file and its write-ahead log, which holds the recent changes until a checkpoint.
    const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    const walBytes = size(`${this.file}-wal`);
    return {
      engine: 'sqlite',
      file: this.file,
      grants: count,
      lastReindexAt: meta('last_reindex_at'),
      lastSyncAt: meta('last_sync_at'),
      bytes: size(this.file) + walBytes,
      walBytes,
      changes: changeLogStatus(this.db),
    };
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
