// SqliteSearchEngine: the embedded default. The text hits and their bm25 scores come from term
// statistics held in memory (textIndex.ts, bm25.ts; FTS5 itself for words its tokenizer splits);
// the in-memory columns (columns.ts) filter, count, facet and order them; SQLite serves the page's
// documents.
import Database from 'better-sqlite3';
import { ServiceUnavailableError } from '../../../failures.js';
import { FACET_VALUES, type GrantQuery } from '../../../grants/query.js';
import type { SearchTerm } from '../../../grants/searchSyntax.js';
import { transientAsUnavailable } from '../../../sqliteFailures.js';
import type { FilterOptions, GrantExport, SearchEngine, SearchResultJson } from '../../engine.js';
import { countBits, hasBit, intersection, type Bits } from '../index/bitset.js';
import { buildOf, openCatalog, openCatalogReadOnly, type Db } from '../storage/catalogFile.js';
import { filterConditions, searchColumns, type Condition, type TextHits } from '../collect/columnSearch.js';
import { CatalogColumns } from '../index/columns.js';
import type { ChangesPage } from '../../changes.js';
import { ChangeLogReader } from '../storage/changeLog.js';
import { exportFromSnapshot } from '../storage/export.js';
import { keysetSearch } from '../collect/keyset.js';
import { BM25_WEIGHTS, ftsMatchExpression } from '../query/translator.js';
import { intersectPostings, keepPositions, scoreAll, subtractPositions, type Postings, type TextStatistics } from '../query/bm25.js';
import { QueryTerms } from '../query/queryTerms.js';
import { TextIndex } from '../index/textIndex.js';
import type { SharedIndex } from '../index/sharedIndex.js';

/** Below this share of the catalog, a filter is checked on each text hit before bm25 scores it. */
const PREFILTER_SHARE = 0.7;

/** The columns of one catalog, and what identifies that catalog. */
interface LoadedColumns {
  /** The writer's build id of the catalog (null for a catalog no writer of this version wrote). */
  build: string | null;
  /** The connection's PRAGMA data_version when the build id was last checked. */
  dataVersion: number;
  columns: CatalogColumns;
  /** The text statistics of the same build, read on the first text search. */
  text: TextIndex | null;
}

/**
 * The words of a query answered from the in-memory postings: each word's postings, and the
 * grants holding them all and no excluded word.
 */
interface WordsInMemory {
  postings: Postings[];
  /** Whether an excluded word left out some of the grants holding every word. */
  excludes: boolean;
  stats: TextStatistics;
  hits: Int32Array;
}

/** No hit: a search with no clause (nothing to find). */
const NO_TEXT_HITS = (relevance: boolean): TextHits => ({
  positions: new Int32Array(0),
  scored: relevance ? { positions: new Int32Array(0), scores: new Float64Array(0) } : null,
});

