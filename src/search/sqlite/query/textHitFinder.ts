// The one path from a query's search words to its text hits (query/textHits.ts), for searches and
// exports alike: the grants the words match, as positions in the columns, and for a relevance
// sort their bm25 scores. A search of single words (one clause, no phrase, no OR, each word one
// term of the tokenizer; with alternatives, a term's phrases too, their bm25 parts read from FTS5)
// is answered from the build's in-memory postings (index/textIndex.ts) and scored by
// query/bm25.ts when the caller has them; any other search is left to FTS5, on the connection
// whose snapshot the columns were read from.
import type { GrantQuery } from '../../../grants/query.js';
import type { ParsedSearch, SearchTerm } from '../../../grants/searchSyntax.js';
import { hasAlternatives, typoPenaltyLevels } from '../../../grants/typos.js';
import { bitsOf, countBits, emptyBits, hasBit, intersection, setBit, type Bits } from '../index/bitset.js';
import type { CatalogColumns } from '../index/columns.js';
import {
  BM25_WEIGHTS,
  unionPositions,
  type PhraseParts,
  type TextStatistics,
  type WordPostings,
  type WordRanking,
} from '../index/postings.js';
import type { TextIndex } from '../index/textIndex.js';
import type { Db } from '../storage/catalogFile.js';
import { frenchKey } from '../index/textIndex.js';
import { EARLIER_CATALOG, frenchSearchTerm, TEXT_COLUMNS } from '../storage/textColumns.js';
import { ServiceUnavailableError } from '../../../failures.js';
import {
  allWordsParts,
  intersectPostings,
  rankWord,
  keepPositions,
  scoreAll,
  scoreTerms,
  subtractPositions,
  termHits,
  TYPO_RANK_STEP,
  type TermPhrases,
} from './bm25.js';
import { filterConditions, type Condition } from './filters.js';
import { prefilterPays } from './plan.js';
import type { QueryTerms } from './queryTerms.js';
import type { ScoredHits, TextHits } from './textHits.js';
import { ftsAnyOf, ftsMatchExpression, ftsPhrases } from './fts5Expression.js';
import { relaxableTerms, relaxationPlan, termSearch, type RelaxationPlan } from '../../../grants/relaxation.js';
import { countQuery } from '../../relaxedSearch.js';
import { rankRelaxed } from './relaxedHits.js';

/**
 * Where single words may be answered from memory: the catalog's tokenizer, and the text index of the columns' build
 * (read on first use).
 */
interface InMemoryWords {
  terms: QueryTerms;
  index(): TextIndex;
}

/**
 * The words of a query answered from the in-memory postings: each word's postings (all its
 * analyses), with alternatives each term's words (its own first, each with all its analyses), and
 * the grants holding them all and no excluded word.
 */
interface WordHits {
  postings: WordPostings[];
  /** Set when a term carries alternatives: every term's phrases (postings and typos). */
  phrases: TermPhrases[] | null;
  /** Whether an excluded word left out some of the grants holding every word. */
  excludes: boolean;
  stats: TextStatistics;
  hits: Int32Array;
  /** A search of one word alone (no alternative, no excluded word): its ranking, kept per build. */
  ranking: (() => WordRanking) | null;
}

/** No hit: a search with no clause (nothing to find). */
const NO_TEXT_HITS = (relevance: boolean): TextHits => ({
  positions: new Int32Array(0),
  scored: relevance ? { positions: new Int32Array(0), scores: new Float64Array(0) } : null,
});

/**
 * The postings keys (index/textIndex.ts) of one word's analyses, in its FTS5 phrases' order: the
 * English term, then the French one; null when the tokenizer makes other than one term of either.
 */
export function analysesOf(word: string, terms: QueryTerms): string[] | null {
  const english = terms.of(word);
  const french = terms.of(frenchSearchTerm(word));
  return english.length === 1 && french.length === 1 ? [english[0], frenchKey(french[0])] : null;
}

/**
 * One entry of a term answered in memory: words all held (their analyses' keys: one word, or the
 * own words of a term a synonym rule joined), or a phrase of several words, whose bm25 parts are
 * read from FTS5 (its grants are few: a synonym's spelling).
 */
