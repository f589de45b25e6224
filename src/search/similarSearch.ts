// The grants like one grant (grants/similarity.ts), on any engine: the engine gives the grant,
// how many grants each of its terms matches and the grants matching any chosen term (the query's
// filters applied); the choice of terms, the scores and the order are the shared method's, so
// every engine gives the same answer.
import type { GrantQuery } from '../grants/query.js';
import type { Grant } from '../grants/schema.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';
import {
  anyTermSearch,
  chooseTerms,
  MAX_SCORED_GRANTS,
  mostDocs,
  rankSimilar,
  sourceTerms,
  wordSearch,
  type SimilarTerm,
} from '../grants/similarity.js';
import type { SearchEngine, WordCount } from './engine.js';
import { countQuery } from './relaxedSearch.js';

/**
 * The grants like one grant: how many there are, the best `limit` as their JSON texts, and the terms they were found
 * by.
 */
interface SimilarResult {
  total: number;
  grantsJson: string[];
  terms: SimilarTerm[];
  /** The search of the chosen terms (what a highlighter marks); null when no term was chosen. */
  search: ParsedSearch | null;
}

/**
 * The query's text options as the method runs every search: the words as they are (no typo, no synonym, every word).
 */
const asWritten = (query: GrantQuery, search: ParsedSearch | null, words: string[]): GrantQuery => ({
  ...query,
  search,
  words,
  typos: 'off',
  matching: 'all',
  synonyms: false,
  relaxed: null,
});

/** The count of the grants a search of `word` alone matches in the whole catalog (the query's filters not applied). */
export const wordCount = (query: GrantQuery, word: string): WordCount => ({
  word,
  query: countQuery(asWritten(query, null, [word]), wordSearch(word)),
});

/**
 * The grants like the grant `id` under the query's filters (its paging, sort, facets and search
 * are not used; `limit` is how many come back), best first; null when no grant has that id.
 */
export async function similarGrants(
  engine: SearchEngine,
  id: string,
  query: GrantQuery,
): Promise<SimilarResult | null> {
  const json = await engine.getByIdJson(id);
  if (json === null) return null;
  const grant = JSON.parse(json) as Grant;
  const candidates = sourceTerms(grant);
  // Each term's count in the whole catalog (no filter): what its idf is made of; past mostDocs
  // the term is not chosen, so an engine may answer any larger count there.
  const counts = candidates.map(({ word }) => wordCount(query, word));
  const size = await engine.count();
  const docs = engine.wordTotals
    ? await engine.wordTotals(counts, mostDocs(size))
    : await Promise.all(counts.map(async (count) => (await engine.searchJson(count.query)).total));
  const terms = chooseTerms(candidates, docs, size);
  if (terms.length === 0) return { total: 0, grantsJson: [], terms, search: null };
  const search = anyTermSearch(terms);
  // Every grant matching a term, in any order: the chosen terms' counts add up to at most MAX_SCORED_GRANTS.
  const everyMatch = MAX_SCORED_GRANTS + 1;
  const found = await engine.searchJson({
    ...asWritten(
      query,
      search,
      terms.map((term) => term.word),
    ),
    sort: { key: 'deadline', descending: false },
    facets: [],
    cursor: null,
    page: 1,
    offset: 0,
    limit: everyMatch,
    size: everyMatch,
  });
  const ranked = rankSimilar(
    grant.id,
    found.grantsJson.map((text) => ({ grant: JSON.parse(text) as Grant, item: text })),
    terms,
  );
  return { total: ranked.length, grantsJson: ranked.slice(0, query.limit).map((r) => r.item), terms, search };
}
