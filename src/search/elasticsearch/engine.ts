// ElasticsearchSearchEngine: reads through the alias only; executes what the translator writes.
import { errors, type Client } from '@elastic/elasticsearch';
import type { GrantQuery } from '../../grants/query.js';
import type { Grant } from '../../grants/schema.js';
import type { FilterOptions, SearchEngine, SearchResultJson } from '../engine.js';
import { ServiceUnavailableError } from '../../failures.js';
import { createEsClient, errorType, unavailableFrom, type EsConfig } from './client.js';
import { FACETS_FILTER_PATH, facetsOf } from './facets.js';
import { GetBatch } from './getBatch.js';
import type { ChangesPage } from '../changes.js';
import { readChanges } from './changeLog.js';
import { TITLE_SORT_FIELD, translateToElasticsearch } from './translator.js';

const FILTER_FIELDS = {
  funderTypes: 'funderType',
  fundingTypes: 'fundingType',
  eligibleProvinces: 'eligibleProvinces',
  targetBeneficiaries: 'targetBeneficiaries',
  currencies: 'currency',
} as const satisfies Record<keyof FilterOptions, string>;

/** The parts of a _search response the API serves. */
export const SEARCH_FILTER_PATH = ['hits.total', 'hits.hits._source', ...FACETS_FILTER_PATH];

/**
 * An index built before the title sort key existed (a live alias on the old mapping) cannot sort
 * by title: Elasticsearch answers 400 "No mapping found for [titleSort]". That is the catalog's
 * state, not the partner's request: a 503 until the operator reindexes.
 */
function titleSortUnavailable(error: unknown, alias: string): ServiceUnavailableError | null {
  if (!(error instanceof errors.ResponseError) || error.statusCode !== 400) return null;
  if (!JSON.stringify(error.body ?? '').includes(`No mapping found for [${TITLE_SORT_FIELD}]`)) return null;
  return new ServiceUnavailableError(`the index behind alias "${alias}" has no ${TITLE_SORT_FIELD} field (built with an older mapping); run grants-indexer reindex`, 30);
}

export class ElasticsearchSearchEngine implements SearchEngine {
  readonly name = 'elasticsearch';

  private readonly gets = new GetBatch((ids) => this.fetchMany(ids));

  constructor(
    private readonly client: Client,
    private readonly alias: string,
    /** A search's own request timeout (SEARCH_TIMEOUT_MS); other reads keep the client's. */
    private readonly searchTimeoutMs?: number,
  ) {}

  static open(config: EsConfig, options: { searchTimeoutMs?: number } = {}): ElasticsearchSearchEngine {
    return new ElasticsearchSearchEngine(createEsClient(config), config.index, options.searchTimeoutMs);
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw unavailableFrom(error, this.alias);
    }
  }

  searchJson(query: GrantQuery): Promise<SearchResultJson> {
    return this.call(async () => {
      // Only what is served comes back (no _index, _id, _score or sort values): less for
      // Elasticsearch to write and for the client to parse. Without hits, hits.hits is absent.
      let response;
      try {
        response = await this.client.search<Grant>(
          { index: this.alias, ...translateToElasticsearch(query), filter_path: SEARCH_FILTER_PATH } as never,
          this.searchTimeoutMs === undefined ? undefined : { requestTimeout: this.searchTimeoutMs },
        );
      } catch (error) {
        throw titleSortUnavailable(error, this.alias) ?? error;
      }
      const total = response.hits.total;
      return {
        total: typeof total === 'number' ? total : (total?.value ?? 0),
        grantsJson: (response.hits.hits ?? []).map((hit) => JSON.stringify(hit._source)),
        ...(query.facets.length > 0 && { facets: facetsOf(query.facets, response.aggregations as never) }),
      };
    });
  }

  getByIdJson(id: string): Promise<string | null> {
    return this.call(() => this.gets.get(id));
  }

  /**
   * One _mget for the ids of a turn. A missing alias fails the whole read (index_not_found, a
   * 503 for each); a document's own error fails that read only, except an id Elasticsearch
   * refuses (the empty id), which names no grant.
   */
  private async fetchMany(ids: string[]): Promise<(string | null | Error)[]> {
    const response = await this.client.mget<Grant>({ index: this.alias, ids });
    return response.docs.map((doc) => {
      if ('error' in doc) {
        return doc.error.type === 'illegal_argument_exception' ? null : new ServiceUnavailableError(`elasticsearch could not read a grant: ${doc.error.type}`, 5);
      }
      return doc.found ? JSON.stringify(doc._source) : null;
    });
  }

  /** The feed's page: the change log index (unswapped, one shard) in one search, the state beside it. */
  changesJson(afterSeq: number, limit: number): Promise<ChangesPage> {
    return this.call(() => readChanges(this.client, this.alias, afterSeq, limit));
  }

  filterOptions(): Promise<FilterOptions> {
    return this.call(async () => {
      const aggs = Object.fromEntries(Object.entries(FILTER_FIELDS).map(([name, field]) => [name, { terms: { field, size: 100, order: { _key: 'asc' } } }]));
      const response = await this.client.search({ index: this.alias, size: 0, aggs } as never);
      const buckets = (name: string) =>
        ((response.aggregations as Record<string, { buckets: { key: string }[] }>)[name]?.buckets ?? []).map((b) => b.key).sort();
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
    await this.client.close();
  }
}
