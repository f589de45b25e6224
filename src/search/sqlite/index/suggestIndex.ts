// What search as you type (grants/suggest.ts) reads from one catalog build beyond the word
// dictionary: the grants holding each word as written (the grants_words FTS5 table's doclist,
// read on first use and kept within a budget, least recently used dropped), and the titles and
// funder names ranked with the grants bearing each (read once per build: a search worker reads
// them when it adopts the build). Immutable once read, like the rest of the build's index.
import { LRUCache } from 'lru-cache';
import { bestCounted, type Counted, type SuggestTypes } from '../../../grants/suggest.js';
import { RankedNames, SuggestDictionary, type SuggestCandidates } from '../../suggestDictionary.js';
import type { SuggestBatches } from '../../suggestSearch.js';
import type { SortedWords } from '../../wordDictionary.js';
import { bitsOf, countAnd, countBits, denserThanList, hasBit, positionsOf, type Bits } from './bitset.js';
import type { CatalogColumns } from './columns.js';
import { advance } from './postings.js';
import { tableExists, type Db } from '../storage/catalogFile.js';

/** Word postings kept per build, in units of 4 bytes (a position, or 32 grants of a bit set): 64 MiB. */
const WORD_POSTINGS_BUDGET = 16 * 1024 * 1024;

/**
 * A word's grants: their positions ascending, or, for a word held by more than one grant in 32, a
 * bit set over the catalog's positions (smaller then, and counted against another bit set 32
 * grants at a time).
 */
export type WordGrants = { positions: Int32Array; bits?: undefined } | { bits: Bits; count: number };

/**
 * Up to this share of the catalog under a suggestion's conditions, its names are counted by walking
 * those grants (each grant's name looked at once) rather than candidate by candidate: with few
 * grants, most candidate names count none and the walk in rank order would read them all.
 */
const NAME_SCAN_SHARE = 1 / 32;

/** Names of one kind (titles or funders) over the catalog's positions, ranked as every engine ranks them. */
export class NameIndex {
  private constructor(
    /** The names ranked, with their grant counts and words (search/suggestDictionary.ts). */
    readonly ranked: RankedNames,
    /** Per rank, its grants' positions: grantsOf(r) = positions[starts[r] … starts[r + 1]). */
    private readonly starts: Int32Array,
    private readonly positions: Int32Array,
    /** Per position, the rank of its grant's name. */
    readonly rankAt: Int32Array,
  ) {}

  /** The index of each position's name (`nameOf[p]`). */
  static of(nameOf: readonly string[]): NameIndex {
    const counts = new Map<string, number>();
    for (const name of nameOf) counts.set(name, (counts.get(name) ?? 0) + 1);
    const ranked = RankedNames.of(counts);
    const rankOf = new Map<string, number>();
    ranked.names.forEach((name, rank) => rankOf.set(name, rank));
    const starts = new Int32Array(ranked.names.length + 1);
    for (let rank = 0; rank < ranked.names.length; rank++) starts[rank + 1] = starts[rank] + ranked.docs[rank];
    const filled = starts.slice(0, ranked.names.length);
    const positions = new Int32Array(nameOf.length);
    const rankAt = new Int32Array(nameOf.length);
    nameOf.forEach((name, p) => {
      const rank = rankOf.get(name) as number;
      positions[filled[rank]++] = p;
      rankAt[p] = rank;
    });
    return new NameIndex(ranked, starts, positions, rankAt);
  }

  /** How many of `matches` bear the name of rank `rank`. */
  count(rank: number, matches: Bits): number {
    let count = 0;
    for (let k = this.starts[rank]; k < this.starts[rank + 1]; k++) if (hasBit(matches, this.positions[k])) count++;
    return count;
  }
}

/**
 * The best `limit` names of `names` (of `kind`) holding a completing word among the grants at
 * `positions`: each grant's name looked at once, the most grants first, ties by text.
 */
export function bestNamesAmong(
  names: NameIndex,
  kind: 'title' | 'funder',
  candidates: SuggestCandidates,
  positions: Int32Array,
  limit: number,
): Counted[] {
  // Per rank met: how many grants bear it, or -1 when the name holds no completing word.
  const counts = new Map<number, number>();
  for (let k = 0; k < positions.length; k++) {
    const rank = names.rankAt[positions[k]];
    const count = counts.get(rank);
    if (count === undefined) counts.set(rank, candidates.nameCompletes(kind, rank) ? 1 : -1);
    else if (count > 0) counts.set(rank, count + 1);
  }
  const counted: Counted[] = [];
  for (const [rank, count] of counts) if (count > 0) counted.push({ text: names.ranked.names[rank], count });
  return bestCounted(counted, limit);
}

/** A request's matches as a bit set, their count and (listed on first use) their positions ascending. */
export class MatchedGrants {
  readonly count: number;
  private listed: Int32Array | null = null;

  constructor(readonly bits: Bits) {
    this.count = countBits(bits);
  }

  get positions(): Int32Array {
    return (this.listed ??= positionsOf(this.bits, this.count));
  }
}

/**
 * How many of the matches are among a word's grants, walking the shorter side: the word's grants,
 * or the matches' positions looked up in them. countAnd reads every word of both sets, about four
 * operations a word of 32 grants; a look-up in a bit set is one, a binary search in a list a few.
 */
