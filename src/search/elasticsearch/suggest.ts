// Search as you type on Elasticsearch (search/suggestSearch.ts's SuggestSource): the dictionary
// of the `words` field (every text field copied, folded and lower-cased, not stemmed) held in
// memory as a sorted word list with how many grants hold each, read by a terms aggregation in
// partitions and read again when the change log's counter or the alias's index moved (looked at
// once a second at most); the words counted under the filters by a `filters` aggregation of one
// `term` query each; titles and funder names holding a completion (their `.words` subfields)
// grouped by a terms aggregation on their `.keyword` subfields, by count then by key, exactly as
// the embedded engine groups them (one shard: every bucket is counted).
import { errors, type Client } from '@elastic/elasticsearch';
import { ServiceUnavailableError } from '../../failures.js';
import type { GrantQuery } from '../../grants/query.js';
import type { CandidateWord } from '../../grants/suggest.js';
import type { SuggestSource } from '../suggestSearch.js';
import { SortedWords } from '../wordDictionary.js';
import { changesIndexOf } from './changeLog.js';
import { WORDS_FIELD } from './lexicon.js';
import { translateToElasticsearch } from './translator.js';

/** Words read per partition of the dictionary's terms aggregation (below search.max_buckets, 65,536). */
const PARTITION_WORDS = 50_000;
/** How long a dictionary serves before the catalog is looked at again. */
const FRESH_MS = 1000;

const NAME_FIELDS = {
  title: { words: 'title.words', keyword: 'title.keyword' },
  funder: { words: 'funder.words', keyword: 'funder.keyword' },
} as const;

/** The words of the `words` field with their grant counts, every partition of a terms aggregation. */
async function readDictionary(client: Client, index: string): Promise<SortedWords> {
  for (let partitions = 1; ; partitions *= 4) {
    const entries: [string, number][] = [];
    let full = false;
    for (let partition = 0; partition < partitions && !full; partition++) {
      const response = complete(
        (await client
          .search({
            index,
            size: 0,
            track_total_hits: false,
            aggs: {
              words: {
                terms: {
                  field: WORDS_FIELD,
                  size: PARTITION_WORDS,
                  min_doc_count: 1,
                  include: { partition, num_partitions: partitions },
                },
              },
            },
          } as never)
          .catch((error: unknown) => {
            // An index of an earlier mapping: no fielddata on `words` (Elasticsearch answers 400).
            if (error instanceof errors.ResponseError && error.statusCode === 400)
              throw new ServiceUnavailableError(
                `the index behind alias "${index}" has no word list for suggestions (built with an older ` +
                  `mapping); run grants-indexer reindex`,
                30,
              );
            throw error;
          })) as {
          timed_out?: boolean;
          _shards?: { failed?: number };
          aggregations?: { words?: { buckets: { key: string; doc_count: number }[] } };
        },
      );
      const buckets = response.aggregations?.words?.buckets ?? [];
      full = buckets.length >= PARTITION_WORDS;
      for (const bucket of buckets) entries.push([bucket.key, bucket.doc_count]);
    }
    if (!full) return SortedWords.of(entries);
  }
}

/**
 * An answer some shard failed or ran out of time on counts too little: a 503, never an answer (nor a dictionary kept).
 */
function complete<T extends { timed_out?: boolean; _shards?: { failed?: number } }>(response: T): T {
  if (response.timed_out === true || (response._shards?.failed ?? 0) > 0)
    throw new ServiceUnavailableError('elasticsearch answered a suggestion in part (a shard failed or timed out)', 5);
  return response;
}

/** Terms a `terms` query takes at most (index.max_terms_count's default). */
const MAX_TERMS = 65_536;

/** A grant whose `field` holds any of `words`: one `terms` query, or several ORed past MAX_TERMS. */
function anyWord(field: string, words: readonly string[]): Record<string, unknown> {
  if (words.length <= MAX_TERMS) return { terms: { [field]: words } };
  const parts: Record<string, unknown>[] = [];
  for (let at = 0; at < words.length; at += MAX_TERMS)
    parts.push({ terms: { [field]: words.slice(at, at + MAX_TERMS) } });
  return { bool: { should: parts, minimum_should_match: 1 } };
}

export class IndexSuggest {
  private held: { key: string; words: Promise<SortedWords> } | null = null;
  private checked: { at: number; key: Promise<string> } | null = null;

  constructor(
    private readonly client: Client,
    private readonly alias: string,
  ) {}

  /** What the dictionary depends on: the index behind the alias and the change log's counter. */
  private async catalogKey(): Promise<string> {
    const [aliased, state] = await Promise.all([
      this.client.indices.getAlias({ name: this.alias }),
      this.client.get({ index: changesIndexOf(this.alias), id: '~state' }).catch((error: unknown) => {
        if (error instanceof errors.ResponseError && error.statusCode === 404) return null;
        throw error;
      }),
    ]);
    const counter = (state?._source as { counter?: number } | undefined)?.counter ?? null;
    return JSON.stringify([Object.keys(aliased).sort(), counter]);
  }

  /** The dictionary of the catalog served now (read again when it moved). */
  private async dictionary(): Promise<SortedWords> {
    const now = Date.now();
    if (this.checked === null || now - this.checked.at >= FRESH_MS) {
      this.checked = { at: now, key: this.catalogKey() };
      this.checked.key.catch(() => (this.checked = null));
    }
    const key = await this.checked.key;
    if (this.held === null || this.held.key !== key) {
      const held = { key, words: readDictionary(this.client, this.alias) };
      held.words.catch(() => {
        if (this.held === held) this.held = null;
      });
      this.held = held;
    }
    return this.held.words;
  }

  /** The source of one request: its query's grants, counted in Elasticsearch. */
  source(query: GrantQuery): SuggestSource {
    const matching = translateToElasticsearch({ ...query, facets: [] }).query;
    return {
      completions: async (prefix, budget): Promise<CandidateWord[]> =>
        (await this.dictionary()).completions(prefix, budget),
      countWords: async (words) => {
        const response = complete(
          (await this.client.search({
            index: this.alias,
            size: 0,
            track_total_hits: false,
            query: matching,
            aggs: { words: { filters: { filters: words.map((word) => ({ term: { [WORDS_FIELD]: word } })) } } },
          } as never)) as {
            timed_out?: boolean;
            _shards?: { failed?: number };
            aggregations?: { words?: { buckets: { doc_count: number }[] } };
          },
        );
        const buckets = response.aggregations?.words?.buckets ?? [];
        return words.map((_, i) => buckets[i]?.doc_count ?? 0);
      },
      topNames: async (kind, words, limit) => {
        const fields = NAME_FIELDS[kind];
        const response = complete(
          (await this.client.search({
            index: this.alias,
            size: 0,
            track_total_hits: false,
            query: { bool: { filter: [matching, anyWord(fields.words, words)] } },
            aggs: {
              names: { terms: { field: fields.keyword, size: limit, order: [{ _count: 'desc' }, { _key: 'asc' }] } },
            },
          } as never)) as {
            timed_out?: boolean;
            _shards?: { failed?: number };
            aggregations?: { names?: { buckets: { key: string; doc_count: number }[] } };
          },
        );
        return (response.aggregations?.names?.buckets ?? []).map((bucket) => ({
          text: bucket.key,
          count: bucket.doc_count,
        }));
      },
    };
  }
}
