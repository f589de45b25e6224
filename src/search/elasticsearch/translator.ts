// GrantQuery → Elasticsearch query DSL. Pure: no I/O, unit-tested on its output.
import { FACET_FILTERS, type GrantQuery, type SortKey, type StoredFacetName } from '../../grants/query.js';
import { LABELS_WEIGHT } from '../../grants/labels.js';
import type { ParsedSearch, SearchClause, SearchTerm } from '../../grants/searchSyntax.js';
import { termSearch, type RelaxationPlan } from '../../grants/relaxation.js';
import { hasAlternatives, typoPenaltyLevels } from '../../grants/typos.js';
import { either, exists, missing } from './clauses.js';
import { facetAggregations, type Condition } from './facets.js';
import { ID_KEY_SORT } from './idKeys.js';
import { statusClauses, statusCutAt, type StatusCut } from './statusClauses.js';

export type { Condition };

/**
 * The text fields with their relevance boosts, as in the embedded engine: title above funder
 * above description, the French title and description as the English ones, the labels lowest
 * (grants/labels.ts). Each is analysed in English; its `.fr` subfield in French.
 */
const BOOSTED = [
  ['title', 3],
  ['funder', 2],
  ['description', 1],
  ['titleFr', 3],
  ['descriptionFr', 1],
  ['labels', LABELS_WEIGHT],
] as const;

const boosted = (suffix: string): string[] =>
  BOOSTED.map(([field, boost]) => (boost === 1 ? `${field}${suffix}` : `${field}${suffix}^${boost}`));

/** The fields of the English analysis. */
const TEXT_FIELDS = boosted('');

/** The fields of the French analysis (grant_french: elision, folding, light stemming). */
const FRENCH_TEXT_FIELDS = boosted('.fr');

/**
 * The keyword `sort=title` orders by: titleSortKey(title), computed by the writer at index time
 * and kept out of _source (see mappings/elasticsearch-grants.json).
 */
export const TITLE_SORT_FIELD = 'titleSort';

