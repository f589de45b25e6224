// Whether one grant satisfies a GrantQuery's filters, decided in memory exactly as the engines
// decide it for GET /grants: lists OR within and AND across, amounts by
// overlapping ranges (a null bound open on its side, both null matching no amount filter), `open`
// and the statuses against the query's `now`, inclusive deadline bounds that a null deadline never meets. The
// search words are the caller's (an engine's text matcher): this is the rest. Pure.
import { grantStatus } from './lifecycle.js';
import { asksStatus, type GrantQuery } from './query.js';
import type { Grant } from './schema.js';

/** The conditions of a query that decide a match (no paging, sort, facets or fields). */
export type GrantConditions = Pick<
  GrantQuery,
  | 'search'
  | 'words'
  | 'typos'
  | 'matching'
  | 'synonyms'
  | 'funderTypes'
  | 'fundingTypes'
  | 'provinces'
  | 'beneficiaries'
  | 'currencies'
  | 'complexities'
  | 'sdgs'
  | 'statuses'
  | 'isRecurring'
  | 'amountMin'
  | 'amountMax'
  | 'open'
  | 'now'
  | 'deadlineFrom'
  | 'deadlineTo'
  | 'updatedSince'
>;

const anyOf = (wanted: readonly string[], held: readonly string[] | string | null): boolean =>
  wanted.length === 0 ||
  (held !== null && (typeof held === 'string' ? wanted.includes(held) : held.some((value) => wanted.includes(value))));

const epoch = (text: string | null): number | null => (text === null ? null : Date.parse(text));

/**
 * The filters of `q` on `grant`, with `now` (epoch ms) as the time `open` and the statuses compare to; the words are
 * not checked here.
 */
export function matchesFilters(grant: Grant, q: GrantConditions, now: number): boolean {
  if (!anyOf(q.funderTypes, grant.funderType)) return false;
  if (!anyOf(q.fundingTypes, grant.fundingType)) return false;
  if (!anyOf(q.currencies, grant.currency)) return false;
  if (!anyOf(q.complexities, grant.applicationComplexity)) return false;
  if (!anyOf(q.provinces, grant.eligibleProvinces)) return false;
  if (!anyOf(q.beneficiaries, grant.targetBeneficiaries)) return false;
  if (!anyOf(q.sdgs, grant.sdgAlignment)) return false;
  if (q.isRecurring !== null && grant.isRecurring !== q.isRecurring) return false;
  if (q.amountMin !== null || q.amountMax !== null) {
    if (grant.amountMin === null && grant.amountMax === null) return false;
    if (q.amountMin !== null && grant.amountMax !== null && grant.amountMax < q.amountMin) return false;
    if (q.amountMax !== null && grant.amountMin !== null && grant.amountMin > q.amountMax) return false;
  }
  const timed = asksStatus(q);
  if (!timed && q.deadlineFrom === null && q.deadlineTo === null && q.updatedSince === null) return true;
  if (timed) {
    const status = grantStatus(grant, now);
    if (q.open !== null && (status === 'OPEN') !== q.open) return false;
    if (!anyOf(q.statuses, status)) return false;
  }
  const deadline = epoch(grant.deadline);
  if (q.deadlineFrom !== null && (deadline === null || deadline < q.deadlineFrom)) return false;
  if (q.deadlineTo !== null && (deadline === null || deadline > q.deadlineTo)) return false;
  if (q.updatedSince !== null && Date.parse(grant.updatedAt) < q.updatedSince) return false;
  return true;
}
