// SqliteSearchEngine: the embedded default. A read opens the snapshot its mode gives
// (runtime/snapshots.ts: one per event-loop turn following the catalog, or one build pinned for a
// search worker) and takes that build's in-memory index; the text hits and their bm25 scores come
// from query/textHitFinder.ts (in-memory postings; FTS5 itself for words its tokenizer splits), the
// columns filter, count, facet and order them (query/, collect/), and SQLite serves the page's
// documents (storage/catalogReads.ts).
import Database from 'better-sqlite3';
import { ServiceUnavailableError } from '../../../failures.js';
import { FACET_VALUES, type GrantQuery, type StoredFacetName } from '../../../grants/query.js';
import { transientAsUnavailable } from '../../../sqliteFailures.js';
import type { ChangesPage } from '../../changes.js';
import type { HistoryPage } from '../../../grants/history.js';
import type { FilterOptions, GrantExport, WordCount, SearchEngine, SearchResultJson } from '../../engine.js';
import { keysetSearch } from '../collect/keyset.js';
import { offsetPage, type ColumnAnswer } from '../collect/offsetPage.js';
import { countBits } from '../index/bitset.js';
import { CatalogColumns } from '../index/columns.js';
import type { Postings } from '../index/postings.js';
import type { SharedIndex } from '../index/sharedIndex.js';
import { MatchedGrants } from '../index/suggestIndex.js';
import { WordDictionary } from '../index/wordDictionary.js';
import { prepareSearch, suggestionFor, wordNeighbours, type Lexicon } from '../../typoSearch.js';
import { suggestionsFrom, type SuggestRequest } from '../../suggestSearch.js';
import type { SuggestItem } from '../../../grants/suggest.js';
import { matchesOf } from '../query/filters.js';
import { Deadline } from '../../deadline.js';
import type { Neighbour } from '../../../grants/typos.js';
import type { Condition } from '../query/filters.js';
import { QueryTerms } from '../query/queryTerms.js';
import type { TextHits } from '../query/textHits.js';
import { TextHitFinder, wordTerms } from '../query/textHitFinder.js';
import { buildOf, openCatalog, type Db } from '../storage/catalogFile.js';
import { CatalogReads } from '../storage/catalogReads.js';
import { ChangeLogReader, HistoryReader } from '../storage/changeLog.js';
import { exportFromSnapshot } from '../storage/export.js';
import { PinnedSnapshot, TurnSnapshots, type BuildIndex, type CatalogSnapshots } from './snapshots.js';

type PageAnswer = ColumnAnswer & { next?: SearchResultJson['next'] };

/**
 * The typo lexicon (search/typoSearch.ts) of a build's word dictionary, read on first use: it
 * answers at once, the deadline checked before each word's walk.
 */
const dictionaryLexicon = (dictionary: () => WordDictionary, deadline: Deadline = Deadline.NONE): Lexicon => ({
  neighbours: async (words, budget) =>
    new Map(
      words.map((word) => {
        deadline.check();
        return [word, dictionary().neighbours(word, budget(word))];
      }),
    ),
  docs: async (words) => new Map(words.map((word) => [word, dictionary().docsOf(word)])),
});

/**
 * Whether the dictionary holds `word` as written in more than `atMost` grants: a search of it
 * matches at least those, so wordTotals answers that count without the search.
 */
const knownPast = (words: WordDictionary, word: string, atMost: number): boolean => words.docsOf(word) > atMost;

export class SqliteSearchEngine implements SearchEngine {
  readonly name = 'sqlite';
  private readonly reads: CatalogReads;
  private readonly textHits: TextHitFinder;
  private readonly queryTerms = new QueryTerms();
  /** The filter options of each build's columns (dropped with them). */
  private readonly filterOptionsOf = new WeakMap<CatalogColumns, FilterOptions>();
  private readonly changeLog: ChangeLogReader;
  private readonly history: HistoryReader;
  /**
   * The word dictionary read for typoNeighbours when no index of the build is held (the main thread of a pooled
   * engine).
   */
  private ownWords: { build: string | null; words: WordDictionary } | null = null;

