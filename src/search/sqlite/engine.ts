// SqliteSearchEngine: the embedded default; executes what the translator writes.
import type Database from 'better-sqlite3';
import type { GrantQuery } from '../../grants/query.js';
import { BENEFICIARIES, PROVINCES } from '../../grants/schema.js';
import { transientAsUnavailable } from '../../sqliteFailures.js';
import type { FilterOptions, SearchEngine, SearchResultJson } from '../engine.js';
import { openCatalog, type Db } from './catalogFile.js';
import { preferSparsePage, translateToSqlite } from './translator.js';

const STATEMENT_CACHE_SIZE = 500;

const valuesOfBits = (bits: number, all: readonly string[]): string[] => all.filter((_, i) => (bits & (1 << i)) !== 0);

export class SqliteSearchEngine implements SearchEngine {
  readonly name = 'sqlite';
  private readonly statements = new Map<string, Database.Statement>();
  private filterCache: { version: number; options: FilterOptions } | null = null;
  private sizeCache: { version: number; size: number } | null = null;
  private readonly dataVersion: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  /** One read transaction, so the page and the total come from the same catalog. */
  private readonly pageAndTotal: Database.Transaction<(query: GrantQuery) => SearchResultJson>;

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.byId = db.prepare('SELECT doc FROM grants WHERE id = ?').pluck();
    this.begin = db.prepare('BEGIN DEFERRED');
    this.commit = db.prepare('COMMIT');
    this.pageAndTotal = db.transaction((query: GrantQuery): SearchResultJson => {
      const { page, sparsePage, count } = translateToSqlite(query);
      const { total } = this.statement(count.sql).get(...count.params) as { total: number };
      if (query.offset >= total) return { total, grantsJson: [] };
      const plan = sparsePage !== undefined && preferSparsePage(total, this.catalogSize(), query.offset, query.size) ? sparsePage : page;
      // The stored doc is the grant's JSON as served (written by JSON.stringify of the canonical grant).
      return { total, grantsJson: this.statement(plan.sql).pluck().all(...plan.params) as string[] };
    });
  }

  /** Grants in the catalog (for choosing a plan), counted again only after a change. */
  private catalogSize(): number {
    const version = this.dataVersion.get() as number;
    if (this.sizeCache?.version !== version) {
      this.sizeCache = { version, size: this.statement('SELECT count(*) FROM grants').pluck().get() as number };
    }
    return this.sizeCache.size;
  }

  static open(file: string): SqliteSearchEngine {
    return new SqliteSearchEngine(openCatalog(file));
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * The reads of one event-loop turn share one read transaction, opened by the first and ended at
   * the next check phase (setImmediate; for reads made inside a check phase, as the requests the
   * allowance's group commit releases are, that of the next loop iteration): one snapshot of the
   * catalog per turn instead of one per statement, so a busy server begins and ends far fewer
   * transactions. A snapshot lasts about one loop iteration, and a new catalog (the indexer's
   * swap, on its own connection, never blocked by readers in WAL mode) is seen from the next.
   */
  private openTurnSnapshot(): void {
    if (this.db.inTransaction) return;
    this.begin.run();
    setImmediate(this.endTurnSnapshot);
  }

  private readonly endTurnSnapshot = (): void => {
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

  /** Runs a read; store failures a retry may cure become ServiceUnavailableError. */
  private read<T>(work: () => T): Promise<T> {
    try {
      this.openTurnSnapshot();
      return Promise.resolve(work());
    } catch (error) {
      throw transientAsUnavailable(error, 'catalog');
    }
  }

  searchJson(query: GrantQuery): Promise<SearchResultJson> {
    return this.read(() => this.pageAndTotal.deferred(query));
  }

  getByIdJson(id: string): Promise<string | null> {
    return this.read(() => (this.byId.get(id) as string | undefined) ?? null);
  }

  filterOptions(): Promise<FilterOptions> {
    return this.read(() => {
      const version = this.dataVersion.get() as number;
      if (this.filterCache?.version === version) return this.filterCache.options;
      const options = this.db.transaction(() => {
        const distinct = (column: string) =>
          this.statement(`SELECT DISTINCT ${column} FROM grants ORDER BY 1`).pluck().all() as string[];
        const union = (column: string) =>
          (this.statement(`SELECT DISTINCT ${column} FROM grants`).pluck().all() as number[]).reduce((a, b) => a | b, 0);
        const sorted = (values: string[]) => [...values].sort();
        return {
          funderTypes: distinct('funder_type'),
          fundingTypes: distinct('funding_type'),
          eligibleProvinces: sorted(valuesOfBits(union('provinces'), PROVINCES)),
          targetBeneficiaries: sorted(valuesOfBits(union('beneficiaries'), BENEFICIARIES)),
          currencies: distinct('currency'),
        };
      }).deferred();
      this.filterCache = { version, options };
      return options;
    });
  }

  count(): Promise<number> {
    return this.read(() => this.statement('SELECT count(*) FROM grants').pluck().get() as number);
  }

  async isEmpty(): Promise<boolean> {
    return (await this.count()) === 0;
  }

  async close(): Promise<void> {
    this.endTurnSnapshot();
    this.statements.clear();
    this.db.close();
  }
}
