// GrantQuery → Elasticsearch query DSL. Pure: no I/O, unit-tested on its output.
import { FACET_FILTERS, type FacetName, type GrantQuery, type SortKey } from '../../grants/query.js';
import { LABELS_WEIGHT } from '../../grants/labels.js';
import type { ParsedSearch, SearchClause, SearchTerm } from '../../grants/searchSyntax.js';
import { termSearch, type RelaxationPlan } from '../../grants/relaxation.js';
import { facetAggregations, type Condition } from './facets.js';
import { ID_KEY_SORT } from './idKeys.js';

export type { Condition };

/**
 * The text fields with their relevance boosts, as in the embedded engine: title above funder
 * above description, the French title and description as the English ones, the labels lowest
 * (grants/labels.ts). Each is analysed in English; its `.fr` subfield in French.
 */
const BOOSTED = [['title', 3], ['funder', 2], ['description', 1], ['titleFr', 3], ['descriptionFr', 1], ['labels', LABELS_WEIGHT]] as const;

const boosted = (suffix: string): string[] => BOOSTED.map(([field, boost]) => (boost === 1 ? `${field}${suffix}` : `${field}${suffix}^${boost}`));

/** The fields of the English analysis. */
export const TEXT_FIELDS = boosted('');

/** The fields of the French analysis (grant_french: elision, folding, light stemming). */
export const FRENCH_TEXT_FIELDS = boosted('.fr');

/**
 * The keyword `sort=title` orders by: titleSortKey(title), computed by the writer at index time
 * and kept out of _source (see mappings/elasticsearch-grants.json).
 */
export const TITLE_SORT_FIELD = 'titleSort';

/** The indexed field each sort key orders by. */
export const SORT_FIELDS: Record<Exclude<SortKey, 'relevance'>, string> = {
  deadline: 'deadline',
  amountMin: 'amountMin',
  amountMax: 'amountMax',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  title: TITLE_SORT_FIELD,
};

export interface EsSearchRequest {
  query: Record<string, unknown>;
  /** The filters of the facets asked for, applied to the hits after the facets are counted. */
  post_filter?: Record<string, unknown>;
  aggs?: Record<string, unknown>;
  sort: unknown[];
  from: number;
  size: number;
  track_total_hits: true;
}

const exists = (field: string) => ({ exists: { field } });
const either = (...clauses: unknown[]) => ({ bool: { should: clauses, minimum_should_match: 1 } });
const missing = (field: string) => ({ bool: { must_not: [exists(field)] } });

/** Every filter of the query, in a fixed order, each tagged with the facet it belongs to. */
export function conditionsOf(query: GrantQuery): Condition[] {
  const conditions: Condition[] = [];
  const terms = (facet: FacetName, field: string, values: readonly string[]) => {
    if (values.length > 0) conditions.push({ facet, clause: { terms: { [field]: values } } });
  };
  const plain = (clause: Record<string, unknown>) => conditions.push({ facet: null, clause });
  // Each list facet filters the field of its own name.
  for (const [facet, valuesOf] of Object.entries(FACET_FILTERS) as [FacetName, (q: GrantQuery) => readonly string[]][]) {
    terms(facet, facet, valuesOf(query));
  }
  if (query.isRecurring !== null) conditions.push({ facet: 'isRecurring', clause: { term: { isRecurring: query.isRecurring } } });
  if (query.amountMin !== null || query.amountMax !== null) {
    // Ranges overlap; a missing bound of the grant is open on its side; no amounts, no match.
    plain(either(exists('amountMin'), exists('amountMax')));
    if (query.amountMin !== null) plain(either({ range: { amountMax: { gte: query.amountMin } } }, missing('amountMax')));
    if (query.amountMax !== null) plain(either({ range: { amountMin: { lte: query.amountMax } } }, missing('amountMin')));
  }
  // Dates are compared as epoch milliseconds (a date field's stored value): exact to the millisecond.
  if (query.open === true) plain(either({ range: { deadline: { gte: query.now } } }, missing('deadline')));
  if (query.open === false) plain({ range: { deadline: { lt: query.now } } });
  if (query.deadlineFrom !== null || query.deadlineTo !== null) {
    plain({ range: { deadline: { ...(query.deadlineFrom !== null && { gte: query.deadlineFrom }), ...(query.deadlineTo !== null && { lte: query.deadlineTo }) } } });
  }
  if (query.updatedSince !== null) plain({ range: { updatedAt: { gte: query.updatedSince } } });
  return conditions;
}

/** The order's first clause: the key (nulls last in both directions), or the score for relevance. */
function keyClause(query: GrantQuery): unknown {
  const { key, descending } = query.sort;
  if (key === 'relevance') return '_score';
  return { [SORT_FIELDS[key]]: { order: descending ? 'desc' : 'asc', missing: '_last' } };
}

/**
 * The order: the key (nulls last in both directions), then id ascending; relevance is score then
 * id. What keyset requests (cursor pages, exports) sort by: their search_after place is a key and an id.
 */
export function sortOf(query: GrantQuery): unknown[] {
  return [keyClause(query), { id: 'asc' }];
}

/**
 * The same order with the id spelled as numbers (idKeys.ts): what an offset page sorts by. The
 * sort values of its hits are [key, ...keys, rest]; on an index without the keys they say so
 * (lacksIdKeys) and the page is asked again with sortOf.
 */
