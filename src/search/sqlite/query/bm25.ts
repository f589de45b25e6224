// FTS5's bm25() computed from in-memory term statistics, with FTS5's own formula and order of
// operations (sqlite3 ext/fts5/fts5_aux.c, fts5Bm25Function), so the scores are those FTS5 gives
// without its per-hit auxiliary calls. Pure: postings and lengths come in (index/postings.ts),
// scores go out.
import {
  advance,
  unionPositions,
  type PhraseParts,
  type TextStatistics,
  type WordPostings,
  type WordRanking,
} from '../index/postings.js';
import { hasBit } from '../index/bitset.js';

const K1 = 1.2;
const B = 0.75;

/**
 * The positions holding every term, ascending: the shortest list walked, each other term's grants
 * tested by its bit set when it has one, else its list walked alongside. The answer may be a view
 * of a longer buffer (no copy per search): what is kept beyond the search is copied first.
 */
export function intersectPostings(terms: readonly { positions: Int32Array; bits?: Uint32Array }[]): Int32Array {
  if (terms.length === 0) return new Int32Array(0);
  const sorted = [...terms].sort((a, b) => a.positions.length - b.positions.length);
  if (sorted.length === 1) return sorted[0].positions;
  const lists = sorted.map((t) => t.positions);
  const sets = sorted.map((t) => t.bits ?? null);
  const leading = lists[0];
  const cursors = new Int32Array(lists.length);
  const positions = new Int32Array(leading.length);
  let found = 0;
  outer: for (let h = 0; h < leading.length; h++) {
    const position = leading[h];
    for (let t = 1; t < lists.length; t++) {
      const set = sets[t];
      if (set !== null) {
        if (!hasBit(set, position)) continue outer;
        continue;
      }
      const list = lists[t];
      const c = advance(list, cursors[t], position);
      cursors[t] = c;
      if (c === list.length) break outer;
      if (list[c] !== position) continue outer;
    }
    positions[found++] = position;
  }
  return positions.subarray(0, found);
}

/** The positions of `from` not in `remove` (both ascending). */
export function subtractPositions(from: Int32Array, remove: Int32Array): Int32Array {
  if (from.length === 0 || remove.length === 0) return from;
  const kept = new Int32Array(from.length);
  let found = 0;
  let r = 0;
  for (let i = 0; i < from.length; i++) {
    const position = from[i];
    while (r < remove.length && remove[r] < position) r++;
    if (r < remove.length && remove[r] === position) continue;
    kept[found++] = position;
  }
  return found === from.length ? from : kept.subarray(0, found);
}

/** The scored grants whose position is in `positions` (both ascending). */
export function keepPositions(
  scored: { positions: Int32Array; scores: Float64Array },
  positions: Int32Array,
): { positions: Int32Array; scores: Float64Array } {
  const kept = {
    positions: new Int32Array(scored.positions.length),
    scores: new Float64Array(scored.positions.length),
  };
  let found = 0;
  let p = 0;
  for (let i = 0; i < scored.positions.length; i++) {
    const position = scored.positions[i];
    while (p < positions.length && positions[p] < position) p++;
    if (p === positions.length) break;
    if (positions[p] !== position) continue;
    kept.positions[found] = position;
    kept.scores[found] = scored.scores[i];
    found++;
  }
  return { positions: kept.positions.subarray(0, found), scores: kept.scores.subarray(0, found) };
}

/** Per grant's lengths (one array per build's statistics), the length's part of each score. */
const norms = new WeakMap<Float64Array, Float64Array>();

/**
 * Each grant's length part of FTS5's score, K1 × (1 − B + B × length / avgdl), worked out once
 * per build and thread with FTS5's operations in FTS5's order (so each score is the double FTS5
 * computes) rather than once per hit: a hit then costs one read, one addition and one division.
 */
function lengthNorms(stats: TextStatistics): Float64Array {
  let built = norms.get(stats.lengths);
  if (built === undefined) {
    const avgdl = stats.tokens / stats.rows;
    const { lengths } = stats;
    built = new Float64Array(lengths.length);
    for (let p = 0; p < lengths.length; p++) built[p] = K1 * (1 - B + (B * lengths[p]) / avgdl);
    norms.set(stats.lengths, built);
  }
  return built;
}

