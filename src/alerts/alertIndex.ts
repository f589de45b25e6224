// Which alerts a changed grant could match, so that the matcher decides those only (the candidate
// step of a percolator). Each alert is filed once, under the first list condition it has in
// LIST_FIELDS' order (a grant matches it only if it holds one of the listed values: the rule of
// matchesFilters), else under its search (found by the batch's text matching), else among the
// alerts every change is checked against. A candidate is then decided in full; the index never
// decides a match, it only leaves out alerts that cannot match. Pure.
import type { GrantConditions } from '../grants/matching.js';
import type { Grant } from '../grants/schema.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';

type ListField = 'sdgs' | 'beneficiaries' | 'provinces' | 'funderTypes' | 'fundingTypes' | 'complexities' | 'currencies';

/** The list conditions and the grant field each one reads, most selective first (more values, rarer each). */
const LIST_FIELDS: readonly (readonly [ListField, (grant: Grant) => readonly string[] | string | null])[] = [
  ['sdgs', (g) => g.sdgAlignment],
  ['beneficiaries', (g) => g.targetBeneficiaries],
  ['provinces', (g) => g.eligibleProvinces],
  ['funderTypes', (g) => g.funderType],
  ['fundingTypes', (g) => g.fundingType],
  ['complexities', (g) => g.applicationComplexity],
  ['currencies', (g) => g.currency],
];

export interface IndexedAlert {
  id: string;
  conditions: GrantConditions | null;
}

export class AlertIndex<A extends IndexedAlert> {
  private readonly byValue = new Map<ListField, Map<string, A[]>>();
  private readonly bySearch: { alert: A; search: ParsedSearch }[] = [];
  private readonly everyChange: A[] = [];

  /**
   * Alerts whose conditions are null (a query no longer valid) match nothing and are not filed.
   * `grants` are the grants about to be matched: each alert is filed under the list condition
   * the fewest of them hold (the fewest candidates), the first of LIST_FIELDS among equals (so
   * without grants, in LIST_FIELDS' order).
   */
  constructor(alerts: readonly A[], grants: readonly Grant[] = []) {
    const held = new Map<ListField, Map<string, number>>();
    for (const grant of grants) {
      for (const [field, read] of LIST_FIELDS) {
        const value = read(grant);
        if (value === null) continue;
        let counts = held.get(field);
        if (counts === undefined) held.set(field, (counts = new Map()));
        for (const v of typeof value === 'string' ? [value] : value) counts.set(v, (counts.get(v) ?? 0) + 1);
      }
    }
    const cost = (field: ListField, values: readonly string[]) => values.reduce((sum, v) => sum + (held.get(field)?.get(v) ?? 0), 0);
    for (const alert of alerts) {
      const c = alert.conditions;
      if (c === null) continue;
      const lists = LIST_FIELDS.filter(([field]) => c[field].length > 0);
      const list = lists.reduce<(typeof lists)[number] | undefined>((best, l) => (best === undefined || cost(l[0], c[l[0]]) < cost(best[0], c[best[0]]) ? l : best), undefined);
      if (list !== undefined) {
        let values = this.byValue.get(list[0]);
        if (values === undefined) this.byValue.set(list[0], (values = new Map()));
        for (const value of new Set(c[list[0]])) {
          const filed = values.get(value);
          if (filed === undefined) values.set(value, [alert]);
          else filed.push(alert);
        }
      } else if (c.search !== null) this.bySearch.push({ alert, search: c.search });
      else this.everyChange.push(alert);
    }
  }

  /**
   * For one batch of changes: a grant's candidates are the alerts filed under its values, under a
   * search whose matches in the batch (`textMatches`: the ids the search matches) hold the grant,
   * or checked for every change. Each search is asked once per batch.
   */
  forBatch(textMatches: (search: ParsedSearch) => ReadonlySet<string>): (grant: Grant) => Set<A> {
    const bySearchHit = new Map<string, A[]>();
    for (const { alert, search } of this.bySearch) {
      for (const id of textMatches(search)) {
        const filed = bySearchHit.get(id);
        if (filed === undefined) bySearchHit.set(id, [alert]);
        else filed.push(alert);
      }
    }
    return (grant) => {
      const found = new Set<A>(this.everyChange);
      for (const [field, read] of LIST_FIELDS) {
        const values = this.byValue.get(field);
        if (values === undefined) continue;
        const held = read(grant);
        if (held === null) continue;
        for (const value of typeof held === 'string' ? [held] : held) for (const alert of values.get(value) ?? []) found.add(alert);
      }
      for (const alert of bySearchHit.get(grant.id) ?? []) found.add(alert);
      return found;
    };
  }
}