export function pageSortOf(query: GrantQuery): unknown[] {
  return [keyClause(query), ...ID_KEY_SORT];
}

/** A phrase: its words adjacent and in order in one field, in either analysis (each field's analyzer, as indexed). */
const phraseQuery = (term: SearchTerm) => ({ multi_match: { query: term.words.join(' '), fields: [...TEXT_FIELDS, ...FRENCH_TEXT_FIELDS], type: 'phrase' } });

/**
 * A single word: in some field in the English analysis, or in some field in the French one
 * (cross_fields in each: the fields of one analysis scored as one).
 */
const wordQuery = (word: string) =>
  either(
    { multi_match: { query: word, fields: [...TEXT_FIELDS], type: 'cross_fields', operator: 'and' } },
    { multi_match: { query: word, fields: [...FRENCH_TEXT_FIELDS], type: 'cross_fields', operator: 'and' } },
  );

/**
 * The queries a clause's terms make: each single word in either analysis, and each phrase in some
 * field. The words are plain text for the analyzer, never query syntax.
 */
function termQueries(terms: readonly SearchTerm[]): unknown[] {
  return terms.map(termQuery);
}

/** A term's own words: a single word, or a phrase. */
const wordsQuery = (words: string[]) => (words.length === 1 ? wordQuery(words[0]) : phraseQuery({ words }));

/** A term: its words, or with alternatives (grants/searchSyntax.ts: synonyms) its words or any alternative's, its own first. */
const termQuery = (term: SearchTerm): unknown =>
  (term.alternatives?.length ?? 0) === 0 ? wordsQuery(term.words) : either(...[term.words, ...term.alternatives!.map((a) => a.words)].map(wordsQuery));

/** A clause: every term it finds (must), none it excludes (must_not, one query per excluded term). */
function clauseQuery(clause: SearchClause): { must: unknown[]; must_not?: unknown[] } {
  const mustNot = clause.not.map((term) => (term.words.length === 1 ? termQueries([term])[0] : phraseQuery(term)));
  return mustNot.length === 0 ? { must: termQueries(clause.must) } : { must: termQueries(clause.must), must_not: mustNot };
}

/**
 * The text condition as bool clauses (grants/searchSyntax.ts): none without a search; one clause
 * as the bool's own must and must_not; several as a should of bools, one of which must match; no
 * clause (nothing to find) matches nothing.
 */
export function textQueryOf(search: ParsedSearch | null): { must: unknown[]; must_not?: unknown[] } {
  if (search === null) return { must: [] };
  const { clauses } = search;
  if (clauses.length === 0) return { must: [{ match_none: {} }] };
  if (clauses.length === 1) return clauseQuery(clauses[0]);
  return { must: [{ bool: { should: clauses.map((clause) => ({ bool: clauseQuery(clause) })), minimum_should_match: 1 } }] };
}

/**
 * What one relaxation level (a step a grant reaches) adds to its score: far above any text score
 * of a real search (a term's BM25 part is at most its idf times its field boost, a few tens), so
 * a grant keeping more words always ranks first and the text score orders within (the ranking
 * rule is in the engine architecture doc).
 */
export const RELAXATION_LEVEL_WEIGHT = 10_000;

/**
 * A relaxed search (grants/relaxation.ts): the most relaxed step must match; each term it gave up
 * adds its score when the grant holds it (should); each earlier step the grant reaches adds
 * RELAXATION_LEVEL_WEIGHT. Without a plan, the query as it is.
 */
export function relaxationRanked(plan: RelaxationPlan | null | undefined, query: { bool: Record<string, unknown> }): Record<string, unknown> {
  if (plan === null || plan === undefined) return query;
  const scoring = plan.givenUp.map((term) => ({ bool: textQueryOf(termSearch(term)) }));
  return {
    function_score: {
      query: { bool: { ...query.bool, ...(scoring.length > 0 && { should: scoring }) } },
      // A weight for every grant, so one that reaches no level is not given function_score's default of 1.
      functions: [{ weight: 1 }, ...plan.levels.map((level) => ({ filter: { bool: textQueryOf(level) }, weight: RELAXATION_LEVEL_WEIGHT }))],
      score_mode: 'sum',
      boost_mode: 'sum',
    },
  };
}

export function translateToElasticsearch(query: GrantQuery): EsSearchRequest {
  const conditions = conditionsOf(query);
  const counted = new Set(query.facets);
  // A filter of a facet asked for moves to post_filter, so that facet's count can leave it out.
  const filter = conditions.filter((c) => c.facet === null || !counted.has(c.facet)).map((c) => c.clause);
  const faceted = conditions.filter((c) => c.facet !== null && counted.has(c.facet));
  return {
    query: relaxationRanked(query.relaxed, { bool: { ...textQueryOf(query.relaxed?.search ?? query.search), filter } }),
    ...(faceted.length > 0 && { post_filter: { bool: { filter: faceted.map((c) => c.clause) } } }),
    ...(query.facets.length > 0 && { aggs: facetAggregations(query.facets, faceted) }),
    sort: pageSortOf(query),
    from: query.offset,
    size: query.size,
    track_total_hits: true,
  };
}