/**
 * The grants holding every word (an AND of the words, each an OR of its analyses' FTS5 phrases,
 * in query order), with FTS5's bm25 score of each (negative; lower is better): the positions
 * ascending. An analysis a grant lacks adds FTS5's 0 to its score. With `accept`, only the grants
 * in it are scored and returned (those outside the filters are never on a page). The grants
 * holding every word are those of `hits` when the caller has them already (intersectPostings),
 * and each word's list is walked to each of them.
 */
export function scoreAll(
  terms: readonly WordPostings[],
  stats: TextStatistics,
  accept: Uint32Array | null = null,
  hits: Int32Array | null = null,
): { positions: Int32Array; scores: Float64Array } {
  if (terms.length === 0) return { positions: new Int32Array(0), scores: new Float64Array(0) };
  const walked = hits ?? intersectPostings(terms);
  const norms = lengthNorms(stats);
  const idf = terms.map((t) => t.idf);
  const lists = terms.map((t) => t.positions);
  const counts = terms.map((t) => t.counts);
  const cursors = new Int32Array(terms.length);
  const positions = accept === null ? walked : new Int32Array(walked.length);
  const scores = new Float64Array(walked.length);
  let found = 0;
  for (let h = 0; h < walked.length; h++) {
    const position = walked[h];
    if (accept !== null) {
      if (!hasBit(accept, position)) continue;
      positions[found] = position;
    }
    // The same operations in the same order as FTS5 (the length's part computed once per grant and build).
    const norm = norms[position];
    let score = 0.0;
    for (let t = 0; t < terms.length; t++) {
      const at = advance(lists[t], cursors[t], position);
      cursors[t] = at;
      for (let a = 0; a < counts[t].length; a++) {
        const f = counts[t][a][at];
        score += idf[t][a] * ((f * (K1 + 1.0)) / (f + norm));
      }
    }
    scores[found] = -1.0 * score;
    found++;
  }
  return accept === null
    ? { positions: walked, scores }
    : { positions: positions.subarray(0, found), scores: scores.subarray(0, found) };
}

/**
 * Every grant holding one word, with its bm25 score (scoreAll's of that word alone) and the
 * grants' ranking by (score, position): worked out once per word and build (index/textIndex.ts
 * keeps it), a search of the word alone then reads its page along the ranking rather than
 * scoring and ranking every grant again.
 */
export function rankWord(term: WordPostings, stats: TextStatistics): WordRanking {
  const { positions, scores } = scoreAll([term], stats);
  // The positions ascend, so a tie in score is broken by the index as by the position.
  const order = new Int32Array(positions.length);
  for (let h = 0; h < order.length; h++) order[h] = h;
  order.sort((a, b) => scores[a] - scores[b] || a - b);
  return { positions, scores, order };
}

/**
 * Added to a grant's score per typo it needs (scores are negative, lower first): far above any bm25 score, so fewer
 * typos always rank first.
 */
export const TYPO_RANK_STEP = 1e6;

/**
 * The own words of a term a synonym rule joined (`loose`), each in either analysis, all of them:
 * the grants holding every word, with each word's analyses' bm25 parts there, in the expression's
 * order. FTS5 counts a word's instances only where the whole group is found (its phrases' node
 * stands at the grant), so a grant holding some of the words gets no part of them.
 */
export function allWordsParts(words: readonly WordPostings[], stats: TextStatistics): PhraseParts {
  // Kept for the build (index/textIndex.ts phraseParts): its own buffer, not a view of a longer one.
  const positions = intersectPostings(words).slice();
  const norms = lengthNorms(stats);
  const parts = words.flatMap((word) => word.counts.map(() => new Float64Array(positions.length)));
  const cursors = new Int32Array(words.length);
  for (let h = 0; h < positions.length; h++) {
    const position = positions[h];
    const norm = norms[position];
    let k = 0;
    for (let w = 0; w < words.length; w++) {
      const { positions: list, counts, idf } = words[w];
      const c = advance(list, cursors[w], position);
      cursors[w] = c;
      for (let a = 0; a < counts.length; a++) {
        const f = counts[a][c];
        parts[k++][h] = idf[a] * ((f * (K1 + 1.0)) / (f + norm));
      }
    }
  }
  return { positions, parts };
}

/**
 * A search term with alternatives: one entry per word or phrase (its own first, then each
 * alternative), each a word's analyses' postings (index/postings.ts WordPostings: its FTS5
 * phrases, English then French) or the bm25 parts of a phrase or of a loose term's own words
 * (PhraseParts), with the typos it needs, in the match expression's order; `positions`, when the
 * caller holds them already, the grants holding at least one of its entries (unionPositions).
 */
