// The catalog's words as written, read from the index's `words` field (every text field copied,
// folded and lower-cased, not stemmed): the Lexicon of typo tolerance and suggestions
// (search/typoSearch.ts). Neighbours come from Elasticsearch's term suggester (Lucene's
// DirectSpellChecker: a Levenshtein automaton over the field's terms, transpositions counted as
// one edit, the first letter kept), how many grants hold a word from the term statistics of
// `_termvectors` on an artificial document. grants/typos.ts keeps what the rule allows.
import { errors, type Client } from '@elastic/elasticsearch';
import { MAX_TYPO_VARIANTS } from '../../grants/typos.js';
import { Deadline } from '../deadline.js';
import type { Lexicon } from '../typoSearch.js';

/** The field and analyzer of the word dictionary (mappings/elasticsearch-grants.json). */
export const WORDS_FIELD = 'words';
const WORDS_ANALYZER = 'grant_folded';

/**
 * Candidates asked per word (and inspected: max_inspections 1), far more than the rule keeps: the
 * suggester orders by a length-weighted similarity (every word one edit away before any two
 * away), not by typos then frequency, so every neighbour is asked for and grants/typos.ts
 * keptNeighbours chooses, as on the embedded engine. A word with more neighbours than this at
 * the distance asked (search/typoSearch.ts asks one edit first) may keep other ones than there.
 */
const CANDIDATES = MAX_TYPO_VARIANTS * 20;

type SuggestEntry = { options?: { text: string; freq: number }[] }[];

/**
 * The term suggester request of each word, named by its place: at most `budget(word)` edits, same first letter, every
 * candidate (none left out for being frequent).
 */
function suggestRequest(words: readonly string[], budget: (word: string) => number): Record<string, unknown> {
  return Object.fromEntries(
    words.map((word, i) => [
      `w${i}`,
      {
        text: word,
        term: {
          field: WORDS_FIELD,
          analyzer: WORDS_ANALYZER,
          suggest_mode: 'always',
          max_edits: Math.min(2, Math.max(1, budget(word))),
          prefix_length: 1,
          min_word_length: 1,
          max_term_freq: 2 ** 31 - 1,
          accuracy: 0,
          size: CANDIDATES,
          max_inspections: 1,
          sort: 'score',
          string_distance: 'damerau_levenshtein',
        },
      },
    ]),
  );
}

export class IndexLexicon implements Lexicon {
  constructor(
    private readonly client: Client,
    private readonly alias: string,
    /** The search's deadline: each request is given what is left of it. */
    private readonly deadline: Deadline = Deadline.NONE,
  ) {}

  async neighbours(
    words: readonly string[],
    budget: (word: string) => number,
  ): Promise<Map<string, { word: string; docs: number }[]>> {
    const asked = words.filter((word) => budget(word) > 0);
    if (asked.length === 0) return new Map();
    let response: { suggest?: Record<string, SuggestEntry> };
    try {
      response = (await this.client.search(
        { index: this.alias, size: 0, track_total_hits: false, suggest: suggestRequest(asked, budget) } as never,
        { requestTimeout: this.deadline.callTimeout() },
      )) as typeof response;
    } catch (error) {
      // An index built before the `words` field: Elasticsearch refuses a suggester on a field it
      // does not have (400). No neighbours, as the guide says, until a reindex.
      if (error instanceof errors.ResponseError && error.statusCode === 400) return new Map();
      throw error;
    }
    return new Map(
      asked.map((word, i) => [
        word,
        (response.suggest?.[`w${i}`] ?? [])
          .flatMap((entry) => entry.options ?? [])
          .map((o) => ({ word: o.text, docs: o.freq })),
      ]),
    );
  }

  async docs(words: readonly string[]): Promise<Map<string, number>> {
    if (words.length === 0) return new Map();
    const response = (await this.client.termvectors(
      {
        index: this.alias,
        doc: { [WORDS_FIELD]: words.join(' ') },
        fields: [WORDS_FIELD],
        term_statistics: true,
        field_statistics: false,
        positions: false,
        offsets: false,
      } as never,
      { requestTimeout: this.deadline.callTimeout() },
    )) as { term_vectors?: Record<string, { terms?: Record<string, { doc_freq?: number }> }> };
    const terms = response.term_vectors?.[WORDS_FIELD]?.terms ?? {};
    return new Map(words.map((word) => [word, terms[word]?.doc_freq ?? 0]));
  }
}