export type TermEntry = { all: string[][] } | { phrase: string[] };

/**
 * The postings keys of the query's words (each word's analyses: analysesOf), those it must not
 * hold, and each term's entries: its own words first, then each alternative (grants/typos.ts,
 * grants/synonyms.ts), with the typos each needs; when the search is one clause, each excluded
 * word is one word, each term one word or, with alternatives, any words, and every analysis of
 * every single word is one term; null without words or when the search is left to FTS5.
 */
export function wordTerms(
  query: GrantQuery,
  terms: QueryTerms,
): { not: string[][]; phrases: { entries: TermEntry[]; typos: number[] }[] } | null {
  const search = query.search;
  if (search === null || search.clauses.length !== 1) return null;
  const [clause] = search.clauses;
  if (!clause.not.every((term) => term.words.length === 1)) return null;
  const keysOf = (words: readonly string[]): string[][] | null => {
    const keys = words.map((word) => analysesOf(word, terms));
    return keys.includes(null) ? null : (keys as string[][]);
  };
  const entryOf = (words: readonly string[], allOf: boolean): TermEntry | null => {
    if (words.length > 1 && !allOf) return { phrase: [...words] };
    const all = keysOf(words);
    return all === null ? null : { all };
  };
  const phrases: { entries: TermEntry[]; typos: number[] }[] = [];
  for (const term of clause.must) {
    const alternatives = term.alternatives ?? [];
    // Several words with no alternative stay with FTS5 (its prefilter scores only the hits within the filters).
    if (alternatives.length === 0 && term.words.length !== 1) return null;
    const entries = [entryOf(term.words, term.loose === true), ...alternatives.map((a) => entryOf(a.words, false))];
    if (entries.includes(null)) return null;
    phrases.push({ entries: entries as TermEntry[], typos: [0, ...alternatives.map((a) => a.typos)] });
  }
  const not = keysOf(clause.not.map((term) => term.words[0]));
  return not === null ? null : { not, phrases };
}

/** The single word's keys of an entry, or null for a phrase or several words. */
const singleWord = (entry: TermEntry): string[] | null =>
  'all' in entry && entry.all.length === 1 ? entry.all[0] : null;

/**
 * The postings of the query's words and the grants holding them all but no excluded word, when
 * the search is answered in memory (wordTerms); null without words or when it is left to FTS5.
 * A phrase's parts come from `phraseOf`; a phrase's and a loose term's parts are kept per build.
 */
function wordHits(
  query: GrantQuery,
  words: InMemoryWords,
  phraseOf: (words: readonly string[]) => PhraseParts,
): WordHits | null {
  const terms = wordTerms(query, words.terms);
  if (terms === null) return null;
  const text = words.index();
  // An earlier release's catalog has no French or label columns: its postings would quietly miss them.
  if (text.stats.rows > 0 && text.stats.columns !== TEXT_COLUMNS.length)
    throw new ServiceUnavailableError(EARLIER_CATALOG, 30);
  const wordOf = (keys: readonly string[]) => text.word(keys);
  const entryOf = (entry: TermEntry): WordPostings | PhraseParts => {
    const single = singleWord(entry);
    if (single !== null) return wordOf(single);
    const name = JSON.stringify(entry);
    return 'phrase' in entry
      ? text.phraseParts(name, () => phraseOf(entry.phrase))
      : text.phraseParts(name, () => allWordsParts(entry.all.map(wordOf), text.stats));
  };
  const singles = terms.phrases.map((p) => p.entries.map(singleWord));
  const plain = singles.every((entries) => entries.length === 1 && entries[0] !== null);
  const postings = plain ? singles.map((entries) => wordOf(entries[0]!)) : [];
  const phrases = plain
    ? null
    : terms.phrases.map((p, t) => ({
        postings: p.entries.map(entryOf),
        typos: p.typos,
        positions: singles[t].includes(null) ? undefined : text.anyWord(singles[t] as string[][]),
      }));
  let hits = phrases === null ? intersectPostings(postings) : termHits(phrases);
  const all = hits.length;
  for (const keys of terms.not) hits = subtractPositions(hits, wordOf(keys).positions);
  const alone = postings.length === 1 && terms.not.length === 0 ? singles[0][0] : null;
  const ranking = alone === null ? null : () => text.wordRanking(alone, (word) => rankWord(word, text.stats));
  return { postings, phrases, excludes: hits.length < all, stats: text.stats, hits, ranking };
}