export class SqliteSearchEngine implements SearchEngine {
  readonly name = 'sqlite';
  private loaded: LoadedColumns | null = null;
  /** Pinned to one build (a search worker's engine): one read transaction for its life, the index shared. */
  private pinnedBuild = false;
  /** Whether this turn's snapshot has been matched to the columns already. */
  private columnsCheckedThisTurn = false;
  private readonly dataVersion: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly countAll: Database.Statement;
  private readonly docByRowid: Database.Statement;
  private readonly idByRowid: Database.Statement;
  private readonly firstRowidAfterId: Database.Statement;
  private readonly scoredHits: Database.Statement;
  private readonly hits: Database.Statement;
  private readonly scoredFilteredHits: Database.Statement;
  /** The bit set grants_prefilter() checks hits against, set only while scoredFilteredHits runs. */
  private prefilter: { columns: CatalogColumns; bits: Bits } | null = null;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly queryTerms = new QueryTerms();
  /** The filter options of each build's columns (dropped with them). */
  private readonly filterOptionsOf = new WeakMap<CatalogColumns, FilterOptions>();
  private readonly changeLog: ChangeLogReader;

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.byId = db.prepare('SELECT doc FROM grants WHERE id = ?').pluck();
    this.countAll = db.prepare('SELECT count(*) FROM grants').pluck();
    this.docByRowid = db.prepare('SELECT doc FROM grants WHERE rowid = ?').pluck();
    this.idByRowid = db.prepare('SELECT id FROM grants WHERE rowid = ?').pluck();
    this.firstRowidAfterId = db.prepare('SELECT rowid FROM grants WHERE id > ? ORDER BY id LIMIT 1').pluck();
    this.scoredHits = db.prepare(`SELECT rowid, bm25(grants_text, ${BM25_WEIGHTS.join(', ')}) FROM grants_text WHERE grants_text MATCH ?`).raw();
    this.hits = db.prepare('SELECT rowid FROM grants_text WHERE grants_text MATCH ?').pluck();
    // Evaluated by SQLite before the result columns, so a hit it rejects is never scored.
    db.function('grants_prefilter', { deterministic: false, varargs: false }, (rowid: unknown) => {
      const prefilter = this.prefilter;
      if (prefilter === null) return 1;
      const position = prefilter.columns.positionOf(rowid as number);
      return position >= 0 && hasBit(prefilter.bits, position) ? 1 : 0;
    });
    this.scoredFilteredHits = db
      .prepare(`SELECT rowid, bm25(grants_text, ${BM25_WEIGHTS.join(', ')}) FROM grants_text WHERE grants_text MATCH ? AND grants_prefilter(rowid)`)
      .raw();
    this.changeLog = new ChangeLogReader(db);
    this.begin = db.prepare('BEGIN DEFERRED');
    this.commit = db.prepare('COMMIT');
  }

  /**
   * The columns of the catalog this turn's snapshot sees. PRAGMA data_version (read inside the
   * snapshot) changes when another connection commits; then the writer's build id, written in
   * the same transaction as every reindex and sync, tells whether the catalog changed. A changed
   * catalog's columns are loaded from the same snapshot before any answer is given, so a page, its
   * total and its facets always come from one catalog; the old columns are dropped as a whole.
   */
  private currentColumns(): CatalogColumns {
    const loaded = this.loaded;
    if (loaded !== null && (this.columnsCheckedThisTurn || this.pinnedBuild)) return loaded.columns;
    const dataVersion = this.dataVersion.get() as number;
    if (loaded === null || loaded.dataVersion !== dataVersion) {
      const build = buildOf(this.db);
      if (loaded === null || build === null || build !== loaded.build) {
        this.loaded = { build, dataVersion, columns: CatalogColumns.load(this.db), text: null };
      } else {
        loaded.dataVersion = dataVersion;
      }
    }
    this.columnsCheckedThisTurn = true;
    return this.loaded!.columns;
  }

  /**
   * The text hits. A word FTS5's tokenizer splits into several terms (a phrase) is left to FTS5:
   * bm25 costs about ten times the match itself per hit, so only hits that
   * may be on the page are scored: with filters that leave out enough of the catalog to pay for the
   * check, a function rejects each hit outside them before it is scored. When a facet leaves its
   * own filter out of its count, its hits come from a second, unscored match.
   */
  private textHits(columns: CatalogColumns, query: GrantQuery, filters: Condition[], words: WordsInMemory | null): TextHits | null {
    if (query.search === null) return null;
    const match = ftsMatchExpression(query.search);
    if (match === null) return NO_TEXT_HITS(query.sort.key === 'relevance');
    if (words !== null) {
      // Every word is one term: the hits from the in-memory postings; for relevance, the scores of
      // those that meet the filters (the others are never on a page). An excluded word adds
      // nothing to FTS5's bm25 (it holds no instance in a hit), so the words' scores stand.
      if (query.sort.key !== 'relevance') return { positions: words.hits, scored: null };
      const accept = filters.length === 0 ? null : intersection(filters.map((c) => c.bits), columns.size);
      const scored = scoreAll(words.postings, words.stats, accept);
      return { positions: words.hits, scored: words.excludes ? keepPositions(scored, words.hits) : scored };
    }
    const positionsOf = (rowids: number[]) => Int32Array.from(rowids, (rowid) => columns.positionOf(rowid));
    if (query.sort.key !== 'relevance') return { positions: positionsOf(this.hits.all(match) as number[]), scored: null };
    const all = filters.length === 0 ? null : intersection(filters.map((c) => c.bits), columns.size);
    let rows: [number, number][];
    if (all !== null && countBits(all) < columns.size * PREFILTER_SHARE) {
      this.prefilter = { columns, bits: all };
      try {
        rows = this.scoredFilteredHits.all(match) as [number, number][];
      } finally {
        this.prefilter = null;
      }
    } else {
      rows = this.scoredHits.all(match) as [number, number][];
    }
    const scored = { positions: new Int32Array(rows.length), scores: new Float64Array(rows.length) };
    rows.forEach(([rowid, score], i) => {
      scored.positions[i] = columns.positionOf(rowid);
      scored.scores[i] = score;
    });
    const facetDropsAFilter = filters.some((c) => c.facet !== null && query.facets.includes(c.facet));
    return { positions: facetDropsAFilter ? positionsOf(this.hits.all(match) as number[]) : scored.positions, scored };
  }

  /**
   * The postings of the query's words and the grants holding them all but no excluded word, when
   * the search is one clause of single words (no phrase, no OR) and every word is one term (the
   * columns were checked against this turn's snapshot just before, so the postings are read from
   * their build); null without words or when the search is left to FTS5.
   */
  private wordsInMemory(columns: CatalogColumns, query: GrantQuery): WordsInMemory | null {
    const search = query.search;
    if (search === null || search.clauses.length !== 1) return null;
    const [clause] = search.clauses;
    const single = (terms: readonly SearchTerm[]) => terms.every((term) => term.words.length === 1);
    if (!single(clause.must) || !single(clause.not)) return null;
    const termsOf = (terms: readonly SearchTerm[]) => terms.map((term) => this.queryTerms.of(term.words[0]));
    const must = termsOf(clause.must);
    const not = termsOf(clause.not);
    if (!must.every((t) => t.length === 1) || !not.every((t) => t.length === 1)) return null;
    const loaded = this.loaded!;
    loaded.text ??= TextIndex.load(this.db, columns);
    const text = loaded.text;
    const postings = must.map(([term]) => text.postings(term));
    let hits = intersectPostings(postings);
    const all = hits.length;
    for (const [term] of not) hits = subtractPositions(hits, text.postings(term).positions);
    return { postings, excludes: hits.length < all, stats: text.stats, hits };
  }

  /** The first position whose id is above `id` (positions are in id order), from the id index; size when none. */
  private boundaryAfter(columns: CatalogColumns, id: string): number {
    const rowid = this.firstRowidAfterId.get(id) as number | undefined;
    if (rowid === undefined) return columns.size;
    const position = columns.positionOf(rowid);
    return position >= 0 ? position : columns.size;
  }

  /** A cursor page (keyset.ts): the matches after the cursor's place, and the place of its last grant when more follow. */
  private keysetPage(
    columns: CatalogColumns,
    query: GrantQuery,
    filters: Condition[],
    text: TextHits | null,
  ): { total: number; page: number[]; facets?: SearchResultJson['facets']; next: SearchResultJson['next'] } {
    const after = query.cursor?.after ?? null;
    const answer = keysetSearch(columns, query, filters, text, after, after === null ? 0 : this.boundaryAfter(columns, after.id));
    const next = answer.last === null ? null : { key: answer.last.key, id: this.idByRowid.get(columns.rowids[answer.last.position]) as string };
    return { total: answer.total, page: answer.page, facets: answer.facets, next };
  }

  private search(query: GrantQuery, reloaded = false): SearchResultJson {
    const columns = this.currentColumns();
    const words = this.wordsInMemory(columns, query);
    const filters = filterConditions(columns, query, words?.hits ?? null);
    const text = this.textHits(columns, query, filters, words);
    const answer = query.cursor ? this.keysetPage(columns, query, filters, text) : searchColumns(columns, query, filters, text);
    // The stored doc is the grant's JSON as served (written by JSON.stringify of the canonical grant).
    const grantsJson = answer.page.map((position) => this.docByRowid.get(columns.rowids[position]) as string | undefined);
    if (grantsJson.includes(undefined)) {
      // A row the columns hold is gone: the catalog changed without a new build id (a writer that
      // does not stamp one). Load the columns again from this snapshot and answer once more.
      if (reloaded || this.pinnedBuild) throw new ServiceUnavailableError('the catalog changed while its columns were read');
      this.loaded = null;
      return this.search(query, true);
    }
    const docs = grantsJson as string[];
    const result: SearchResultJson = answer.facets === undefined ? { total: answer.total, grantsJson: docs } : { total: answer.total, grantsJson: docs, facets: answer.facets };
    if ('next' in answer) result.next = answer.next as SearchResultJson['next'];
    return result;
  }

  static open(file: string): SqliteSearchEngine {
    return new SqliteSearchEngine(openCatalog(file));
  }

  /**
   * An engine that answers from a shared index (sharedIndex.ts) on a read-only connection held in
   * one read transaction on that index's build for the engine's life, so every answer comes from
   * that build however the catalog moves on (a search worker swaps to a new engine when the
   * loader reports a new build). Null when the catalog is past that build already.
   */
  static pinned(file: string, index: SharedIndex): SqliteSearchEngine | null {
    const db = openCatalogReadOnly(file);
    try {
      db.exec('BEGIN');
      if (buildOf(db) !== index.build) {
        db.exec('ROLLBACK');
        db.close();
        return null;
      }
      const engine = new SqliteSearchEngine(db);
      const columns = new CatalogColumns(index.columns, db);
      const text = TextIndex.over(db, columns, index.text);
      text.adoptPostings(index.postings);
      engine.loaded = { build: index.build, dataVersion: -1, columns, text };
      engine.pinnedBuild = true;
      return engine;
    } catch (error) {
      if (db.open) db.close();
      throw error;
    }
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
    if (this.db.inTransaction || this.pinnedBuild) return;
    this.begin.run();
    setImmediate(this.endTurnSnapshot);
  }

  private readonly endTurnSnapshot = (): void => {
    this.columnsCheckedThisTurn = false;
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
    return this.read(() => this.search(query));
  }

  /**
   * An export reads its own connection in one read transaction: one snapshot for the whole stream,
   * while this engine's turn snapshots move on. The engine's columns, or the shared index given,
   * serve it when they hold the same catalog build; otherwise the snapshot's columns are loaded.
   */
  async exportJson(query: GrantQuery, shared: SharedIndex | null = null): Promise<GrantExport> {
    const db = new Database(this.db.name, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      db.exec('BEGIN');
      const build = buildOf(db);
      const loaded = this.loaded;
      const columns =
        build !== null && shared !== null && shared.build === build
          ? new CatalogColumns(shared.columns, db)
          : build !== null && loaded !== null && loaded.build === build
            ? loaded.columns
            : CatalogColumns.load(db);
      return exportFromSnapshot(db, columns, query);
    } catch (error) {
      if (db.open) db.close();
      throw transientAsUnavailable(error, 'catalog');
    }
  }

  getByIdJson(id: string): Promise<string | null> {
    return this.read(() => (this.byId.get(id) as string | undefined) ?? null);
  }

  /** The feed's page and the log's state, from this turn's snapshot. */
  changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
    return this.read(() => this.changeLog.read(afterSeq, limit));
  }

  /** The values present in the catalog: those whose bit set is not empty (enum orders are alphabetical). */
  filterOptions(): Promise<FilterOptions> {
    return this.read(() => {
      const columns = this.currentColumns();
      // A function of the build alone: counted once per build, kept with its columns.
      let options = this.filterOptionsOf.get(columns);
      if (options === undefined) {
        const { valueBits } = columns;
        const present = (name: keyof typeof FACET_VALUES) => FACET_VALUES[name].filter((_, i) => countBits(valueBits[name][i]) > 0).sort();
        options = {
          funderTypes: present('funderType'),
          fundingTypes: present('fundingType'),
          eligibleProvinces: present('eligibleProvinces'),
          targetBeneficiaries: present('targetBeneficiaries'),
          currencies: present('currency'),
        };
        this.filterOptionsOf.set(columns, options);
      }
      return options;
    });
  }

  count(): Promise<number> {
    return this.read(() => this.countAll.get() as number);
  }

  async isEmpty(): Promise<boolean> {
    return (await this.count()) === 0;
  }

  async close(): Promise<void> {
    this.endTurnSnapshot();
    this.queryTerms.close();
    this.db.close();
  }
}