export interface TermPhrases {
  postings: (WordPostings | PhraseParts)[];
  typos: number[];
  positions?: Int32Array;
}

/** The positions holding some word of the term, ascending. */
const termPositions = (term: TermPhrases): Int32Array =>
  term.positions ?? unionPositions(term.postings.map((postings) => postings.positions));

/** The positions holding some word of every term, ascending. */
export function termHits(terms: readonly TermPhrases[]): Int32Array {
  return intersectPostings(terms.map((term) => ({ positions: termPositions(term) })));
}

/** Per build's lengths and thread, each position's index among a scoring's grants (-1: none), reset after each use. */
const slots = new WeakMap<Float64Array, Int32Array>();

/** The slot array of a build (every entry -1 between uses). */
function slotsOf(stats: TextStatistics): Int32Array {
  let built = slots.get(stats.lengths);
  if (built === undefined) {
    built = new Int32Array(stats.lengths.length).fill(-1);
    slots.set(stats.lengths, built);
  }
  return built;
}

/**
 * A word walks its own list, looking each grant up, while the list is at most this many times
 * the grants scored; a longer one (a frequent word under a rare one) is searched at each grant.
 */
const WALK_LIST_UP_TO = 8;

/**
 * The grants holding some word of every term in either analysis (FTS5's `(a OR a' OR a2 OR a2')
 * AND (b OR b' ...)`), with FTS5's bm25 of that expression (every phrase's part summed in the
 * expression's order, as FTS5 sums them; a phrase a grant lacks adds FTS5's 0) plus
 * TYPO_RANK_STEP for each typo the grant needs (per term, the fewest of the words it holds): the
 * positions ascending. With `accept`, only the grants in it are scored and returned.
 *
 * Word by word in the expression's order, each adding its parts to every grant holding it (so each
 * grant's sum is made in FTS5's order): a term's many typo alternatives cost their own lists'
 * lengths, not one search per grant each.
 */
export function scoreTerms(
  terms: readonly TermPhrases[],
  stats: TextStatistics,
  accept: Uint32Array | null = null,
): { positions: Int32Array; scores: Float64Array } {
  const hits = termHits(terms);
  const norms = lengthNorms(stats);
  let positions = hits;
  if (accept !== null) {
    const kept = new Int32Array(hits.length);
    let found = 0;
    for (const position of hits) if (hasBit(accept, position)) kept[found++] = position;
    positions = kept.subarray(0, found);
  }
  const count = positions.length;
  const scores = new Float64Array(count);
  const fewest = new Int32Array(count * terms.length).fill(0x7fffffff);
  const slot = slotsOf(stats);
  for (let h = 0; h < count; h++) slot[positions[h]] = h;
  try {
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t];
      for (let i = 0; i < term.postings.length; i++) {
        const postings = term.postings[i];
        const typos = term.typos[i];
        const list = postings.positions;
        // The part of the word at list index c for the grant in slot h, added as FTS5 adds it.
        const add =
          'parts' in postings
            ? (h: number, c: number) => {
                for (let a = 0; a < postings.parts.length; a++) scores[h] += postings.parts[a][c];
              }
            : (h: number, c: number) => {
                const { counts, idf } = postings;
                const norm = norms[positions[h]];
                for (let a = 0; a < counts.length; a++) {
                  const f = counts[a][c];
                  scores[h] += idf[a] * ((f * (K1 + 1.0)) / (f + norm));
                }
              };
        const held = (h: number, c: number) => {
          add(h, c);
          const at = h * terms.length + t;
          if (typos < fewest[at]) fewest[at] = typos;
        };
        if (list.length <= WALK_LIST_UP_TO * count) {
          for (let c = 0; c < list.length; c++) {
            const h = slot[list[c]];
            if (h >= 0) held(h, c);
          }
        } else {
          let c = 0;
          for (let h = 0; h < count; h++) {
            c = advance(list, c, positions[h]);
            if (c === list.length) break;
            if (list[c] === positions[h]) held(h, c);
          }
        }
      }
    }
  } finally {
    for (let h = 0; h < count; h++) slot[positions[h]] = -1;
  }
  for (let h = 0; h < count; h++) {
    let typos = 0;
    for (let t = 0; t < terms.length; t++) typos += fewest[h * terms.length + t];
    scores[h] = -1.0 * scores[h] + TYPO_RANK_STEP * typos;
  }
  return { positions, scores };
}