/**
 * The bm25 scores of the grants holding the words (with `accept`, only those in it), with their
 * typo ranks. An excluded word adds nothing to FTS5's bm25 (it holds no instance in a hit), so the
 * words' scores stand; the grants holding one are left out.
 */
function scoreWords(words: WordHits, accept: Bits | null): ScoredHits {
  const scored =
    words.phrases === null
      ? scoreAll(words.postings, words.stats, accept, words.hits)
      : scoreTerms(words.phrases, words.stats, accept);
  return words.excludes ? keepPositions(scored, words.hits) : scored;
}

/** The text hits of queries on one connection: FTS5's statements prepared once, and the filter check FTS5 calls. */
export class TextHitFinder {
  private readonly scoredHits: ReturnType<Db['prepare']>;
  private readonly hits: ReturnType<Db['prepare']>;
  private readonly scoredFilteredHits: ReturnType<Db['prepare']>;
  /** The bit set grants_prefilter() checks hits against, set only while scoredFilteredHits runs. */
  private prefilter: { columns: CatalogColumns; bits: Bits } | null = null;

  /** Prepares on `db`, whose snapshot must be the one the columns given to find() were read from. */
  constructor(db: Db) {
    this.scoredHits = db
      .prepare(`SELECT rowid, bm25(grants_text, ${BM25_WEIGHTS.join(', ')}) FROM grants_text WHERE grants_text MATCH ?`)
      .raw();
    this.hits = db.prepare('SELECT rowid FROM grants_text WHERE grants_text MATCH ?').pluck();
    // Evaluated by SQLite before the result columns, so a hit it rejects is never scored.
    db.function('grants_prefilter', { deterministic: false, varargs: false }, (rowid: unknown) => {
      const prefilter = this.prefilter;
      if (prefilter === null) return 1;
      const position = prefilter.columns.positionOf(rowid as number);
      return position >= 0 && hasBit(prefilter.bits, position) ? 1 : 0;
    });
    this.scoredFilteredHits = db
      .prepare(
        `SELECT rowid, bm25(grants_text, ${BM25_WEIGHTS.join(', ')}) FROM grants_text WHERE grants_text ` +
          `MATCH ? AND grants_prefilter(rowid)`,
      )
      .raw();
  }

  /**
   * The bm25 parts of a phrase's FTS5 phrases (ftsPhrases: English, then French) at the grants
   * of either, from FTS5 (a MATCH of each alone: its grants are few). FTS5 scores a phrase alone
   * as 0 + its part, negated, with the idf, lengths and counts it uses for that phrase within a
   * larger expression, so each part is the double it adds there.
   */
  private phrasesOf(columns: CatalogColumns): (words: readonly string[]) => PhraseParts {
    return (words) => {
      const analyses = ftsPhrases(words).map((expression) => {
        const byPosition = new Map<number, number>();
        for (const [rowid, score] of this.scoredHits.all(expression) as [number, number][]) {
          const position = columns.positionOf(rowid);
          if (position >= 0) byPosition.set(position, -score);
        }
        return byPosition;
      });
      const positions = unionPositions(analyses.map((byPosition) => Int32Array.from(byPosition.keys()).sort()));
      const parts = analyses.map((byPosition) => Float64Array.from(positions, (p) => byPosition.get(p) ?? 0));
      return { positions, parts };
    };
  }

