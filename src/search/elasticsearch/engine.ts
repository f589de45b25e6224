// ElasticsearchSearchEngine: reads through the alias only; executes what the translator writes.
import { errors, type Client } from '@elastic/elasticsearch';
import type { GrantQuery, KeysetPosition } from '../../grants/query.js';
import type { Grant } from '../../grants/schema.js';
import type { FilterOptions, GrantExport, SearchEngine, SearchResultJson, WordCount } from '../engine.js';
import { ServiceUnavailableError } from '../../failures.js';
import { createEsClient, errorType, requestText, unavailableFrom, type EsConfig } from './client.js';
import { FACETS_FILTER_PATH, facetsOf } from './facets.js';
import { GetBatch } from './getBatch.js';
import type { ChangesPage } from '../changes.js';
import { readChanges, readHistory } from './changeLog.js';
import type { HistoryPage } from '../../grants/history.js';
import { KEYSET_TOTAL_AGG, keysetRequest, placeOf } from './keyset.js';
import { lacksIdKeys } from './idKeys.js';
import { readSources, type SourcedResponse } from './sources.js';
import { IndexLexicon } from './lexicon.js';
import { prepareSearch, suggestionFor, wordNeighbours } from '../typoSearch.js';
import { Deadline, SearchBudgetExceeded } from '../deadline.js';
import type { Neighbour } from '../../grants/typos.js';
import { sortOf, TITLE_SORT_FIELD, translateToElasticsearch, type EsSearchRequest } from './translator.js';
import { withRelaxation } from '../relaxedSearch.js';
import { IndexSuggest, suggestReader } from './suggest.js';
import { suggestionsFrom, type SuggestRequest } from '../suggestSearch.js';
import type { SuggestItem } from '../../grants/suggest.js';

const FILTER_FIELDS = {
  funderTypes: 'funderType',
  fundingTypes: 'fundingType',
  eligibleProvinces: 'eligibleProvinces',
  targetBeneficiaries: 'targetBeneficiaries',
  currencies: 'currency',
} as const satisfies Record<keyof FilterOptions, string>;

/** The parts of a _search response the API serves. */
const SEARCH_FILTER_PATH = ['hits.total', 'hits.hits._source', ...FACETS_FILTER_PATH];

/**
 * An index built before the title sort key existed (a live alias on the old mapping) cannot sort
 * by title: Elasticsearch answers 400 "No mapping found for [titleSort]". That is the catalog's
 * state, not the partner's request: a 503 until the operator reindexes.
 */
function titleSortUnavailable(error: unknown, alias: string): ServiceUnavailableError | null {
  if (!(error instanceof errors.ResponseError) || error.statusCode !== 400) return null;
  if (!JSON.stringify(error.body ?? '').includes(`No mapping found for [${TITLE_SORT_FIELD}]`)) return null;
  return new ServiceUnavailableError(
    `the index behind alias "${alias}" has no ${TITLE_SORT_FIELD} field (built with an older mapping); run ` +
      `grants-indexer reindex`,
    30,
  );
}

/** Grants per _search of an export, and how long its point in time lives between two of them. */
const EXPORT_PAGE = 1000;
const EXPORT_KEEP_ALIVE = '2m';

/** A _search answer; its hits' _source a Grant, or (from readSources) the index of its served text. */
type HitsResponse<Source = Grant> = {
  hits?: { total?: number | { value: number }; hits?: { _source: Source; sort?: unknown[] }[] };
  aggregations?: Record<string, unknown>;
  pit_id?: string;
};
/** A document of an _mget answer read with readSources. */
type MgetDoc = { found?: boolean; _source?: number; error?: { type: string } };

/** The total of a keyset search: hits.total, or the aggregation that counts it while a null tail is walked. */
function keysetTotal(response: HitsResponse<unknown>): number {
  const counted = response.aggregations?.[KEYSET_TOTAL_AGG] as { doc_count: number } | undefined;
  if (counted !== undefined) return counted.doc_count;
  const total = response.hits?.total;
  return typeof total === 'number' ? total : (total?.value ?? 0);
}

export class ElasticsearchSearchEngine implements SearchEngine {
  readonly name = 'elasticsearch';

  private readonly gets = new GetBatch((ids) => this.fetchMany(ids));
  private readonly lexicon: IndexLexicon;
  private readonly suggestions: IndexSuggest;

