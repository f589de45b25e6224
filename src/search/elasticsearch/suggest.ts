// Search as you type on Elasticsearch (search/suggestSearch.ts's SuggestSource): the build's
// suggestion index (search/suggestDictionary.ts) held in memory, read when the API first answers
// from an index of the alias and again when the alias's index or the change log's counter moved
// (looked at once a second at most): the words of the `words` field (every text field copied,
// folded and lower-cased, not stemmed) with how many grants hold each, by a terms aggregation in
// partitions, and the titles and funder names with how many grants bear each, by composite
// aggregations on their `.keyword` subfields. A request with no condition is answered from it
// alone; with conditions, the titles and funder names by a terms aggregation on their `.keyword`
// subfields over the grants of the request's query whose `.words` subfield holds a completing word
// (one search, which counts those grants too and the words' first round of candidates); the words
// by a terms aggregation over those grants when they are few and that round left them open, else in
// rounds of candidates, a `filters` aggregation of one `term` query each, up to a round where
// reading every grant's words once costs less.
import { errors, type Client } from '@elastic/elasticsearch';
import { ServiceUnavailableError } from '../../failures.js';
import type { GrantQuery } from '../../grants/query.js';
import { firstBatchSize, topCounted, type Candidate, type Counted, type SuggestTypes } from '../../grants/suggest.js';
import { RankedNames, SuggestDictionary, type Completing, type SuggestCandidates } from '../suggestDictionary.js';
import type { SuggestBatches, SuggestSource } from '../suggestSearch.js';
import { SortedWords } from '../wordDictionary.js';
import { changesIndexOf } from './changeLog.js';
import { WORDS_FIELD } from './lexicon.js';
import { conditionsOf, translateToElasticsearch } from './translator.js';

/** Words read per partition of the dictionary's terms aggregation (below search.max_buckets, 65,536). */
const PARTITION_WORDS = 50_000;
/** How long a dictionary serves before the catalog is looked at again. */
const FRESH_MS = 1000;

/** The field each kind of candidate is counted on. */
const COUNT_FIELDS = { words: WORDS_FIELD, titles: 'title.keyword', funders: 'funder.keyword' } as const;
/** The field holding the words of each kind's names (folded, lower case: nameWords). */
const NAME_WORD_FIELDS = { titles: 'title.words', funders: 'funder.words' } as const;
/**
 * Up to this many grants under a suggestion's conditions, its words are counted by one terms
 * aggregation over those grants (each grant's words read once); past it, candidate by candidate
 * in rounds, the most frequent first, which stop early when the grants are many.
 */
const WORD_SCAN_GRANTS = 2000;
/**
 * The last round of words counted candidate by candidate (one `term` filter each): a round of
 * twice as many costs more than reading every grant's words once, which then answers instead.
 */
const LAST_WORD_ROUND = 64;
/** The words of topCounted's first round (its `firstBatch`), counted in the search that finds the names. */
const FIRST_ROUND = 32;
/** Names read per page of the composite aggregation. */
const NAMES_PAGE = 10_000;

