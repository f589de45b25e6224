// An offset page of a query over its matches: the total, the facets, and offset + size along the
// sort. Pure: the columns, the conditions and the text hits come in; the engine reads the page's
// documents.
import type { Facets, GrantQuery } from '../../../grants/query.js';
import { countBits } from '../index/bitset.js';
import type { CatalogColumns } from '../index/columns.js';
import { matchesOf, type Condition } from '../query/filters.js';
import { rankedBy, type TextHits } from '../query/textHits.js';
import { facetCounts } from './facets.js';
import { orderOf, pageAlongOrder } from './sortOrderWalk.js';
import { relevancePage } from './topk.js';

export interface ColumnAnswer {
  total: number;
  /** The page's positions, in order. */
  page: number[];
  facets?: Facets;
}

/** The offset page of the query from its filter conditions (query/filters.ts) and its text hits, if it has words. */
export function offsetPage(
  columns: CatalogColumns,
  query: GrantQuery,
  filters: Condition[],
  text: TextHits | null,
): ColumnAnswer {
  const { conditions, matches } = matchesOf(columns, filters, text);
  const total = countBits(matches);
  const answer: ColumnAnswer = { total, page: [] };
  if (query.facets.length > 0)
    answer.facets = facetCounts(columns, query.facets, conditions, matches, total, query.now);
  if (query.offset >= total) return answer;
  const ranked = rankedBy(query, text);
  if (ranked !== null) {
    answer.page = relevancePage(ranked, matches, query.offset, query.size);
  } else {
    const { key, descending } = orderOf(query);
    answer.page = pageAlongOrder(columns.order(key, descending), matches, total, 0, query.offset, query.size);
  }
  return answer;
}