  constructor(
    private readonly client: Client,
    private readonly alias: string,
    /**
     * A search's budget (SEARCH_TIMEOUT_MS): its requests together, each given what is left of it
     * as its timeout; other reads keep the client's. Absent: each keeps the client's.
     */
    private readonly searchTimeoutMs?: number,
    /** The client reading the suggestion index (suggest.ts suggestReader); `client` when not given. */
    private readonly suggestClient: Client = client,
  ) {
    this.lexicon = new IndexLexicon(client, alias);
    this.suggestions = new IndexSuggest(client, alias, undefined, suggestClient);
  }

  static open(config: EsConfig, options: { searchTimeoutMs?: number } = {}): ElasticsearchSearchEngine {
    return new ElasticsearchSearchEngine(
      createEsClient(config),
      config.index,
      options.searchTimeoutMs,
      suggestReader(config),
    );
  }

  /** Runs requests; their failures as the API tells them (a 503 naming the budget once `deadline` has passed). */
  private async call<T>(work: () => Promise<T>, deadline: Deadline = Deadline.NONE): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (deadline.passed() && !(error instanceof SearchBudgetExceeded))
        throw new SearchBudgetExceeded(deadline.budgetMs);
      throw unavailableFrom(error, this.alias);
    }
  }

  /** A new search's deadline: the budget from now. */
  private deadline(): Deadline {
    return this.searchTimeoutMs === undefined ? Deadline.NONE : Deadline.after(this.searchTimeoutMs);
  }

  /** One _search; a request needing the title sort key on an index without it is a 503. */
  private async searchRaw(request: Record<string, unknown>, deadline: Deadline = Deadline.NONE): Promise<HitsResponse> {
    try {
      return (await this.client.search<Grant>(request as never, {
        requestTimeout: deadline.callTimeout(),
      })) as unknown as HitsResponse;
    } catch (error) {
      throw titleSortUnavailable(error, this.alias) ?? error;
    }
  }

  /** A cursor page: search_after the cursor's place, one hit more than the page to know whether more follow. */
  private cursorPage(query: GrantQuery, deadline: Deadline): Promise<SearchResultJson> {
    return this.call(async () => {
      const request = keysetRequest(query, query.cursor?.after ?? null, query.limit + 1);
      const response = await this.searchRaw(
        {
          index: this.alias,
          ...request,
          filter_path: [...SEARCH_FILTER_PATH, 'hits.hits.sort', `aggregations.${KEYSET_TOTAL_AGG}`],
        },
        deadline,
      );
      const hits = response.hits?.hits ?? [];
      const page = hits.slice(0, query.limit);
      return {
        total: keysetTotal(response),
        grantsJson: page.map((hit) => JSON.stringify(hit._source)),
        ...(query.facets.length > 0 && { facets: facetsOf(query.facets, response.aggregations as never) }),
        next: hits.length > query.limit ? placeOf(query, page[page.length - 1]) : null,
      };
    }, deadline);
  }

  /**
   * Every match from one point in time, page after page with search_after: the count comes with
   * the first page; each later page is read when the reader wants it. close() closes the point in time.
   */
  exportJson(query: GrantQuery): Promise<GrantExport> {
    return this.call(async () => {
      const plain: GrantQuery = {
        ...(await this.relaxed((await prepareSearch(query, this.lexicon)).query)),
        facets: [],
        cursor: null,
      };
      let pit = (await this.client.openPointInTime({ index: this.alias, keep_alive: EXPORT_KEEP_ALIVE })).id;
      let closed = false;
      const close = async (): Promise<void> => {
        if (closed) return;
        closed = true;
        try {
          await this.client.closePointInTime({ id: pit });
        } catch {
          // It expires on its own (keep_alive).
        }
      };
      const pageAfter = async (after: KeysetPosition | null, total: boolean): Promise<HitsResponse> => {
        const request = keysetRequest(plain, after, EXPORT_PAGE);
        const response = await this.searchRaw({
          ...request,
          track_total_hits: total,
          pit: { id: pit, keep_alive: EXPORT_KEEP_ALIVE },
          filter_path: [
            'pit_id',
            'hits.total',
            'hits.hits._source',
            'hits.hits.sort',
            `aggregations.${KEYSET_TOTAL_AGG}`,
          ],
        });
        if (response.pit_id !== undefined) pit = response.pit_id;
        return response;
      };
      let first: HitsResponse;
      try {
        first = await pageAfter(null, true);
      } catch (error) {
        await close();
        throw error;
      }
      const call = <T>(work: () => Promise<T>) => this.call(work);
      async function* batches(): AsyncGenerator<string[]> {
        try {
          let response = first;
          for (;;) {
            const hits = response.hits?.hits ?? [];
            if (hits.length > 0) yield hits.map((hit) => JSON.stringify(hit._source));
            if (hits.length < EXPORT_PAGE || closed) return;
            const after = placeOf(plain, hits[hits.length - 1]);
            response = await call(() => pageAfter(after, false));
          }
        } finally {
          await close();
        }
      }
      return { total: keysetTotal(first), batches: batches(), close };
    });
  }

  /** The query with its relaxation plan (search/relaxedSearch.ts), the terms counted in one _msearch. */
  private relaxed(query: GrantQuery, deadline: Deadline = Deadline.NONE): Promise<GrantQuery> {
    return withRelaxation(query, (queries) => this.countsOf(queries, deadline));
  }

  /** How many grants each query matches, in one _msearch. */
  private async countsOf(queries: GrantQuery[], deadline: Deadline): Promise<number[]> {
    if (queries.length === 0) return [];
    const searches = queries.flatMap((q) => [
      { index: this.alias },
      { query: translateToElasticsearch(q).query, size: 0, track_total_hits: true },
    ]);
    const response = await this.client.msearch({ searches } as never, { requestTimeout: deadline.callTimeout() });
    return response.responses.map((answer) => {
      if ('error' in answer)
        throw new Error(`a count in an _msearch failed: ${JSON.stringify(answer.error).slice(0, 200)}`);
      const total = answer.hits.total;
      return typeof total === 'number' ? total : (total?.value ?? 0);
    });
  }

  /**
   * The search as asked (its terms given their typo alternatives with `typos=auto`, then its
   * relaxation plan with `matching=last|frequency`) and, with a search, its suggestion
   * (search/typoSearch.ts), the words looked up in the index's dictionary. Every request is given
   * what is left of the search's budget, so the whole answers within it (or is a 503 at it); the
   * suggestion is left out (null) rather than make the answer late.
   */
  async searchJson(query: GrantQuery): Promise<SearchResultJson> {
    const deadline = this.deadline();
    if (query.search === null) return this.pageOf(query, deadline);
    const lexicon = new IndexLexicon(this.client, this.alias, deadline);
    const prepared = await this.call(() => prepareSearch(query, lexicon), deadline);
    const run = await this.call(() => this.relaxed(prepared.query, deadline), deadline);
    const result = await this.pageOf(run, deadline);
    result.suggestion = await this.call(
      () =>
        suggestionFor(query, result.total, prepared.neighbours, lexicon, (q) => this.countOf(q, deadline), deadline),
      deadline,
    );
    if (prepared.query.search !== null) result.search = prepared.query.search;
    return result;
  }

  /**
   * The similar grants' word counts (search/similarSearch.ts), each as searchJson would run its
   * query (no typo, no synonym, every word), all counted in one _msearch within one search's
   * budget; every count exact.
   */
  async wordTotals(counts: readonly WordCount[]): Promise<number[]> {
    const deadline = this.deadline();
    const lexicon = new IndexLexicon(this.client, this.alias, deadline);
    const queries = await this.call(
      () => Promise.all(counts.map(async ({ query }) => (await prepareSearch(query, lexicon)).query)),
      deadline,
    );
    return this.call(() => this.countsOf(queries, deadline), deadline);
  }

  /** Reads the suggestion index of the alias's index now rather than at the first suggestion. */
  async caughtUp(): Promise<void> {
    await this.suggestions.preload();
  }

  /** The completions of GET /grants/suggest (search/suggestSearch.ts, ./suggest.ts). */
  suggest(request: SuggestRequest): Promise<SuggestItem[]> {
    const deadline = this.deadline();
    return this.call(() => suggestionsFrom(request, this.suggestions.source(request.query, deadline)), deadline);
  }

  typoNeighbours(words: readonly string[]): Promise<Map<string, Neighbour[]>> {
    return this.call(() => wordNeighbours(words, this.lexicon));
  }

  /** How many grants a query matches (its total alone). */
  private async countOf(query: GrantQuery, deadline: Deadline): Promise<number> {
    const relaxed = await this.relaxed(query, deadline);
    return (
      await this.client.count({ index: this.alias, query: translateToElasticsearch(relaxed).query } as never, {
        requestTimeout: deadline.callTimeout(),
      })
    ).count;
  }

  private pageOf(query: GrantQuery, deadline: Deadline): Promise<SearchResultJson> {
    if (query.cursor) return this.cursorPage(query, deadline);
    return this.call(async () => {
      const request = translateToElasticsearch(query);
      let page = await this.offsetPage(request, deadline);
      // An index built before the id keys: its order of equal keys was not by id. Asked again by id.
      const first = page.body.hits?.hits?.[0];
      if (first !== undefined && lacksIdKeys(first.sort))
        page = await this.offsetPage({ ...request, sort: sortOf(query) }, deadline);
      const { body, sources } = page;
      return {
        total: keysetTotal(body),
        grantsJson: (body.hits?.hits ?? []).map((hit) => sources[hit._source]),
        ...(query.facets.length > 0 && { facets: facetsOf(query.facets, body.aggregations as never) }),
      };
    }, deadline);
  }

  /**
   * One _search of an offset page, its grants cut out of the answer's text (sources.ts). No
   * filter_path: with one, Elasticsearch parses each hit's stored _source to write it again
   * through the filter (about a tenth of its CPU per search); without, it copies the stored bytes.
   */
  private async offsetPage(
    request: EsSearchRequest,
    deadline: Deadline,
  ): Promise<SourcedResponse<HitsResponse<number>>> {
    try {
      const text = await requestText(
        this.client,
        {
          method: 'POST',
          path: `/${encodeURIComponent(this.alias)}/_search`,
          body: request as unknown as Record<string, unknown>,
        },
        { requestTimeout: deadline.callTimeout() },
      );
      return readSources(text);
    } catch (error) {
      throw titleSortUnavailable(error, this.alias) ?? error;
    }
  }

  getByIdJson(id: string): Promise<string | null> {
    return this.call(() => this.gets.get(id));
  }

  /**
   * One _mget for the ids of a turn, the grants cut out of the answer's text. A missing alias
   * fails the whole read (index_not_found, a 503 for each); a document's own error fails that
   * read only, except an id Elasticsearch refuses (the empty id), which names no grant.
   */
  private async fetchMany(ids: string[]): Promise<(string | null | Error)[]> {
    const text = await requestText(this.client, {
      method: 'POST',
      path: `/${encodeURIComponent(this.alias)}/_mget`,
      body: { ids },
    });
    const { body, sources } = readSources<{ docs: MgetDoc[] }>(text);
    return body.docs.map((doc) => {
      if (doc.error !== undefined) {
        return doc.error.type === 'illegal_argument_exception'
          ? null
          : new ServiceUnavailableError(`elasticsearch could not read a grant: ${doc.error.type}`, 5);
      }
      return doc.found === true && doc._source !== undefined ? sources[doc._source] : null;
    });
  }

  /** The feed's page: the change log index (unswapped, one shard) in one search, the state beside it. */
  changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
    return this.call(() => readChanges(this.client, this.alias, afterSeq, limit));
  }

  /**
   * A page of a grant's history: the history index (unswapped, one shard), and the alias when the id has no version
   * there.
   */
  historyJson(id: string, beforeSeq: number | null, limit: number): Promise<HistoryPage> {
    return this.call(() =>
      readHistory(this.client, this.alias, id, beforeSeq, limit, () => this.client.exists({ index: this.alias, id })),
    );
  }

  filterOptions(): Promise<FilterOptions> {
    return this.call(async () => {
      const aggs = Object.fromEntries(
        Object.entries(FILTER_FIELDS).map(([name, field]) => [
          name,
          { terms: { field, size: 100, order: { _key: 'asc' } } },
        ]),
      );
      const response = await this.client.search({ index: this.alias, size: 0, aggs } as never);
      const buckets = (name: string) =>
        ((response.aggregations as Record<string, { buckets: { key: string }[] }>)[name]?.buckets ?? [])
          .map((b) => b.key)
          .sort();
      return {
        funderTypes: buckets('funderTypes'),
        fundingTypes: buckets('fundingTypes'),
        eligibleProvinces: buckets('eligibleProvinces'),
        targetBeneficiaries: buckets('targetBeneficiaries'),
        currencies: buckets('currencies'),
      };
    });
  }

  /** A missing alias is a ServiceUnavailableError, as for a search: the catalog cannot be served. */
  count(): Promise<number> {
    return this.call(async () => (await this.client.count({ index: this.alias })).count);
  }

  isEmpty(): Promise<boolean> {
    return this.call(async () => {
      try {
        return (await this.client.count({ index: this.alias })).count === 0;
      } catch (error) {
        if (errorType(error) === 'index_not_found_exception') return true;
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.client.close(), this.suggestClient !== this.client && this.suggestClient.close()]);
  }
}