  /** An engine on `db` whose reads see the catalog as `snapshots` opens it. */
  constructor(
    private readonly db: Db,
    private readonly snapshots: CatalogSnapshots,
    /** The budget of a search asked without a deadline (SEARCH_TIMEOUT_MS, on the event loop); absent: none. */
    private readonly searchTimeoutMs?: number,
  ) {
    this.reads = new CatalogReads(db);
    this.textHits = new TextHitFinder(db);
    this.changeLog = new ChangeLogReader(db);
    this.history = new HistoryReader(db);
  }

  /** An engine on `db` following the catalog, one snapshot per event-loop turn. */
  static following(db: Db, options: { searchTimeoutMs?: number } = {}): SqliteSearchEngine {
    return new SqliteSearchEngine(db, new TurnSnapshots(db), options.searchTimeoutMs);
  }

  static open(file: string, options: { searchTimeoutMs?: number } = {}): SqliteSearchEngine {
    return SqliteSearchEngine.following(openCatalog(file), options);
  }

  /**
   * An engine that answers from a shared index (sharedIndex.ts) on a read-only connection held in
   * one read transaction on that index's build for the engine's life, so every answer comes from
   * that build however the catalog moves on (a search worker swaps to a new engine when the
   * loader reports a new build). Null when the catalog is past that build already.
   */
  static pinned(file: string, index: SharedIndex): SqliteSearchEngine | null {
    const pinned = PinnedSnapshot.pin(file, index);
    if (pinned === null) return null;
    try {
      return new SqliteSearchEngine(pinned.db, pinned.snapshots);
    } catch (error) {
      pinned.db.close();
      throw error;
    }
  }

  /** The first position whose id is above `id` (positions are in id order), from the id index; size when none. */
  private boundaryAfter(columns: CatalogColumns, id: string): number {
    const rowid = this.reads.firstAfter(id);
    if (rowid === undefined) return columns.size;
    const position = columns.positionOf(rowid);
    return position >= 0 ? position : columns.size;
  }

  /**
   * A cursor page (keyset.ts): the matches after the cursor's place, and the place of its last grant when more follow.
   */
  private keysetPage(
    columns: CatalogColumns,
    query: GrantQuery,
    filters: Condition[],
    text: TextHits | null,
  ): PageAnswer {
    const after = query.cursor?.after ?? null;
    const titleOf = (position: number) => this.reads.title(columns.rowids[position]);
    const answer = keysetSearch(
      columns,
      query,
      filters,
      text,
      after,
      after === null ? 0 : this.boundaryAfter(columns, after.id),
      titleOf,
    );
    const next =
      answer.last === null
        ? null
        : { key: answer.last.key, id: this.reads.id(columns.rowids[answer.last.position]) as string };
    return { total: answer.total, page: answer.page, facets: answer.facets, next };
  }

  /**
   * The terms a search would read postings of that this engine does not hold (a pinned engine's, for the index loader
   * to read).
   */
  missingTerms(query: GrantQuery): string[] {
    const held = this.snapshots.held();
    const terms = held === null ? null : wordTerms(query, this.queryTerms);
    if (held === null || terms === null) return [];
    const text = held.text();
    const keys = terms.phrases.flatMap((p) => p.entries.flatMap((entry) => ('all' in entry ? entry.all : [])));
    return [...new Set([...keys, ...terms.not].flat())].filter((term) => !text.holds(term));
  }

  /**
   * The postings that wordTotals would read and this engine does not hold (a pinned engine's, for the index loader to
   * read): those of the words it searches.
   */
  missingTermsOfCounts(counts: readonly WordCount[], atMost: number): string[] {
    const held = this.snapshots.held();
    if (held === null) return [];
    const words = held.words();
    const missing = counts
      .filter(({ word }) => !knownPast(words, word, atMost))
      .flatMap(({ query }) => this.missingTerms(query));
    return [...new Set(missing)];
  }

  /**
   * Reads the word dictionary and the suggestion index of the held build now rather than at the
   * first typo search or suggestion (a search worker, before it takes searches on a build: a read
   * of seconds on a busy machine would otherwise spend the budget of that first search, and of the
   * first one of each worker replaced).
   */
  readWords(): void {
    const index = this.snapshots.held();
    index?.suggest().dictionary(index.words());
  }

  /** Takes a term's postings read for this engine's build by the index loader. */
  adoptPostings(term: string, postings: Postings): void {
    this.snapshots.held()?.text().adopt(term, postings);
  }