  /**
   * The query's filter conditions (query/filters.ts) and its text hits (null without words). With
   * `words`, single words come from memory and range filters may be tested on their hits alone.
   */
  find(
    columns: CatalogColumns,
    query: GrantQuery,
    words: InMemoryWords | null,
  ): { filters: Condition[]; text: TextHits | null } {
    const plan = this.relaxationOf(columns, query, words);
    if (plan === null) return this.findAsIs(columns, query, words);
    // Relaxed (grants/relaxation.ts): the most relaxed step matches; for relevance, its scores
    // gain the given-up terms' and the ranks of the earlier steps (query/relaxedHits.ts).
    // Scored within the filters only (the given-up terms are scored at those hits), not ranked whole.
    const found = this.findAsIs(columns, { ...query, search: plan.search, relaxed: null }, words, false);
    const scored = found.text?.scored ?? null;
    if (scored === null || query.sort.key !== 'relevance') return found;
    // The parts are needed at the relaxed step's hits alone (those scored: within the filters).
    const atHits = bitsOf(scored.positions, columns.size);
    const givenUp = plan.givenUp.map((term) => this.termScores(columns, query, term, words, atHits));
    const levels = plan.levels.map((level) => this.matchedBy(columns, countQuery(query, level), words));
    const parts = {
      givenUp: givenUp.map((hits) => hits ?? { positions: new Int32Array(0), scores: new Float64Array(0) }),
      givenUpLevels: plan.givenUp.map((term) => typoPenaltyLevels(termSearch(term)).length),
      levels,
    };
    return {
      filters: found.filters,
      text: { positions: found.text!.positions, scored: rankRelaxed(scored, parts, columns.size) },
    };
  }

  /**
   * The scores of a given-up term as a search of it alone (its typo rank included), at least at
   * the grants of `at` (from memory, only those are scored; FTS5 scores all within the query's filters).
   */
  private termScores(
    columns: CatalogColumns,
    query: GrantQuery,
    term: SearchTerm,
    words: InMemoryWords | null,
    at: Bits,
  ): ScoredHits | null {
    const alone: GrantQuery = { ...query, search: termSearch(term), relaxed: null, facets: [] };
    const inMemory = words === null ? null : wordHits(alone, words, this.phrasesOf(columns));
    if (inMemory !== null) return scoreWords(inMemory, at);
    return this.findAsIs(columns, alone, words).text?.scored ?? null;
  }

  /**
   * The grants a query with no filter (relaxedSearch.ts countQuery) matches, in any order: from
   * memory when its words are there (every step of a relaxed search reads the same terms).
   */
  private matchedBy(columns: CatalogColumns, query: GrantQuery, words: InMemoryWords | null): Int32Array {
    const inMemory = words === null ? null : wordHits(query, words, this.phrasesOf(columns));
    if (inMemory !== null) return inMemory.hits;
    return (
      this.findAsIs(columns, { ...query, sort: { key: 'deadline', descending: false } }, words).text?.positions ??
      new Int32Array(0)
    );
  }

  /**
   * The relaxation plan of a query with `matching=last|frequency` (the one attached, or made here:
   * for `frequency`, each term that may be given up counted in the catalog); null for none.
   */
  private relaxationOf(columns: CatalogColumns, query: GrantQuery, words: InMemoryWords | null): RelaxationPlan | null {
    if (query.relaxed !== undefined) return query.relaxed;
    const mode = query.matching ?? 'all';
    if (query.search === null || mode === 'all') return null;
    const counts =
      mode === 'frequency'
        ? relaxableTerms(query.search).map((terms) =>
            terms.map((term) => this.matchedBy(columns, countQuery(query, termSearch(term)), words).length),
          )
        : null;
    return relaxationPlan(query.search, mode, counts);
  }

  /** The filters and text hits of the query's search as it is (no relaxation). */
  private findAsIs(
    columns: CatalogColumns,
    query: GrantQuery,
    words: InMemoryWords | null,
    ranked = true,
  ): { filters: Condition[]; text: TextHits | null } {
    const inMemory = words === null ? null : wordHits(query, words, this.phrasesOf(columns));
    const filters = filterConditions(columns, query, inMemory?.hits ?? null);
    try {
      return { filters, text: this.textHits(columns, query, filters, inMemory, ranked) };
    } catch (error) {
      // The match expression names the columns of this release: an earlier release's table lacks some.
      if (error instanceof Error && /no such (fts5 )?column/i.test(error.message))
        throw new ServiceUnavailableError(EARLIER_CATALOG, 30);
      throw error;
    }
  }

