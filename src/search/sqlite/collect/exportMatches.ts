// Every match of a query in its order, and how many there are: what an export streams. Pure: the
// columns, the conditions and the text hits come in; the export reads the documents.
import type { GrantQuery } from '../../../grants/query.js';
import { countBits, hasBit } from '../index/bitset.js';
import type { CatalogColumns } from '../index/columns.js';
import { matchesOf, type Condition } from '../query/filters.js';
import { rankedBy, type TextHits } from '../query/textHits.js';
import { orderOf } from './sortOrderWalk.js';

/** Every match of the query in its order, for an export: a walk of the order, or the scored hits sorted. */
export function* everyMatch(
  columns: CatalogColumns,
  query: GrantQuery,
  filters: Condition[],
  text: TextHits | null,
): Generator<number> {
  const { matches } = matchesOf(columns, filters, text);
  const ranked = rankedBy(query, text);
  if (ranked !== null) {
    const { positions, scores } = ranked;
    const order = Array.from(positions.keys()).filter((h) => hasBit(matches, positions[h]));
    order.sort((a, b) => scores[a] - scores[b] || positions[a] - positions[b]);
    for (const h of order) yield positions[h];
    return;
  }
  const { key, descending } = orderOf(query);
  const { positions } = columns.order(key, descending);
  for (let i = 0; i < positions.length; i++) if (hasBit(matches, positions[i])) yield positions[i];
}

/** How many grants match (for an export's count). */
export function matchCount(columns: CatalogColumns, filters: Condition[], text: TextHits | null): number {
  return countBits(matchesOf(columns, filters, text).matches);
}
