// Search as you type around one request, the same on every engine: the completions of the last
// word typed and the titles and funder names holding one are read from the build's suggestion
// index (search/suggestDictionary.ts), the most frequent in the catalog first; with no condition
// (no filter, no word before the last) the catalog's counts are the counts and the engine is not
// asked; with conditions each kind's candidates are counted by the engine under them, a batch of
// every kind at once, until the best `limit` of each are known (grants/suggest.ts topCounted),
// unless the engine finds a kind's best at once from the grants under the conditions (its `top`:
// where those grants are few, or where a round of counting costs a request). The answer is the
// best `limit` of the kinds merged. The rules are grants/suggest.ts's; where
// the engine finds each part, its SuggestSource.
import type { GrantQuery } from '../grants/query.js';
import {
  bySuggestOrder,
  completionText,
  KIND_OF_TYPE,
  prefixBudget,
  topCounted,
  type Candidate,
  type Counted,
  type SuggestInput,
  type SuggestItem,
  type SuggestTypes,
} from '../grants/suggest.js';
import type { SuggestCandidates, SuggestDictionary } from './suggestDictionary.js';

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

/** Candidates of each kind asked, and their counts answered, in the same order. */
export type SuggestBatches<T> = Partial<Record<SuggestTypes, T[]>>;

/** Where an engine finds each part of a suggestion, all from one view of the catalog. */
export interface SuggestSource {
  /** The suggestion index of the catalog build the request is answered from. */
  dictionary(): SuggestDictionary | Promise<SuggestDictionary>;
  /**
   * How many grants of the request's query hold each word (as written, folded) or bear each title
   * or funder name; null when the query has no condition (every grant counts: the catalog's counts).
   */
  count: ((batches: SuggestBatches<Candidate>) => Promise<SuggestBatches<number>>) | null;
  /**
   * With conditions, the best `limit` of some of `kinds` found at once from the grants under them
   * rather than by counting candidates in rounds (where the grants are few, or a round costs a
   * request); the kinds left out of the answer are counted candidate by candidate. The same best as
   * topCounted's: among `candidates`, the most grants first, ties by text, none counting no grant.
   */
  top?: (
    kinds: readonly SuggestTypes[],
    candidates: SuggestCandidates,
    limit: number,
  ) => Promise<SuggestBatches<Counted>>;
}

/** The catalog's counts: what a request with no condition counts. */
const catalogCounts = async (batches: SuggestBatches<Candidate>): Promise<SuggestBatches<number>> =>
  Object.fromEntries(Object.entries(batches).map(([kind, asked]) => [kind, asked.map((c) => c.docs)]));

/** The completions of a request from an engine's source: each kind's best, merged, the best `limit` of them. */
export async function suggestionsFrom(request: SuggestRequest, source: SuggestSource): Promise<SuggestItem[]> {
  const { input, limit, types } = request;
  const dictionary = await source.dictionary();
  const candidates = dictionary.candidates(input.prefix, prefixBudget(input.prefix));
  if (candidates === null) return [];
  const found = source.count !== null && source.top !== undefined ? await source.top(types, candidates, limit) : {};
  const streams = {} as Record<SuggestTypes, Iterator<Candidate>>;
  for (const type of types) {
    if (found[type] !== undefined) continue;
    streams[type] = type === 'words' ? candidates.words() : candidates.names(type === 'titles' ? 'title' : 'funder');
  }
  const count = (source.count ?? catalogCounts) as (
    batches: Record<SuggestTypes, Candidate[]>,
  ) => Promise<Record<SuggestTypes, number[]>>;
  // With no condition a batch of `limit` is enough: the catalog's counts come in their order.
  const best = {
    ...(await topCounted(streams, limit, count, source.count === null ? limit : undefined)),
    ...found,
  } as Record<SuggestTypes, Counted[]>;
  return types
    .flatMap((type) =>
      best[type].map(({ text, count }) => {
        const kind = KIND_OF_TYPE[type];
        return { text: completionText(input, kind, text), type: kind, count };
      }),
    )
    .sort(bySuggestOrder)
    .slice(0, limit);
}
