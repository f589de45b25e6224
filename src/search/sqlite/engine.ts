// SqliteSearchEngine: the embedded default; executes what the translator writes.
import type Database from 'better-sqlite3';
import type { GrantQuery } from '../../grants/query.js';
import { BENEFICIARIES, PROVINCES, type Grant } from '../../grants/schema.js';
import { ServiceUnavailableError } from '../../http/errors.js';
import type { FilterOptions, SearchEngine, SearchResult } from '../engine.js';
import { openCatalog, type Db } from './catalogFile.js';
import { translateToSqlite } from './translator.js';

const STATEMENT_CACHE_SIZE = 500;
const UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_FULL']);

const valuesOfBits = (bits: number, all: readonly string[]): string[] => all.filter((_, i) => (bits & (1 << i)) !== 0);

export class SqliteSearchEngine implements SearchEngine {
  readonly name = 'sqlite';
  private readonly statements = new Map<string, Database.Statement>();
  private filterCache: { version: number; options: FilterOptions } | null = null;

  constructor(private readonly db: Db) {}

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

  /** Runs a read; store failures a retry may cure become ServiceUnavailableError. */
  private read<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (UNAVAILABLE.has(code) || [...UNAVAILABLE].some((c) => code.startsWith(`${c}_`))) {
        throw new ServiceUnavailableError(`catalog unavailable: ${code}`, 1);
      }
      throw error;
    }
  }

  search(query: GrantQuery): Promise<SearchResult> {
    return this.read(() => {
      const { page, count } = translateToSqlite(query);
      // One read transaction, so the page and the total come from the same catalog.
      return this.db.transaction(() => {
        const { total } = this.statement(count.sql).get(...count.params) as { total: number };
        const rows = query.offset < total ? (this.statement(page.sql).pluck().all(...page.params) as string[]) : [];
        return { total, grants: rows.map((doc) => JSON.parse(doc) as Grant) };
      }).deferred();
    });
  }

  getById(id: string): Promise<Grant | null> {
    return this.read(() => {
      const doc = this.statement('SELECT doc FROM grants WHERE id = ?').pluck().get(id) as string | undefined;
      return doc === undefined ? null : (JSON.parse(doc) as Grant);
    });
  }

  filterOptions(): Promise<FilterOptions> {
    return this.read(() => {
      const version = this.db.pragma('data_version', { simple: true }) as number;
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

  async close(): Promise<void> {
    this.statements.clear();
    this.db.close();
  }
}
