// Typo tolerance and the "did you mean" suggestion around one search, the same on every engine:
// the neighbours of the search's words are looked up once in the engine's dictionary
// (a Lexicon), become the alternatives its terms carry when `typos=auto`, and are reused for the
// suggestion when the search finds few grants. The rules themselves are grants/typos.ts's.
import type { GrantQuery } from '../grants/query.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';
import type { Deadline } from './deadline.js';
import {
  keptNeighbours,
  MAX_TYPO_VARIANTS,
  respelledSearch,
  searchText,
  SUGGESTION_BELOW,
  typoBudget,
  typoWords,
  withTypoAlternatives,
  type Neighbour,
  type Suggestion,
} from '../grants/typos.js';

/** An engine's dictionary of the catalog's words as written (folded, lower case, unstemmed). */
export interface Lexicon {
  /**
   * For each word, catalog words within `budget(word)` typos of it starting with its first letter
   * (the word itself left out; any order; more than the rule keeps is fine: keptNeighbours filters).
   */
  neighbours(
    words: readonly string[],
    budget: (word: string) => number,
  ): Promise<Map<string, { word: string; docs: number }[]>>;
  /** How many grants hold each word. */
  docs(words: readonly string[]): Promise<Map<string, number>>;
}

/** The neighbours the typo rule keeps for each word of the search that may carry typos. */
function neighboursOf(search: ParsedSearch, lexicon: Lexicon): Promise<Map<string, Neighbour[]>> {
  return wordNeighbours(typoWords(search), lexicon);
}

/** One typo at most: the first look-up's budget. */
const oneTypo = (word: string): number => Math.min(1, typoBudget(word));

/**
 * The neighbours the typo rule keeps for each of these words (typoForm). Those one typo away are
 * looked up first, and those two away only for the words that may carry two and have fewer than
 * MAX_TYPO_VARIANTS one away: the closest are kept first, so the words that have enough keep the
 * same ones as from one look-up of all, and a catalog crowded with near words costs the cheap walk.
 */
export async function wordNeighbours(words: readonly string[], lexicon: Lexicon): Promise<Map<string, Neighbour[]>> {
  const asked = words.filter((word) => typoBudget(word) > 0);
  if (asked.length === 0) return new Map();
  const near = await lexicon.neighbours(asked, oneTypo);
  const kept = new Map(asked.map((word) => [word, keptNeighbours(word, near.get(word) ?? [])]));
  const further = asked.filter((word) => typoBudget(word) > 1 && kept.get(word)!.length < MAX_TYPO_VARIANTS);
  if (further.length > 0) {
    const found = await lexicon.neighbours(further, typoBudget);
    for (const word of further) kept.set(word, keptNeighbours(word, found.get(word) ?? []));
  }
  return kept;
}

/** The query as the engine runs it: with `typos=auto`, each term carries its alternatives. */
function derivedQuery(query: GrantQuery, neighbours: ReadonlyMap<string, readonly Neighbour[]>): GrantQuery {
  if (query.search === null || query.typos !== 'auto') return query;
  return { ...query, search: withTypoAlternatives(query.search, neighbours) };
}

/**
 * The query as the engine runs it, its search derived with the neighbours when `typos=auto`; the
 * neighbours, for the suggestion (null when not looked up: typos off).
 */
export async function prepareSearch(
  query: GrantQuery,
  lexicon: Lexicon,
): Promise<{ query: GrantQuery; neighbours: Map<string, Neighbour[]> | null }> {
  if (query.search === null || query.typos !== 'auto') return { query, neighbours: null };
  const neighbours = await neighboursOf(query.search, lexicon);
  return { query: derivedQuery(query, neighbours), neighbours };
}

/**
 * The "did you mean" of a search that found `total` grants (`known`: its neighbours when already
 * looked up): null when it found SUGGESTION_BELOW or more, when no word is respelled, or when the
 * respelled search (same filters, same typo mode) finds no more grants. `count` runs a query for
 * its total alone. Within the search's deadline (the lexicon and `count` keep to it too): null,
 * rather than a late answer, when less than half of the budget is left before it starts or the
 * deadline passes while it runs.
 */
export async function suggestionFor(
  query: GrantQuery,
  total: number,
  known: ReadonlyMap<string, readonly Neighbour[]> | null,
  lexicon: Lexicon,
  count: (query: GrantQuery) => Promise<number>,
  deadline: Deadline,
): Promise<Suggestion | null> {
  if (query.search === null || total >= SUGGESTION_BELOW || !deadline.halfLeft()) return null;
  try {
    return await respelling(query, query.search, total, known, lexicon, count);
  } catch (error) {
    if (deadline.passed()) return null;
    throw error;
  }
}

/** suggestionFor's steps, `search` the query's. */
async function respelling(
  query: GrantQuery,
  search: ParsedSearch,
  total: number,
  known: ReadonlyMap<string, readonly Neighbour[]> | null,
  lexicon: Lexicon,
  count: (query: GrantQuery) => Promise<number>,
): Promise<Suggestion | null> {
  const neighbours = known ?? (await neighboursOf(search, lexicon));
  if (neighbours.size === 0) return null;
  const docs = await lexicon.docs([...neighbours.keys()]);
  const respelled = respelledSearch(search, neighbours, docs);
  if (respelled === null) return null;
  const plain: GrantQuery = {
    ...query,
    search: respelled,
    sort: { key: 'deadline', descending: false },
    facets: [],
    cursor: null,
    page: 1,
    offset: 0,
    size: 0,
    limit: 0,
  };
  const respelledTotal = await count(
    query.typos === 'auto' ? derivedQuery(plain, await neighboursOf(respelled, lexicon)) : plain,
  );
  return respelledTotal > total ? { search: searchText(respelled), total: respelledTotal } : null;
}
