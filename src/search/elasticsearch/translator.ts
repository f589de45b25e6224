// GrantQuery → Elasticsearch query DSL. Pure: no I/O, unit-tested on its output.
import type { GrantQuery } from '../../grants/query.js';

/** Relevance boosts, as in the embedded engine: title above funder above description. */
export const TEXT_FIELDS = ['title^3', 'funder^2', 'description'] as const;

export interface EsSearchRequest {
  query: Record<string, unknown>;
  sort: unknown[];
  from: number;
  size: number;
  track_total_hits: true;
}

const exists = (field: string) => ({ exists: { field } });
const either = (...clauses: unknown[]) => ({ bool: { should: clauses, minimum_should_match: 1 } });
const missing = (field: string) => ({ bool: { must_not: [exists(field)] } });

export function translateToElasticsearch(query: GrantQuery): EsSearchRequest {
  const filter: unknown[] = [];
  if (query.funderTypes.length > 0) filter.push({ terms: { funderType: query.funderTypes } });
  if (query.fundingTypes.length > 0) filter.push({ terms: { fundingType: query.fundingTypes } });
  if (query.provinces.length > 0) filter.push({ terms: { eligibleProvinces: query.provinces } });
  if (query.amountMin !== null || query.amountMax !== null) {
    // Ranges overlap; a missing bound of the grant is open on its side; no amounts, no match.
    filter.push(either(exists('amountMin'), exists('amountMax')));
    if (query.amountMin !== null) filter.push(either({ range: { amountMax: { gte: query.amountMin } } }, missing('amountMax')));
    if (query.amountMax !== null) filter.push(either({ range: { amountMin: { lte: query.amountMax } } }, missing('amountMin')));
  }
  const text = query.words.length > 0;
  const must = text
    ? [
        {
          // Every word must match in some field; the words are plain text, never query syntax.
          multi_match: { query: query.words.join(' '), fields: [...TEXT_FIELDS], type: 'cross_fields', operator: 'and' },
        },
      ]
    : [];
  return {
    query: { bool: { must, filter } },
    sort: text ? ['_score', { id: 'asc' }] : [{ deadline: { order: 'asc', missing: '_last' } }, { id: 'asc' }],
    from: query.offset,
    size: query.size,
    track_total_hits: true,
  };
}
