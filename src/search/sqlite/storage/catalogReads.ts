// The catalog's rows as the engine reads them on its connection, within whatever snapshot that
// connection has open: documents by rowid or id, ids and titles by rowid, the first rowid after
// an id in id order, and the row count. Statements prepared once.
import type { Db } from './catalogFile.js';

export class CatalogReads {
  private readonly docByRowid;
  private readonly docById;
  private readonly idByRowid;
  private readonly titleByRowid;
  private readonly firstRowidAfterId;
  private readonly countAll;

  constructor(db: Db) {
    this.docByRowid = db.prepare('SELECT doc FROM grants WHERE rowid = ?').pluck();
    this.docById = db.prepare('SELECT doc FROM grants WHERE id = ?').pluck();
    this.idByRowid = db.prepare('SELECT id FROM grants WHERE rowid = ?').pluck();
    this.titleByRowid = db.prepare("SELECT json_extract(doc, '$.title') FROM grants WHERE rowid = ?").pluck();
    this.firstRowidAfterId = db.prepare('SELECT rowid FROM grants WHERE id > ? ORDER BY id LIMIT 1').pluck();
    this.countAll = db.prepare('SELECT count(*) FROM grants').pluck();
  }

  /** The stored document (the grant's JSON as served), or undefined when the row is gone. */
  doc(rowid: number): string | undefined {
    return this.docByRowid.get(rowid) as string | undefined;
  }

  docOf(id: string): string | undefined {
    return this.docById.get(id) as string | undefined;
  }

  id(rowid: number): string | undefined {
    return this.idByRowid.get(rowid) as string | undefined;
  }

  title(rowid: number): string | undefined {
    return this.titleByRowid.get(rowid) as string | undefined;
  }

  /** The rowid of the first grant whose id is above `id`, from the id index; undefined when none. */
  firstAfter(id: string): number | undefined {
    return this.firstRowidAfterId.get(id) as number | undefined;
  }

  count(): number {
    return this.countAll.get() as number;
  }
}
