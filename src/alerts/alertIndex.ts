// Which alerts a changed grant could match, so that the matcher decides those only (the candidate
// step of a percolator). Per batch of changes, each alert is filed once: under one of its list
// conditions (a grant matches it only if it holds one of the listed values: the rule of
// matchesFilters), or under its search (a grant matches it only if the batch's text matching
// finds the grant), whichever the fewest of the batch's grants pass; an alert with neither is
// among those every change is checked against. A candidate is then decided in full; the index
// never decides a match, it only leaves out alerts that cannot match. Pure.
import type { GrantConditions } from '../grants/matching.js';
import type { Grant } from '../grants/schema.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';

type ListField =
  'sdgs' | 'beneficiaries' | 'provinces' | 'funderTypes' | 'fundingTypes' | 'complexities' | 'currencies';

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

interface IndexedAlert {
  id: string;
  conditions: GrantConditions | null;
}

/** An alert's list condition the fewest of the batch's grants hold, and how many hold it. */
interface ListFiling {
  field: ListField;
  values: readonly string[];
  cost: number;
}

/** Alerts filed under list values: field → value → alerts. */
type ByValue<A> = Map<ListField, Map<string, A[]>>;

const fileUnder = <A>(byValue: ByValue<A>, alert: A, list: ListFiling): void => {
  let values = byValue.get(list.field);
  if (values === undefined) byValue.set(list.field, (values = new Map()));
  for (const value of new Set(list.values)) {
    const filed = values.get(value);
    if (filed === undefined) values.set(value, [alert]);
    else filed.push(alert);
  }
};

export class AlertIndex<A extends IndexedAlert> {
  /** Alerts without a search, filed under their list condition once for every batch. */
  private readonly byValue: ByValue<A> = new Map();
  /** Alerts with a search: filed per batch under it or under their list condition (null: none). */
  private readonly searched: { alert: A; search: ParsedSearch; list: ListFiling | null }[] = [];
  private readonly everyChange: A[] = [];

  /**
   * Alerts whose conditions are null (a query no longer valid) match nothing and are not filed.
   * `grants` are the grants about to be matched: an alert's list condition is the one the fewest
   * of them hold (the fewest candidates), the first of LIST_FIELDS among equals (so without
   * grants, in LIST_FIELDS' order).
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
    const cost = (field: ListField, values: readonly string[]) =>
      values.reduce((sum, v) => sum + (held.get(field)?.get(v) ?? 0), 0);
    for (const alert of alerts) {
      const c = alert.conditions;
      if (c === null) continue;
      let list: ListFiling | null = null;
      for (const [field] of LIST_FIELDS) {
        if (c[field].length === 0) continue;
        const listCost = cost(field, c[field]);
        if (list === null || listCost < list.cost) list = { field, values: c[field], cost: listCost };
      }
      if (c.search !== null) this.searched.push({ alert, search: c.search, list });
      else if (list !== null) fileUnder(this.byValue, alert, list);
      else this.everyChange.push(alert);
    }
  }

  /**
   * For one batch of changes: a grant's candidates are the alerts filed under its values, under a
   * search whose matches in the batch (`textMatches`: the ids the search matches) hold the grant,
   * or checked for every change. Each search is asked once per batch; an alert with a search and
   * a list condition is filed under the search when it finds fewer of the batch's grants than
   * hold the list's values (a rare word beats a common province).
   */
  forBatch(textMatches: (search: ParsedSearch) => ReadonlySet<string>): (grant: Grant) => Set<A> {
    const bySearchHit = new Map<string, A[]>();
    const byValue: ByValue<A> = new Map(
      [...this.byValue].map(([field, values]) => [
        field,
        new Map([...values].map(([value, filed]) => [value, [...filed]])),
      ]),
    );
    for (const { alert, search, list } of this.searched) {
      const hits = textMatches(search);
      if (list !== null && list.cost <= hits.size) {
        fileUnder(byValue, alert, list);
        continue;
      }
      for (const id of hits) {
        const filed = bySearchHit.get(id);
        if (filed === undefined) bySearchHit.set(id, [alert]);
        else filed.push(alert);
      }
    }
    return (grant) => {
      const found = new Set<A>(this.everyChange);
      for (const [field, read] of LIST_FIELDS) {
        const values = byValue.get(field);
        if (values === undefined) continue;
        const held = read(grant);
        if (held === null) continue;
        for (const value of typeof held === 'string' ? [held] : held)
          for (const alert of values.get(value) ?? []) found.add(alert);
      }
      for (const alert of bySearchHit.get(grant.id) ?? []) found.add(alert);
      return found;
    };
  }
}
