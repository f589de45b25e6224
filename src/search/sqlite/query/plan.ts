// Every cost threshold of the embedded engine's query plan, each with where it came from: the
// choices between two ways of computing the same answer (never a choice of answer, so a threshold
// off the mark costs time, not correctness). Figures are from 100,000 generated grants on the
// shared 2-core test machine (docs/journal/bench.md has the runs). Where a comment says "not
// measured", the value was set by the reasoning given and no crossover measurement was recorded:
// those are the first to measure on other hardware. Pure: counts in, a choice out.

/**
 * Text hits left to FTS5 (a word its tokenizer splits) and sorted by relevance: below this share
 * of the catalog meeting every filter, a hit is checked against the filters before bm25 scores it.
 * Measured: FTS5's bm25() costs about ten times the MATCH itself per hit (a 29,000-hit word: 6.5 ms
 * to find, 67 ms to find and score), and the check saved ~63 → ~8 ms CPU on a common word with
 * one funding type. The 70 % itself is not measured: the check is one JavaScript call per hit,
 * cheap beside a score, so it is made unless the filters leave out less than ~30 %.
 */
const PREFILTER_SHARE = 0.7;

/**
 * Whether hits left to FTS5 are checked against the filters (`accepted` grants meet them all) before they are scored.
 */
export const prefilterPays = (accepted: number, catalog: number): boolean => accepted < catalog * PREFILTER_SHARE;

/**
 * With search words: below this share of the catalog holding them, the range filters (amounts,
 * dates) are tested on the words' hits alone rather than on every grant. Not measured: the
 * whole-catalog test builds one word of bits per 32 grants, branch-free and in order; a hit tested
 * alone is a random read of the column, several times dearer per grant, hence a quarter.
 */
const CANDIDATE_SHARE = 0.25;

/** Whether range filters are tested on the `candidates` text hits alone. */
export const testCandidatesOnly = (candidates: number, catalog: number): boolean =>
  candidates < catalog * CANDIDATE_SHARE;

/**
 * The bytes of range bit sets each search thread keeps per catalog build (query/ranges.ts), least
 * recently used dropped: 32 MiB is 268 sets at 1,000,000 grants (122 KiB each), 2,684 at 100,000.
 * Not measured as a crossover: a partner's filters repeat a few dozen ranges (the bench's mix
 * draws its bounds from a few dozen values), and a set not kept costs a slice of its column's order
 * (0.06–1.6 ms at 1,000,000 grants).
 */
export const RANGE_CACHE_BYTES = 32 * 1024 * 1024;

/*
 * Counting a facet, in nanoseconds per 32-grant word of a bit set or per grant. Measured with
 * test/bench/facetCount.ts (both ways timed apart on a quiet machine, 100,000 and 1,000,000
 * grants, 6 and 13 values, matches holding 0.1 % to all of the catalog): one grant counted from
 * its value mask, 2.2–2.4 ns (the masks are read in position order), after a pass over the
 * matches' words of ~1.9 ns a word. One value's bit set ANDed with the matches and counted is
 * 1.2–1.9 ns a word counted word by word; eight words at a time through carry-save adders
 * (bitset.ts countAnd) it is about half that: 2.5–3.3 ns against 4.5–8.7 for the word-by-word
 * count and 6–7.4 for a match's mask in the same runs (on a VM about twice as slow as the quiet
 * one), which at the quiet machine's mask cost gives ~1.0. The crossover these give (15 % of the
 * catalog for 13 values, 6 % for 6) is where the measured times cross.
 */
const VALUE_WORD_NS = 1.0;
const MASK_COUNT_NS = 2.3;
const WORD_PASS_NS = 1.9;

/**
 * Whether a facet of `values` values is counted by ANDing each value's bit set with the matches
 * (cost grows with the catalog: `words` words) rather than from the `matches` grants' value masks
 * (cost grows with the matches).
 */
export function countFacetByBits(values: number, words: number, matches: number): boolean {
  const byBits = values * VALUE_WORD_NS * words;
  const byMasks = words * WORD_PASS_NS + matches * MASK_COUNT_NS;
  return byBits <= byMasks;
}

/**
 * Relevance pages up to this offset + size keep the best hits in a bounded heap; deeper ones
 * select the score of the last hit needed (quickselect) and sort only offset + size hits.
 * Measured at the deep end: on a 75,000-hit word a heap of 4,020 (page 201 of 20) cost ~10 ms, the
 * selection ~4–5 ms. The crossover at 256 is not measured: a short page's heap stays in the cache,
 * while the selection copies every matching hit and its score first.
 */
const HEAP_LIMIT = 256;

/** Whether the best `keep` hits are kept in a heap (else selected). */
export const keepInHeap = (keep: number): boolean => keep <= HEAP_LIMIT;

/**
 * A page along a sort order: walking the order costs about wanted × catalog / matches steps (one
 * bit test each); sorting the matches by their place in the order costs about
 * matches × (log2(matches) + 1) comparisons, each counted as this many steps. Set at 4 without a
 * measurement. Measured since in isolation (test/bench/sortStep.ts: both ways timed on the
 * deadline order of 100,000 grants, 100 to 30,000 random matches, pages of 21, 101 and 1,001,
 * load average 12-18): a comparison cost 6 to 11 steps in most cases (4 to 18 at the extremes),
 * 7 to 9 at the median of two runs. But the search mix with 9 took 3 % and 5 % more CPU per
 * request than with 4 in two alternating runs (load average 9-13; within this machine's noise,
 * yet not better), so 4 stays until a quiet machine settles it.
 */
const SORT_STEP = 4;

/**
 * Whether the `wanted` first of `matches` matches (offset + size, or a cursor page and one more)
 * are found by sorting the matches rather than by walking an order of `catalog` grants.
 */
export function sortBeatsWalk(matches: number, wanted: number, catalog: number): boolean {
  const walkSteps = (wanted * catalog) / matches;
  return matches * (Math.log2(matches) + 1) * SORT_STEP < walkSteps;
}
