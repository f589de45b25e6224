// Relaxed matching on the embedded engine (grants/relaxation.ts): the most relaxed step's hits are
// the matches; for relevance, each hit's score is the step's bm25 plus the bm25 of each given-up
// term it holds (as a search of that term alone, its typo rank included; a term it does not hold
// adds the typo rank of every level of it), plus RELAXATION_RANK_STEP for each earlier step it
// does not reach. Elasticsearch adds the same parts (search/elasticsearch/translator.ts
// relaxationRanked); the rule is in the architecture doc. Pure: the hits come in.
import { emptyBits, hasBit, setBit } from '../index/bitset.js';
import { TYPO_RANK_STEP } from './bm25.js';
import type { ScoredHits } from './textHits.js';

/**
 * Added to a hit's score (negative, lower first) for each relaxation level it misses: far above
 * any bm25 score and any typo rank, so more kept words always rank first.
 */
const RELAXATION_RANK_STEP = 1e9;

/** The text hits a plan's parts need, found by the caller on the same snapshot. */
interface RelaxedParts {
  /** Scored hits of each given-up term as a search of it alone (plan.givenUp's order), its typo rank included. */
  givenUp: ScoredHits[];
  /** Each given-up term's typo levels (grants/typos.ts typoPenaltyLevels): what a grant not holding it misses. */
  givenUpLevels: number[];
  /** The positions of the hits of each level (plan.levels' order), in any order. */
  levels: Int32Array[];
}

const ascending = (positions: Int32Array): boolean => {
  for (let i = 1; i < positions.length; i++) if (positions[i] <= positions[i - 1]) return false;
  return true;
};

/**
 * The term's score at each of `positions` (NaN where it has none): both walked together when
 * ascending (in-memory hits are).
 */
function scoresAt(term: ScoredHits, positions: Int32Array): Float64Array {
  const extras = new Float64Array(positions.length).fill(Number.NaN);
  if (ascending(term.positions) && ascending(positions)) {
    let k = 0;
    for (let i = 0; i < positions.length && k < term.positions.length; i++) {
      while (k < term.positions.length && term.positions[k] < positions[i]) k++;
      if (k < term.positions.length && term.positions[k] === positions[i]) extras[i] = term.scores[k];
    }
    return extras;
  }
  const scoreAt = new Map<number, number>();
  for (let i = 0; i < term.positions.length; i++) scoreAt.set(term.positions[i], term.scores[i]);
  for (let i = 0; i < positions.length; i++) extras[i] = scoreAt.get(positions[i]) ?? Number.NaN;
  return extras;
}

/** The relaxed step's scored hits with the given-up terms' scores and the levels' ranks added, in place. */
export function rankRelaxed(scored: ScoredHits, parts: RelaxedParts, size: number): ScoredHits {
  const n = scored.positions.length;
  parts.givenUp.forEach((term, t) => {
    const extras = scoresAt(term, scored.positions);
    const missing = TYPO_RANK_STEP * parts.givenUpLevels[t];
    for (let i = 0; i < n; i++) {
      const extra = extras[i];
      if (!Number.isNaN(extra)) scored.scores[i] = scored.scores[i] + extra;
      else if (missing > 0) scored.scores[i] = scored.scores[i] + missing;
    }
  });
  const missed = new Int32Array(n);
  for (const positions of parts.levels) {
    const reached = emptyBits(size);
    for (const position of positions) if (position >= 0) setBit(reached, position);
    for (let i = 0; i < n; i++) if (!hasBit(reached, scored.positions[i])) missed[i]++;
  }
  for (let i = 0; i < n; i++) if (missed[i] > 0) scored.scores[i] = scored.scores[i] + RELAXATION_RANK_STEP * missed[i];
  return scored;
}
