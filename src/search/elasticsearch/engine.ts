// ElasticsearchSearchEngine: reads through the alias only; executes what the translator writes.
import { errors, type Client } from '@elastic/elasticsearch';
import type { GrantQuery } from '../../grants/query.js';
import type { Grant } from '../../grants/schema.js';
import type { FilterOptions, SearchEngine, SearchResultJson } from '../engine.js';
import { ServiceUnavailableError } from '../../http/errors.js';
import { createEsClient, errorType, isNotFound, unavailableFrom, type EsConfig } from './client.js';
import { FACETS_FILTER_PATH, facetsOf } from './facets.js';
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

  constructor(
    private readonly client: Client,
    private readonly alias: string,
  ) {}

  static open(config: EsConfig): ElasticsearchSearchEngine {
    return new ElasticsearchSearchEngine(createEsClient(config), config.index);
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
        response = await this.client.search<Grant>({ index: this.alias, ...translateToElasticsearch(query), filter_path: SEARCH_FILTER_PATH } as never);
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
    return this.call(async () => {
      try {
        // _source answers the document alone (no metadata around it): less for both sides to write and read.
        return JSON.stringify(await this.client.getSource<Grant>({ index: this.alias, id }));
      } catch (error) {
        // A 404 for the document, not for the alias, means an unknown grant.
        if (isNotFound(error) && errorType(error) !== 'index_not_found_exception') return null;
        throw error;
      }
    });
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