  /**
   * Adds TYPO_RANK_STEP per typo each hit needs (grants/typos.ts typoPenaltyLevels: one per level
   * of a term the hit does not reach), as the in-memory scorer does (query/bm25.ts scoreTerms).
   */
  private addTypoRanks(
    columns: CatalogColumns,
    search: ParsedSearch,
    scored: { positions: Int32Array; scores: Float64Array },
  ): void {
    const typos = new Int32Array(scored.positions.length);
    for (const level of typoPenaltyLevels(search)) {
      const reached = emptyBits(columns.size);
      for (const rowid of this.hits.all(ftsAnyOf(level.terms)) as number[]) {
        const position = columns.positionOf(rowid);
        if (position >= 0) setBit(reached, position);
      }
      for (let i = 0; i < typos.length; i++) if (!hasBit(reached, scored.positions[i])) typos[i] += 1;
    }
    // One addition per hit, as the in-memory scorer makes it, so both give the same double.
    for (let i = 0; i < typos.length; i++) scored.scores[i] = scored.scores[i] + TYPO_RANK_STEP * typos[i];
  }

  /**
   * The text hits. A word FTS5's tokenizer splits into several terms (a phrase) is left to FTS5:
   * bm25 costs about ten times the MATCH itself per hit, so only hits that may be on the page are
   * scored: with filters that leave out enough of the catalog to pay for the check (query/plan.ts),
   * a function rejects each hit outside them before it is scored. When a facet leaves its own
   * filter out of its count, its hits come from a second, unscored MATCH.
   */
  private textHits(
    columns: CatalogColumns,
    query: GrantQuery,
    filters: Condition[],
    words: WordHits | null,
    ranked: boolean,
  ): TextHits | null {
    if (query.search === null) return null;
    const expression = ftsMatchExpression(query.search);
    if (expression === null) return NO_TEXT_HITS(query.sort.key === 'relevance');
    if (words !== null) {
      // Every word is one term: the hits from the in-memory postings; for relevance, the scores of
      // those that meet the filters (the others are never on a page), or a word's ranking whole
      // (the page is read along it, those outside the filters passed over).
      if (query.sort.key !== 'relevance') return { positions: words.hits, scored: null };
      if (ranked && words.ranking !== null) return { positions: words.hits, scored: words.ranking() };
      const accept =
        filters.length === 0
          ? null
          : intersection(
              filters.map((c) => c.bits),
              columns.size,
            );
      return { positions: words.hits, scored: scoreWords(words, accept) };
    }
    const positionsOf = (rowids: number[]) => Int32Array.from(rowids, (rowid) => columns.positionOf(rowid));
    if (query.sort.key !== 'relevance')
      return { positions: positionsOf(this.hits.all(expression) as number[]), scored: null };
    const all =
      filters.length === 0
        ? null
        : intersection(
            filters.map((c) => c.bits),
            columns.size,
          );
    let rows: [number, number][];
    if (all !== null && prefilterPays(countBits(all), columns.size)) {
      this.prefilter = { columns, bits: all };
      try {
        rows = this.scoredFilteredHits.all(expression) as [number, number][];
      } finally {
        this.prefilter = null;
      }
    } else {
      rows = this.scoredHits.all(expression) as [number, number][];
    }
    const scored = { positions: new Int32Array(rows.length), scores: new Float64Array(rows.length) };
    rows.forEach(([rowid, score], i) => {
      scored.positions[i] = columns.positionOf(rowid);
      scored.scores[i] = score;
    });
    if (hasAlternatives(query.search)) this.addTypoRanks(columns, query.search, scored);
    const facetDropsAFilter = filters.some((c) => c.facet !== null && query.facets.includes(c.facet));
    return {
      positions: facetDropsAFilter ? positionsOf(this.hits.all(expression) as number[]) : scored.positions,
      scored,
    };
  }
}
