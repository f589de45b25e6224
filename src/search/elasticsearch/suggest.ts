// Search as you type on Elasticsearch (search/suggestSearch.ts's SuggestSource): the build's
// suggestion index (search/suggestDictionary.ts) held in memory: the words of the `words` field
// (every text field copied, folded and lower-cased, not stemmed) with how many grants hold each, by
// a terms aggregation in partitions, and the titles and funder names with how many grants bear
// each, by composite aggregations on their `.keyword` subfields. It is read when the API starts and
// again when the alias's index or the change log's counter moved (looked at once a second at
// most), one read at a time with a timeout of its own, shared by the requests that wait for it,
// each within its search budget; while the index of a catalog that moved is read, the one held
// answers after a second, as the embedded engine answers from the previous build while a new one
// loads. A request with no condition is answered from it alone; with conditions, the titles and
// funder names by a terms aggregation on their `.keyword` subfields over the grants of the
// request's query whose `.words` subfield holds a completing word (one search, which counts those
// grants too and the words' first round of candidates); the words by a terms aggregation over those
// grants when they are few and that round left them open, else in rounds of candidates, a
// `filters` aggregation of one `term` query each, up to a round where reading every grant's words
// once costs less.
import { errors, type Client } from '@elastic/elasticsearch';
import { ServiceUnavailableError } from '../../failures.js';
import { asksStatus, type GrantQuery } from '../../grants/query.js';
import { firstBatchSize, topCounted, type Candidate, type Counted, type SuggestTypes } from '../../grants/suggest.js';
import { RankedNames, SuggestDictionary, type Completing, type SuggestCandidates } from '../suggestDictionary.js';
import { within } from '../../timeLimit.js';
import { Deadline, SearchBudgetExceeded } from '../deadline.js';
import type { SuggestBatches, SuggestSource } from '../suggestSearch.js';
import { SortedWords } from '../wordDictionary.js';
import { changesIndexOf } from './changeLog.js';
import { createEsClient, type EsConfig } from './client.js';
import { WORDS_FIELD } from './lexicon.js';
import {
  statusBoundsOf,
  statusBoundsQuery,
  statusCutAt,
  type StatusBoundsAnswer,
  type StatusCut,
} from './statusClauses.js';
import { conditionsOf, translateToElasticsearch } from './translator.js';

/** Words read per partition of the dictionary's terms aggregation (below search.max_buckets, 65,536). */
const PARTITION_WORDS = 50_000;
/** How long a dictionary serves before the catalog is looked at again. */
const FRESH_MS = 1000;
/**
 * A read of the suggestion index (every partition and page): the API's own read, shared by the
 * requests that wait for it, not a partner's search. On a freshly built index of 100,000 grants it
 * takes seconds (Elasticsearch loads the words' field data), past a search's timeout.
 */
const READ_TIMEOUT_MS = 60_000;

/**
 * The client that reads suggestion indexes: its own connections, as a request's timeout can only
 * shorten the one its client's connections were opened with (ELASTICSEARCH_TIMEOUT_MS).
 */
export const suggestReader = (config: EsConfig): Client =>
  createEsClient(config, { requestTimeoutMs: READ_TIMEOUT_MS });
/**
 * The longest a request waits for the suggestion index of a catalog that moved while that of an
 * earlier one is held; past it the earlier one answers until the new one is read, as the embedded
 * engine's workers answer from the previous build while a new one loads.
 */