  private search(query: GrantQuery, reloaded = false): SearchResultJson {
    const index: BuildIndex = this.snapshots.index();
    const { columns } = index;
    const { filters, text } = this.textHits.find(columns, query, { terms: this.queryTerms, index: () => index.text() });
    const answer: PageAnswer = query.cursor
      ? this.keysetPage(columns, query, filters, text)
      : offsetPage(columns, query, filters, text);
    // The stored doc is the grant's JSON as served (written by JSON.stringify of the canonical grant).
    const grantsJson = answer.page.map((position) => this.reads.doc(columns.rowids[position]));
    if (grantsJson.includes(undefined)) {
      // A row the columns hold is gone: the catalog changed without a new build id (a writer that
      // does not stamp one). Read the index again from this snapshot and answer once more.
      if (reloaded || !this.snapshots.forget())
        throw new ServiceUnavailableError('the catalog changed while its columns were read');
      return this.search(query, true);
    }
    const docs = grantsJson as string[];
    const result: SearchResultJson =
      answer.facets === undefined
        ? { total: answer.total, grantsJson: docs }
        : { total: answer.total, grantsJson: docs, facets: answer.facets };
    if ('next' in answer) result.next = answer.next as SearchResultJson['next'];
    return result;
  }

  /** Runs a read in the snapshot of this moment; store failures a retry may cure become ServiceUnavailableError. */
  private read<T>(work: () => T | Promise<T>): Promise<T> {
    try {
      this.snapshots.open();
      return Promise.resolve(work()).catch((error: unknown) => {
        throw transientAsUnavailable(error, 'catalog');
      });
    } catch (error) {
      throw transientAsUnavailable(error, 'catalog');
    }
  }

  /** `deadline` (a search worker's, set when the pool took the job), or the engine's budget from now. */
  private dueBy(deadline?: Deadline): Deadline {
    return deadline ?? (this.searchTimeoutMs === undefined ? Deadline.NONE : Deadline.after(this.searchTimeoutMs));
  }

  /** A search; `deadline` (a search worker's, set when the pool took the search) or the engine's budget from now. */
  searchJson(query: GrantQuery, deadline?: Deadline): Promise<SearchResultJson> {
    const due = this.dueBy(deadline);
    return this.read(() => this.searchWithTypos(query, due));
  }

  /**
   * The totals of single-word count queries from this turn's snapshot: a word held as written by
   * more than `atMost` grants (the word dictionary's count, which the word's search finds at least)
   * answers that count, the others are searched; the deadline (a search worker's, or the engine's
   * budget from now) is checked before each search.
   */
  wordTotals(counts: readonly WordCount[], atMost: number, deadline?: Deadline): Promise<number[]> {
    const due = this.dueBy(deadline);
    return this.read(async () => {
      const words = this.snapshots.index().words();
      const totals: number[] = [];
      for (const { word, query } of counts) {
        if (knownPast(words, word, atMost)) totals.push(words.docsOf(word));
        else {
          due.check();
          totals.push((await this.searchWithTypos(query, due)).total);
        }
      }
      return totals;
    });
  }

  /**
   * The search as asked (its terms given their typo alternatives with `typos=auto`) and, with a
   * search, its suggestion (search/typoSearch.ts): every part from this turn's snapshot and index
   * (the lexicon answers at once, so no await leaves the turn). The deadline is checked between
   * the steps: past it a 503; the suggestion is left out (null) when less than half the budget is left.
   */
  private async searchWithTypos(query: GrantQuery, deadline: Deadline): Promise<SearchResultJson> {
    if (query.search === null) return this.search(query);
    const index = this.snapshots.index();
    const lexicon = dictionaryLexicon(() => index.words(), deadline);
    const prepared = await prepareSearch(query, lexicon);
    deadline.check();
    const result = this.search(prepared.query);
    result.suggestion = await suggestionFor(
      query,
      result.total,
      prepared.neighbours,
      lexicon,
      async (q) => (deadline.check(), this.search(q).total),
      deadline,
    );
    if (prepared.query.search !== null) result.search = prepared.query.search;
    return result;
  }

