// Search as you type around one request, the same on every engine: the completions of the last
// word typed are looked up in the engine's dictionary, then the words are counted under the
// filters and the context (the fewest counts that give the exact best ones: grants/suggest.ts
// topWords), and the titles and funder names holding a completion are grouped and counted by the
// engine, each kind's best `limit`; the answer is the best `limit` of them all. The rules are
// grants/suggest.ts's; where the engine finds each part, its SuggestSource.
import type { GrantQuery } from '../grants/query.js';
import {
  bySuggestOrder,
  completionText,
  prefixBudget,
  topWords,
  type CandidateWord,
  type SuggestInput,
  type SuggestItem,
  type SuggestTypes,
} from '../grants/suggest.js';

/** What GET /grants/suggest asks an engine. */
export interface SuggestRequest {
  input: SuggestInput;
  /**
   * The grants completions are counted over: the request's filters and, with words before the
   * last one, those words as a search (typos off, synonyms off, every word), sorted by deadline.
   */
  query: GrantQuery;
  limit: number;
  types: readonly SuggestTypes[];
}

/** Where an engine finds each part of a suggestion, all from one view of the catalog. */
export interface SuggestSource {
  /**
   * The dictionary's words completing `prefix` within `budget` typos, each with how many grants of the catalog hold it.
   */
  completions(prefix: string, budget: number): CandidateWord[] | Promise<CandidateWord[]>;
  /** How many grants of the request's query hold each word (as written, folded). */
  countWords(words: string[]): Promise<number[]>;
  /**
   * The `limit` titles (or funder names) with the most grants of the request's query whose title
   * (funder name) holds one of `words`, ties by text, each with that count.
   */
  topNames(kind: 'title' | 'funder', words: string[], limit: number): Promise<{ text: string; count: number }[]>;
}

/** The completions of a request from an engine's source: each kind's best, merged, the best `limit` of them. */
export async function suggestionsFrom(request: SuggestRequest, source: SuggestSource): Promise<SuggestItem[]> {
  const { input, limit, types } = request;
  const candidates = await source.completions(input.prefix, prefixBudget(input.prefix));
  if (candidates.length === 0) return [];
  const words = candidates.map((candidate) => candidate.word);
  const parts = await Promise.all([
    types.includes('words')
      ? topWords(candidates, limit, (asked) => source.countWords(asked)).then((best) =>
          best.map(({ word, count }) => ({ text: completionText(input, 'word', word), type: 'word' as const, count })),
        )
      : [],
    types.includes('titles')
      ? source
          .topNames('title', words, limit)
          .then((best) => best.map(({ text, count }) => ({ text, type: 'title' as const, count })))
      : [],
    types.includes('funders')
      ? source
          .topNames('funder', words, limit)
          .then((best) => best.map(({ text, count }) => ({ text, type: 'funder' as const, count })))
      : [],
  ]);
  return parts.flat().sort(bySuggestOrder).slice(0, limit);
}
