// A grant's status at a time (grants/lifecycle.ts) as Elasticsearch clauses: what the status
// filter, `open` and the status facet are made of. Pure.
import type { GrantStatus } from '../../grants/schema.js';

/**
 * The grants of each status at `now` (epoch ms): FORECASTED opensAt > now, CLOSED deadline < now,
 * OPEN neither (the indexer keeps opensAt at or before deadline, so the three never overlap).
 * Dates are compared as epoch milliseconds (a date field's stored value): exact to the millisecond.
 */
export function statusClauses(now: number): Record<GrantStatus, Record<string, unknown>> {
  const forecasted = { range: { opensAt: { gt: now } } };
  const closed = { range: { deadline: { lt: now } } };
  return { FORECASTED: forecasted, OPEN: { bool: { must_not: [forecasted, closed] } }, CLOSED: closed };
}