  /**
   * The completions of GET /grants/suggest (search/suggestSearch.ts), all from this turn's
   * snapshot and index: the candidates from the build's suggestion index; with a condition, the
   * grants of the filters and the context as a bit set, words counted on their postings, names
   * on their grants.
   */
  suggest(request: SuggestRequest): Promise<SuggestItem[]> {
    return this.read(() => {
      const index = this.snapshots.index();
      const { columns } = index;
      const { filters, text } = this.textHits.find(columns, request.query, {
        terms: this.queryTerms,
        index: () => index.text(),
      });
      const suggest = index.suggest();
      const dictionary = suggest.dictionary(index.words());
      if (filters.length === 0 && text === null)
        return suggestionsFrom(request, { dictionary: () => dictionary, count: null });
      const matched = new MatchedGrants(matchesOf(columns, filters, text).matches);
      return suggestionsFrom(request, {
        dictionary: () => dictionary,
        count: async (batches) => ({
          words: batches.words?.map(({ text }) => suggest.countWord(text, matched)),
          titles: batches.titles?.map(({ id }) => suggest.nameIndex('title').count(id, matched.bits)),
          funders: batches.funders?.map(({ id }) => suggest.nameIndex('funder').count(id, matched.bits)),
        }),
        top: async (kinds, candidates, limit) => suggest.topNames(kinds, candidates, matched, limit),
      });
    });
  }

  /**
   * An export reads its own connection in one read transaction: one snapshot for the whole stream,
   * while this engine's snapshots move on. The engine's columns, or the shared index given,
   * serve it when they hold the same catalog build; otherwise the snapshot's columns are loaded.
   */
  async exportJson(query: GrantQuery, shared: SharedIndex | null = null): Promise<GrantExport> {
    const db = new Database(this.db.name, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      db.exec('BEGIN');
      const build = buildOf(db);
      const held = this.snapshots.held();
      const columns =
        build !== null && shared !== null && shared.build === build
          ? new CatalogColumns(shared.columns)
          : build !== null && held !== null && held.build === build
            ? held.columns
            : CatalogColumns.load(db);
      let own: WordDictionary | null = null;
      const words = () =>
        build !== null && held !== null && held.build === build ? held.words() : (own ??= WordDictionary.load(db));
      return exportFromSnapshot(db, columns, (await prepareSearch(query, dictionaryLexicon(words))).query);
    } catch (error) {
      if (db.open) db.close();
      throw transientAsUnavailable(error, 'catalog');
    }
  }

  getByIdJson(id: string): Promise<string | null> {
    return this.read(() => this.reads.docOf(id) ?? null);
  }

  /**
   * The neighbours of words in this turn's catalog (the alert matcher's): from the word dictionary
   * of the index held when it is of this build, else one read for the build (no columns read).
   */
  typoNeighbours(words: readonly string[]): Promise<Map<string, Neighbour[]>> {
    return this.read(() => {
      const build = buildOf(this.db);
      const held = this.snapshots.held();
      let dictionary: WordDictionary;
      if (held !== null && held.build === build && build !== null) dictionary = held.words();
      else {
        if (this.ownWords === null || this.ownWords.build !== build || build === null)
          this.ownWords = { build, words: WordDictionary.load(this.db) };
        dictionary = this.ownWords.words;
      }
      return wordNeighbours(
        words,
        dictionaryLexicon(() => dictionary),
      );
    });
  }

  /** The feed's page and the log's state, from this turn's snapshot. */
  changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
    return this.read(() => this.changeLog.read(afterSeq, limit));
  }

  /** A page of a grant's history, from this turn's snapshot. */
  historyJson(id: string, beforeSeq: number | null, limit: number): Promise<HistoryPage> {
    return this.read(() => this.history.read(id, beforeSeq, limit));
  }

  /** The values present in the catalog: those whose bit set is not empty (enum orders are alphabetical). */
  filterOptions(): Promise<FilterOptions> {
    return this.read(() => {
      const { columns } = this.snapshots.index();
      // A function of the build alone: counted once per build, kept with its columns.
      let options = this.filterOptionsOf.get(columns);
      if (options === undefined) {
        const { valueBits } = columns;
        const present = (name: StoredFacetName) =>
          FACET_VALUES[name].filter((_, i) => countBits(valueBits[name][i]) > 0).sort();
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
    return this.read(() => this.reads.count());
  }

  async isEmpty(): Promise<boolean> {
    return (await this.count()) === 0;
  }

  async close(): Promise<void> {
    this.snapshots.close();
    this.queryTerms.close();
    this.db.close();
  }
}