/** The words of the `words` field with their grant counts, every partition of a terms aggregation. */
async function readDictionary(client: Client, index: string): Promise<SortedWords> {
  for (let partitions = 1; ; partitions *= 4) {
    const entries: [string, number][] = [];
    let full = false;
    for (let partition = 0; partition < partitions && !full; partition++) {
      const { aggregations } = await aggregate<{ words?: { buckets: TermBucket[] } }>(client, {
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
      }).catch((error: unknown) => {
        // An index of an earlier mapping: no fielddata on `words` (Elasticsearch answers 400).
        if (error instanceof errors.ResponseError && error.statusCode === 400)
          throw new ServiceUnavailableError(
            `the index behind alias "${index}" has no word list for suggestions (built with an older ` +
              `mapping); run grants-indexer reindex`,
            30,
          );
        throw error;
      });
      const buckets = aggregations?.words?.buckets ?? [];
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

/**
 * One `_search` of aggregations, answered in whole (complete): the hits counted (when tracked) and
 * the aggregations, of the shape the caller's body asks for.
 */
async function aggregate<A>(
  client: Client,
  body: Record<string, unknown>,
): Promise<{ total: number | undefined; aggregations: A | undefined }> {
  const response = complete(
    (await client.search(body as never)) as {
      timed_out?: boolean;
      _shards?: { failed?: number };
      hits?: { total?: { value: number } };
      aggregations?: A;
    },
  );
  return { total: response.hits?.total?.value, aggregations: response.aggregations };
}

/** The names of a keyword field with how many grants bear each: every page of a composite aggregation. */
async function readNames(client: Client, index: string, field: string): Promise<RankedNames> {
  const entries: [string, number][] = [];
  let after: Record<string, unknown> | undefined;
  for (;;) {
    const { aggregations } = await aggregate<{
      names?: { after_key?: Record<string, unknown>; buckets: { key: { name: string }; doc_count: number }[] };
    }>(client, {
      index,
      size: 0,
      track_total_hits: false,
      aggs: {
        names: { composite: { size: NAMES_PAGE, sources: [{ name: { terms: { field } } }], after } },
      },
    });
    const names = aggregations?.names;
    for (const bucket of names?.buckets ?? []) entries.push([bucket.key.name, bucket.doc_count]);
    if (names?.after_key === undefined || (names.buckets.length ?? 0) < NAMES_PAGE) return RankedNames.of(entries);
    after = names.after_key;
  }
}

/** The suggestion index of the index behind the alias. */
async function readSuggestDictionary(client: Client, index: string): Promise<SuggestDictionary> {
  const [words, titles, funders] = await Promise.all([
    readDictionary(client, index),
    readNames(client, index, COUNT_FIELDS.titles),
    readNames(client, index, COUNT_FIELDS.funders),
  ]);
  return new SuggestDictionary(words, titles, funders);
}

interface TermBucket {
  key: string;
  doc_count: number;
}

const countedOf = (buckets: TermBucket[] = []): Counted[] =>
  buckets.map(({ key, doc_count }) => ({ text: key, count: doc_count }));

/** A Lucene regular expression matching `text` literally. */
const literally = (text: string): string => text.replace(/[^\p{L}\p{M}\p{N}]/gu, (c) => `\\${c}`);

/** Grants whose `field` holds a completing word. */
function holdingCompletion(field: string, completing: Completing): Record<string, unknown> {
  return 'prefix' in completing ? { prefix: { [field]: completing.prefix } } : anyOf(field, completing.words);
}

/** The `limit` values of `field` the most grants hold, ties by value (of the completing words only when given). */
function bestTerms(field: string, limit: number, completing?: Completing): Record<string, unknown> {
  const include =
    completing === undefined
      ? undefined
      : 'prefix' in completing
        ? `${literally(completing.prefix)}.*`
        : [...completing.words];
  return { terms: { field, size: limit, min_doc_count: 1, order: [{ _count: 'desc' }, { _key: 'asc' }], include } };
}

/** A `filters` aggregation counting the grants whose `field` holds each candidate, one bucket each in order. */
const countedEach = (field: string, candidates: readonly Candidate[]): Record<string, unknown> => ({
  filters: { filters: candidates.map(({ text }) => ({ term: { [field]: text } })) },
});

/** The first `count` items of an iterator. */
function taken<T>(iterator: Iterator<T>, count: number): T[] {
  const items: T[] = [];
  while (items.length < count) {
    const item = iterator.next();
    if (item.done === true) break;
    items.push(item.value);
  }
  return items;
}

/** Terms a `terms` query takes at most (index.max_terms_count's default). */
const MAX_TERMS = 65_536;

/** A grant whose `field` holds any of `words`: one `terms` query, or several ORed past MAX_TERMS. */
function anyOf(field: string, words: readonly string[]): Record<string, unknown> {
  if (words.length <= MAX_TERMS) return { terms: { [field]: words } };
  const parts: Record<string, unknown>[] = [];
  for (let at = 0; at < words.length; at += MAX_TERMS)
    parts.push({ terms: { [field]: words.slice(at, at + MAX_TERMS) } });
  return { bool: { should: parts, minimum_should_match: 1 } };
}

export class IndexSuggest {
  private held: { key: string; dictionary: Promise<SuggestDictionary> } | null = null;
  private checked: { at: number; key: Promise<string>; done: boolean } | null = null;
  /** The last look at the catalog that answered: when it began (epoch ms) and what it found. */
  private looked: { at: number; key: string | null } = { at: -Infinity, key: null };

  constructor(
    private readonly client: Client,
    private readonly alias: string,
    /** Where words are read by one aggregation rather than in rounds (WORD_SCAN_GRANTS, LAST_WORD_ROUND). */
    private readonly scan: { grants: number; lastRound: number } = {
      grants: WORD_SCAN_GRANTS,
      lastRound: LAST_WORD_ROUND,
    },
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

  /**
   * The suggestion index of the catalog served now (read again when it moved). While a second's
   * look at the catalog is under way, the dictionary held serves if it is that of the catalog the
   * look before found, within the last two seconds: a busy API's requests never wait for a look, an
   * idle one's first request does.
   */
  private async dictionary(): Promise<SuggestDictionary> {
    const now = Date.now();
    if (this.checked === null || now - this.checked.at >= FRESH_MS) {
      const checked = { at: now, key: this.catalogKey(), done: false };
      this.checked = checked;
      checked.key.then(
        (key) => {
          checked.done = true;
          this.looked = { at: checked.at, key };
        },
        () => {
          if (this.checked === checked) this.checked = null;
        },
      );
    }
    const held = this.held;
    const looked = this.looked;
    if (!this.checked.done && held !== null && held.key === looked.key && now - looked.at < 2 * FRESH_MS)
      return held.dictionary;
    const key = await this.checked.key;
    if (this.held === null || this.held.key !== key) {
      const held = { key, dictionary: readSuggestDictionary(this.client, this.alias) };
      held.dictionary.catch(() => {
        if (this.held === held) this.held = null;
      });
      this.held = held;
    }
    return this.held.dictionary;
  }

  /** Reads the suggestion index of the catalog served now; a failure is left for the next request to meet. */
  async preload(): Promise<void> {
    await this.dictionary().catch(() => undefined);
  }

  /**
   * The source of one request: the suggestion index, and its query's grants counted in
   * Elasticsearch: names always by a terms aggregation over the grants holding a completing word,
   * words so too when the grants are few, else candidate by candidate.
   */
  source(query: GrantQuery): SuggestSource {
    const conditioned = query.search !== null || conditionsOf(query).length > 0;
    // Counted, never scored: the query in filter context.
    const matching = { bool: { filter: [translateToElasticsearch({ ...query, facets: [] }).query] } };
    return {
      dictionary: () => this.dictionary(),
      count: conditioned ? (batches) => this.count(matching, batches) : null,
      top: (kinds, candidates, limit) => this.top(matching, kinds, candidates, limit),
    };
  }

  /**
   * The best `limit` of each kind asked among the grants of `matching`: the names holding a
   * completing word by a terms aggregation, in one search which also counts the grants and the
   * words' first round (topCounted's first batch, a `filters` aggregation) when words are asked;
   * the words then by the rounds that follow while those grants are more than WORD_SCAN_GRANTS, up
   * to LAST_WORD_ROUND, else (or when the rounds leave them open) by one terms aggregation over the
   * grants. The aggregations order as topCounted does (the most grants first, ties by text), exact
   * on the index's one shard.
   */
  private async top(
    matching: Record<string, unknown>,
    kinds: readonly SuggestTypes[],
    candidates: SuggestCandidates,
    limit: number,
  ): Promise<SuggestBatches<Counted>> {
    const { completing } = candidates;
    const named = kinds.filter((kind): kind is 'titles' | 'funders' => kind !== 'words');
    const firstRound = firstBatchSize(limit, FIRST_ROUND);
    const firstWords = kinds.includes('words') ? taken(candidates.words(), firstRound) : null;
    const aggs: Record<string, unknown> = Object.fromEntries(
      named.map((kind) => [
        kind,
        {
          filter: holdingCompletion(NAME_WORD_FIELDS[kind], completing),
          aggs: { best: bestTerms(COUNT_FIELDS[kind], limit) },
        },
      ]),
    );
    if (firstWords !== null && firstWords.length > 0) aggs.firstWords = countedEach(COUNT_FIELDS.words, firstWords);
    const { total, aggregations } = await aggregate<
      Record<string, { best: { buckets: TermBucket[] } }> & { firstWords?: { buckets: { doc_count: number }[] } }
    >(this.client, {
      index: this.alias,
      size: 0,
      // The grants are counted only to choose how the words are counted.
      track_total_hits: firstWords !== null,
      query: matching,
      aggs,
    });
    const found: SuggestBatches<Counted> = Object.fromEntries(
      named.map((kind) => [kind, countedOf(aggregations?.[kind]?.best.buckets)]),
    );
    if (firstWords === null) return found;
    if (firstWords.length === 0) return { ...found, words: [] };
    const firstCounts = firstWords.map((_, i) => aggregations?.firstWords?.buckets[i]?.doc_count ?? 0);
    const many = (total ?? Infinity) > this.scan.grants;
    const counted = await topCounted(
      { words: candidates.words() },
      limit,
      (batches) => this.count(matching, batches) as Promise<{ words: number[] }>,
      FIRST_ROUND,
      // With few grants no round follows the first: reading their words once costs less.
      many ? this.scan.lastRound : Math.min(this.scan.lastRound, firstRound),
      { words: firstCounts },
    );
    if (counted.words !== undefined) return { ...found, words: counted.words };
    const words = await aggregate<{ best?: { buckets: TermBucket[] } }>(this.client, {
      index: this.alias,
      size: 0,
      track_total_hits: false,
      query: matching,
      aggs: { best: bestTerms(WORDS_FIELD, limit, completing) },
    });
    found.words = countedOf(words.aggregations?.best?.buckets);
    return found;
  }

  /** How many grants of `matching` hold each candidate: one search, a `filters` aggregation per kind. */
  private async count(
    matching: Record<string, unknown>,
    batches: SuggestBatches<Candidate>,
  ): Promise<SuggestBatches<number>> {
    const kinds = (Object.keys(batches) as SuggestTypes[]).filter((kind) => (batches[kind]?.length ?? 0) > 0);
    const aggs = Object.fromEntries(kinds.map((kind) => [kind, countedEach(COUNT_FIELDS[kind], batches[kind]!)]));
    const { aggregations } = await aggregate<Record<string, { buckets: { doc_count: number }[] }>>(this.client, {
      index: this.alias,
      size: 0,
      track_total_hits: false,
      query: matching,
      aggs,
    });
    return Object.fromEntries(
      (Object.keys(batches) as SuggestTypes[]).map((kind) => {
        const buckets = aggregations?.[kind]?.buckets ?? [];
        return [kind, batches[kind]!.map((_, i) => buckets[i]?.doc_count ?? 0)];
      }),
    );
  }
}