const NEW_READ_WAIT_MS = 1000;
/** The longest the API's start waits for the suggestion index (the read goes on after it). */
const PRELOAD_WAIT_MS = 15_000;

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
      const { aggregations } = await aggregate<{ words?: { buckets: TermBucket[] } }>(client, undefined, {
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
 * One `_search` of aggregations within `timeoutMs` (undefined: the client's), answered in whole
 * (complete): the hits counted (when tracked) and the aggregations, of the shape the caller's body
 * asks for.
 */
async function aggregate<A>(
  client: Client,
  timeoutMs: number | undefined,
  body: Record<string, unknown>,
): Promise<{ total: number | undefined; aggregations: A | undefined }> {
  const response = complete(
    (await client.search(body as never, { requestTimeout: timeoutMs })) as {
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
    }>(client, undefined, {
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
  /** The suggestion index of the newest catalog read in whole, the catalog it is of, and its read's number. */
  private held: { key: string; dictionary: SuggestDictionary; read: number } | null = null;
  /** The read under way, of the catalog `key`, numbered in the order reads began. */
  private reading: { key: string; dictionary: Promise<SuggestDictionary>; read: number } | null = null;
  private reads = 0;
  private checked: { at: number; key: Promise<string>; done: boolean } | null = null;
  /** The last look at the catalog that answered: when it began (epoch ms) and what it found. */
  private looked: { at: number; key: string | null } = { at: -Infinity, key: null };
  /** The status cut of catalog `key` read at `from` (epoch ms), good until its `until`. */
  private heldCut: { key: string; from: number; read: Promise<{ cut: StatusCut; until: number }> } | null = null;

  constructor(
    private readonly client: Client,
    private readonly alias: string,
    /** Where words are read by one aggregation rather than in rounds (WORD_SCAN_GRANTS, LAST_WORD_ROUND). */
    private readonly scan: { grants: number; lastRound: number } = {
      grants: WORD_SCAN_GRANTS,
      lastRound: LAST_WORD_ROUND,
    },
    /** The client of the suggestion index's reads (suggestReader); `client` when not given. */
    private readonly reader: Client = client,
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
   * The catalog served now, by a look at it once a second at most. While a look is under way, the
   * catalog the look before found serves if that look began within the last two seconds: a busy
   * API's requests never wait for a look, an idle one's first request does.
   */
  private async currentKey(): Promise<string> {
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
    const { key, at } = this.looked;
    if (!this.checked.done && key !== null && now - at < 2 * FRESH_MS) return key;
    return this.checked.key;
  }

  /** The suggestion index of catalog `key`: the one held, or a read of it (one at a time, shared). */
  private dictionaryOf(key: string): Promise<SuggestDictionary> {
    if (this.held?.key === key) return Promise.resolve(this.held.dictionary);
    if (this.reading?.key !== key) {
      const reading = { key, dictionary: readSuggestDictionary(this.reader, this.alias), read: ++this.reads };
      this.reading = reading;
      reading.dictionary.then(
        (dictionary) => {
          if (this.reading === reading) this.reading = null;
          // A read that began before the one held (of an earlier catalog) never replaces it.
          if (this.held === null || this.held.read < reading.read) this.held = { key, dictionary, read: reading.read };
        },
        () => {
          if (this.reading === reading) this.reading = null;
        },
      );
    }
    return this.reading.dictionary;
  }

  /**
   * The suggestion index a request answers from, within its deadline: that of the catalog served
   * now; while it is read for a catalog that moved, the one held answers after NEW_READ_WAIT_MS
   * (or at once if the read fails); with none held the request waits for the read up to its deadline.
   */
  private async dictionary(deadline: Deadline): Promise<SuggestDictionary> {
    const key = await this.currentKey();
    const newest = this.dictionaryOf(key);
    const earlier = this.held;
    if (earlier === null || earlier.key === key)
      return within(newest, deadline.remaining(), () => {
        throw new SearchBudgetExceeded(deadline.budgetMs);
      });
    return within(newest, Math.min(NEW_READ_WAIT_MS, deadline.remaining()), () => earlier.dictionary).catch(
      () => earlier.dictionary,
    );
  }

  /**
   * Reads the suggestion index of the catalog served now, waiting for the read up to
   * PRELOAD_WAIT_MS (it goes on past that, for the requests to share); rejects when it fails or is
   * still under way then.
   */
  async preload(): Promise<void> {
    await within(this.dictionaryOf(await this.catalogKey()), PRELOAD_WAIT_MS, () => {
      throw new Error(`the suggestion index is still being read after ${PRELOAD_WAIT_MS} ms`);
    });
  }

  /**
   * The source of one request within its deadline: the suggestion index, and its query's grants
   * counted in Elasticsearch: names always by a terms aggregation over the grants holding a
   * completing word, words so too when the grants are few, else candidate by candidate.
   */
  source(query: GrantQuery, deadline: Deadline = Deadline.NONE): SuggestSource {
    const conditioned = query.search !== null || conditionsOf(query).length > 0;
    let matching: Promise<Record<string, unknown>> | null = null;
    const matchingOnce = () => (matching ??= this.matchingOf(query, deadline));
    return {
      dictionary: () => this.dictionary(deadline),
      count: conditioned ? async (batches) => this.count(await matchingOnce(), batches, deadline) : null,
      top: async (kinds, candidates, limit) => this.top(await matchingOnce(), kinds, candidates, limit, deadline),
    };
  }

  /**
   * The grants a request counts: its query in filter context (counted, never scored), a status
   * condition at a cut of the catalog's own (catalogCutAt), so that Elasticsearch's request cache
   * keeps the counts as it keeps those of any other condition.
   */
  private async matchingOf(query: GrantQuery, deadline: Deadline): Promise<Record<string, unknown>> {
    const statusCut = asksStatus(query) ? await this.catalogCutAt(query.now, deadline) : statusCutAt(query.now);
    return { bool: { filter: [translateToElasticsearch({ ...query, facets: [] }, statusCut).query] } };
  }

  /**
   * A cut that parts the catalog served now into statuses as `now` does (statusClauses.ts
   * statusBoundsOf): the one held while the catalog has not moved and no deadline or opening
   * fell between, else read again (one small search).
   */
  private async catalogCutAt(now: number, deadline: Deadline): Promise<StatusCut> {
    const key = await this.currentKey();
    const held = this.heldCut;
    if (held !== null && held.key === key && held.from <= now) {
      const bounds = await held.read.catch(() => null);
      if (bounds !== null && now < bounds.until) return bounds.cut;
    }
    const read = aggregate<StatusBoundsAnswer>(this.client, deadline.callTimeout(), {
      index: this.alias,
      size: 0,
      track_total_hits: false,
      aggs: statusBoundsQuery(now),
    }).then(({ aggregations }) => statusBoundsOf(aggregations ?? {}));
    const reading = { key, from: now, read };
    this.heldCut = reading;
    read.catch(() => {
      if (this.heldCut === reading) this.heldCut = null;
    });
    return (await read).cut;
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
    deadline: Deadline,
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
    >(this.client, deadline.callTimeout(), {
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
      (batches) => this.count(matching, batches, deadline) as Promise<{ words: number[] }>,
      FIRST_ROUND,
      // With few grants no round follows the first: reading their words once costs less.
      many ? this.scan.lastRound : Math.min(this.scan.lastRound, firstRound),
      { words: firstCounts },
    );
    if (counted.words !== undefined) return { ...found, words: counted.words };
    const words = await aggregate<{ best?: { buckets: TermBucket[] } }>(this.client, deadline.callTimeout(), {
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
    deadline: Deadline,
  ): Promise<SuggestBatches<number>> {
    const kinds = (Object.keys(batches) as SuggestTypes[]).filter((kind) => (batches[kind]?.length ?? 0) > 0);
    const aggs = Object.fromEntries(kinds.map((kind) => [kind, countedEach(COUNT_FIELDS[kind], batches[kind]!)]));
    const { aggregations } = await aggregate<Record<string, { buckets: { doc_count: number }[] }>>(
      this.client,
      deadline.callTimeout(),
      {
        index: this.alias,
        size: 0,
        track_total_hits: false,
        query: matching,
        aggs,
      },
    );
    return Object.fromEntries(
      (Object.keys(batches) as SuggestTypes[]).map((kind) => {
        const buckets = aggregations?.[kind]?.buckets ?? [];
        return [kind, batches[kind]!.map((_, i) => buckets[i]?.doc_count ?? 0)];
      }),
    );
  }
}