export function countHeld(grants: WordGrants, matches: MatchedGrants): number {
  if (grants.bits !== undefined) {
    if (matches.count * 2 >= grants.bits.length) return countAnd(grants.bits, matches.bits);
    const few = matches.positions;
    let count = 0;
    for (let k = 0; k < few.length; k++) if (hasBit(grants.bits, few[k])) count++;
    return count;
  }
  const { positions } = grants;
  if (matches.count * 16 < positions.length) return countCommon(matches.positions, positions);
  let count = 0;
  for (let k = 0; k < positions.length; k++) if (hasBit(matches.bits, positions[k])) count++;
  return count;
}

/** How many positions two ascending lists share: the long list walked forward to each of the short list's. */
function countCommon(short: Int32Array, long: Int32Array): number {
  let count = 0;
  let at = 0;
  for (let k = 0; k < short.length; k++) {
    at = advance(long, at, short[k]);
    if (at === long.length) break;
    if (long[at] === short[k]) count++;
  }
  return count;
}

const COMMA = 44;
const ZERO = 48;

/**
 * A word's grants from its rowids as one comma-separated string (ascending): a bit set when more
 * than one grant in 32 holds it, else their positions ascending. Rows the columns do not hold are
 * left out.
 */
export function wordGrantsOf(rowids: string, columns: Pick<CatalogColumns, 'size' | 'positionOf'>): WordGrants {
  const positions: number[] = [];
  let value = 0;
  for (let i = 0; i <= rowids.length; i++) {
    const c = i === rowids.length ? COMMA : rowids.charCodeAt(i);
    if (c !== COMMA) {
      value = value * 10 + (c - ZERO);
      continue;
    }
    if (i === 0) break;
    const position = columns.positionOf(value);
    if (position >= 0) positions.push(position);
    value = 0;
  }
  const { size } = columns;
  if (denserThanList(positions.length, size)) return { bits: bitsOf(positions, size), count: positions.length };
  return { positions: Int32Array.from(positions).sort() };
}

/** One build's suggestion data: word postings on demand, names on first use. */
export class SuggestIndex {
  private readonly postings = new LRUCache<string, WordGrants>({
    maxSize: WORD_POSTINGS_BUDGET,
    sizeCalculation: (grants) => Math.max(1, grants.bits === undefined ? grants.positions.length : grants.bits.length),
  });
  private names: { title: NameIndex; funder: NameIndex } | null = null;
  private shared: SuggestDictionary | null = null;
  private readonly wordDocs;
  private readonly hasWords: boolean;

  constructor(
    private readonly db: Db,
    private readonly columns: CatalogColumns,
  ) {
    this.hasWords = tableExists(db, 'grants_words');
    // One string of the rowids (ascending, comma-separated): far cheaper than a row each for a frequent word.
    this.wordDocs = this.hasWords
      ? db.prepare('SELECT group_concat(rowid) FROM grants_words WHERE grants_words MATCH ?').pluck()
      : null;
  }

  /** The grants holding `word` (as written, folded, lower case). */
  private wordGrants(word: string): WordGrants {
    let found = this.postings.get(word);
    if (found === undefined) {
      const rowids =
        this.wordDocs === null ? null : (this.wordDocs.get(`"${word.replaceAll('"', '""')}"`) as string | null);
      found = wordGrantsOf(rowids ?? '', this.columns);
      this.postings.set(word, found);
    }
    return found;
  }

  /**
   * How many of a request's matches hold `word`: the count walks the shorter side, the word's
   * grants or the matches (few matches are listed once per request and looked up in the word's
   * grants: a short prefix under a narrow filter counts thousands of words).
   */
  countWord(word: string, matches: MatchedGrants): number {
    return countHeld(this.wordGrants(word), matches);
  }

  /**
   * The best `limit` titles and funder names of `kinds` among the grants of `matches` holding a
   * completing word, when those grants are few (NAME_SCAN_SHARE); none when they are many.
   */
  topNames(
    kinds: readonly SuggestTypes[],
    candidates: SuggestCandidates,
    matches: MatchedGrants,
    limit: number,
  ): SuggestBatches<Counted> {
    const named = kinds.filter((type) => type !== 'words');
    if (named.length === 0 || matches.count > this.columns.size * NAME_SCAN_SHARE) return {};
    const { positions } = matches;
    const found: SuggestBatches<Counted> = {};
    for (const type of named) {
      const kind = type === 'titles' ? 'title' : 'funder';
      found[type] = bestNamesAmong(this.nameIndex(kind), kind, candidates, positions, limit);
    }
    return found;
  }

  /** The titles and funder names of the build, read on first use. */
  nameIndex(kind: 'title' | 'funder'): NameIndex {
    if (this.names === null) {
      const titles = new Array<string>(this.columns.size).fill('');
      const funders = new Array<string>(this.columns.size).fill('');
      for (const [rowid, title, funder] of this.db
        .prepare("SELECT rowid, json_extract(doc, '$.title'), json_extract(doc, '$.funder') FROM grants")
        .raw()
        .iterate() as Iterable<[number, string, string]>) {
        const p = this.columns.positionOf(rowid);
        if (p < 0) continue;
        titles[p] = title;
        funders[p] = funder;
      }
      this.names = { title: NameIndex.of(titles), funder: NameIndex.of(funders) };
    }
    return this.names[kind];
  }

  /** The build's suggestion index over its word dictionary (`words`) and its names. */
  dictionary(words: SortedWords): SuggestDictionary {
    return (this.shared ??= new SuggestDictionary(
      words,
      this.nameIndex('title').ranked,
      this.nameIndex('funder').ranked,
    ));
  }
}