/** The indexed field each sort key orders by. */
export const SORT_FIELDS: Record<Exclude<SortKey, 'relevance'>, string> = {
  deadline: 'deadline',
  opensAt: 'opensAt',
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

/**
 * Every filter of the query, in a fixed order, each tagged with the facet it belongs to; statuses
 * at the query's time, or at a cut that parts the catalog as that time does (statusClauses.ts).
 */
export function conditionsOf(query: GrantQuery, statusCut: StatusCut = statusCutAt(query.now)): Condition[] {
  const conditions: Condition[] = [];
  const terms = (facet: StoredFacetName, field: string, values: readonly string[]) => {
    if (values.length > 0) conditions.push({ facet, clause: { terms: { [field]: values } } });
  };
  const plain = (clause: Record<string, unknown>) => conditions.push({ facet: null, clause });
  // Each list facet filters the field of its own name.
  for (const [facet, valuesOf] of Object.entries(FACET_FILTERS) as [
    StoredFacetName,
    (q: GrantQuery) => readonly string[],
  ][]) {
    terms(facet, facet, valuesOf(query));
  }
  if (query.isRecurring !== null)
    conditions.push({ facet: 'isRecurring', clause: { term: { isRecurring: query.isRecurring } } });
  const statuses = statusClauses(statusCut);
  if (query.statuses.length > 0)
    conditions.push({ facet: 'status', clause: either(...query.statuses.map((status) => statuses[status])) });
  if (query.amountMin !== null || query.amountMax !== null) {
    // Ranges overlap; a missing bound of the grant is open on its side; no amounts, no match.
    plain(either(exists('amountMin'), exists('amountMax')));
    if (query.amountMin !== null)
      plain(either({ range: { amountMax: { gte: query.amountMin } } }, missing('amountMax')));
    if (query.amountMax !== null)
      plain(either({ range: { amountMin: { lte: query.amountMax } } }, missing('amountMin')));
  }
  // A range on the grant's own amount: a missing amount never matches.
  if (query.amountMinRange)
    plain({ range: { amountMin: { gte: query.amountMinRange.min, lte: query.amountMinRange.max } } });
  if (query.amountMaxRange)
    plain({ range: { amountMax: { gte: query.amountMaxRange.min, lte: query.amountMaxRange.max } } });
  // Dates are compared as epoch milliseconds (a date field's stored value): exact to the millisecond.
  // `open` is a condition of its own, not the status facet's filter: the facet is counted with it.
  if (query.open === true) plain(statuses.OPEN);
  if (query.open === false) plain(either(statuses.FORECASTED, statuses.CLOSED));
  if (query.deadlineFrom !== null || query.deadlineTo !== null) {
    plain({
      range: {
        deadline: {
          ...(query.deadlineFrom !== null && { gte: query.deadlineFrom }),
          ...(query.deadlineTo !== null && { lte: query.deadlineTo }),
        },
      },
    });
  }
  if (query.updatedSince !== null) plain({ range: { updatedAt: { gte: query.updatedSince } } });
  return conditions;
}

/** The order's first clause: the key (nulls last in both directions), or the score for relevance. */
function keyClause(query: GrantQuery): unknown {
  const { key, descending } = query.sort;
  if (key === 'relevance') return '_score';
  // An index built before grants had opensAt sorts by it as if every value were missing.
  const unmapped = key === 'opensAt' ? { unmapped_type: 'date' } : {};
  return { [SORT_FIELDS[key]]: { order: descending ? 'desc' : 'asc', missing: '_last', ...unmapped } };
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
function pageSortOf(query: GrantQuery): unknown[] {
  return [keyClause(query), ...ID_KEY_SORT];
}

/** A phrase: its words adjacent and in order in one field, in either analysis (each field's analyzer, as indexed). */
const phraseQuery = (term: SearchTerm) => ({
  multi_match: { query: term.words.join(' '), fields: [...TEXT_FIELDS, ...FRENCH_TEXT_FIELDS], type: 'phrase' },
});

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
 * A term's own words: a single word or a phrase, in either analysis; words a synonym joined
 * (`loose`) each in either analysis, all of them.
 */
const ownWordsQuery = (term: SearchTerm) =>
  term.words.length === 1
    ? wordQuery(term.words[0])
    : term.loose === true
      ? { bool: { must: term.words.map(wordQuery) } }
      : phraseQuery(term);

const alternativesOf = (term: SearchTerm) => term.alternatives ?? [];

/** Any of the terms (their own words only, each in either analysis). */
const anyOf = (terms: readonly SearchTerm[]) => ({
  bool: { should: terms.map(ownWordsQuery), minimum_should_match: 1 },
});

/** A term with alternatives (grants/typos.ts): its own word or any alternative's, each in either analysis. */
const alternativesQuery = (term: SearchTerm) =>
  anyOf([
    { words: term.words, ...(term.loose === true && { loose: true as const }) },
    ...alternativesOf(term).map((a) => ({ words: a.words })),
  ]);

/** A term: its own words, or with alternatives any of them. */
const termQuery = (term: SearchTerm) =>
  alternativesOf(term).length > 0 ? alternativesQuery(term) : ownWordsQuery(term);

/**
 * The queries a clause's terms make: each single word in either analysis, each phrase in some
 * field, each term with alternatives as any of its words. The words are plain text for the
 * analyzer, never query syntax.
 */
function termQueries(terms: readonly SearchTerm[]): unknown[] {
  return terms.map(termQuery);
}

/**
 * The text score's scale under typo ranking: the scores of real searches stay far below 1 / this
 * (a term's BM25 part is at most its idf times its field boost), so one typo level outweighs any
 * difference of text scores.
 */
export const TYPO_TEXT_SCALE = 1e-4;

/**
 * The typo ranking (grants/typos.ts typoPenaltyLevels; the rule is in the engine architecture
 * doc): the text score scaled by TYPO_TEXT_SCALE, plus 1 per typo level the grant reaches (and
 * 1 for every grant, so that a grant reaching none is not given function_score's default of 1),
 * so fewer typos rank first and the text score orders within (in Lucene's float precision).
 * Without alternatives, the query as it is.
 */
function typoRanked(search: ParsedSearch | null, query: { bool: Record<string, unknown> }): Record<string, unknown> {
  // Alternatives with no typo (synonyms) make no level: the text score as it is.
  if (search === null || !hasAlternatives(search) || typoPenaltyLevels(search).length === 0) return query;
  return {
    function_score: {
      query: { bool: { ...query.bool, boost: TYPO_TEXT_SCALE } },
      functions: [
        { weight: 1 },
        ...typoPenaltyLevels(search).map((level) => ({ filter: anyOf(level.terms), weight: 1 })),
      ],
      score_mode: 'sum',
      boost_mode: 'sum',
    },
  };
}

/** A clause: every term it finds (must), none it excludes (must_not, one query per excluded term). */
function clauseQuery(clause: SearchClause): { must: unknown[]; must_not?: unknown[] } {
  const mustNot = clause.not.map(ownWordsQuery);
  return mustNot.length === 0
    ? { must: termQueries(clause.must) }
    : { must: termQueries(clause.must), must_not: mustNot };
}

/**
 * The text condition as bool clauses (grants/searchSyntax.ts): none without a search; one clause
 * as the bool's own must and must_not; several as a should of bools, one of which must match; no
 * clause (nothing to find) matches nothing.
 */
function textQueryOf(search: ParsedSearch | null): { must: unknown[]; must_not?: unknown[] } {
  if (search === null) return { must: [] };
  const { clauses } = search;
  if (clauses.length === 0) return { must: [{ match_none: {} }] };
  if (clauses.length === 1) return clauseQuery(clauses[0]);
  return {
    must: [{ bool: { should: clauses.map((clause) => ({ bool: clauseQuery(clause) })), minimum_should_match: 1 } }],
  };
}

/**
 * What one relaxation level (a step a grant reaches) adds to its score without typo ranking: far
 * above any text score of a real search (a term's BM25 part is at most its idf times its field
 * boost, a few tens), so a grant keeping more words always ranks first and the text score orders
 * within (the ranking rule is in the architecture guide).
 */
const RELAXATION_LEVEL_WEIGHT = 10_000;

/**
 * A relaxed search's ranking (grants/relaxation.ts) around the query of its most relaxed step
 * (typoRanked's, whose bool scores the given-up terms as should clauses): each earlier step the
 * grant reaches adds a weight above anything the typo ranking adds (RELAXATION_LEVEL_WEIGHT, or
 * with typo levels their number plus 2, keeping the scaled text score in Lucene's float
 * precision), so more kept words rank first, then fewer typos, then the text score. Without a
 * plan, the query as it is.
 */
function relaxationRanked(
  plan: RelaxationPlan | null | undefined,
  search: ParsedSearch | null,
  query: Record<string, unknown>,
): Record<string, unknown> {
  if (plan === null || plan === undefined) return query;
  const typoLevels = search === null ? 0 : typoPenaltyLevels(search).length;
  const weight = typoLevels === 0 || !hasAlternatives(search) ? RELAXATION_LEVEL_WEIGHT : typoLevels + 2;
  return {
    function_score: {
      query,
      // A weight for every grant, so one that reaches no level is not given function_score's default of 1.
      functions: [{ weight: 1 }, ...plan.levels.map((level) => ({ filter: { bool: textQueryOf(level) }, weight }))],
      score_mode: 'sum',
      boost_mode: 'sum',
    },
  };
}

export function translateToElasticsearch(
  query: GrantQuery,
  statusCut: StatusCut = statusCutAt(query.now),
): EsSearchRequest {
  const conditions = conditionsOf(query, statusCut);
  const counted = new Set(query.facets);
  // A filter of a facet asked for moves to post_filter, so that facet's count can leave it out.
  const filter = conditions.filter((c) => c.facet === null || !counted.has(c.facet)).map((c) => c.clause);
  const faceted = conditions.filter((c) => c.facet !== null && counted.has(c.facet));
  // Relaxed (grants/relaxation.ts): the most relaxed step matches; each term it gave up scores when held.
  const plan = query.relaxed ?? null;
  const scoring = plan === null ? [] : plan.givenUp.map((term) => ({ bool: textQueryOf(termSearch(term)) }));
  return {
    query: relaxationRanked(
      plan,
      query.search,
      typoRanked(query.search, {
        bool: { ...textQueryOf(plan?.search ?? query.search), filter, ...(scoring.length > 0 && { should: scoring }) },
      }),
    ),
    ...(faceted.length > 0 && { post_filter: { bool: { filter: faceted.map((c) => c.clause) } } }),
    ...(query.facets.length > 0 && { aggs: facetAggregations(query.facets, faceted, statusCut) }),
    sort: pageSortOf(query),
    from: query.offset,
    size: query.size,
    track_total_hits: true,
  };
}
