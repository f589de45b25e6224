// The relevance metrics of one ranked answer against its judged ids, and their means. Binary
// gains: a returned id is relevant (1) or not (0); ids returned twice count once.

/** The cut-off of every metric: the first page a partner shows. */
export const CUTOFF = 10;

/** The first `k` ids of a ranking, each id once (a repeated id keeps its first place). */
function topDistinct(ranked: readonly string[], k: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranked) {
    if (out.length === k) break;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/**
 * nDCG@k with binary gains: DCG = Σ rel_i / log2(i + 1) over the first k places (i from 1),
 * divided by the DCG of an ideal ranking (min(|relevant|, k) relevant ids first). 0 when nothing
 * is judged relevant.
 */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k = CUTOFF): number {
  const ideal = Math.min(relevant.size, k);
  if (ideal === 0) return 0;
  let dcg = 0;
  topDistinct(ranked, k).forEach((id, index) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(index + 2);
  });
  let idcg = 0;
  for (let index = 0; index < ideal; index += 1) idcg += 1 / Math.log2(index + 2);
  return dcg / idcg;
}

/** Recall@k: the share of the relevant ids found in the first k places (0 when none is judged). */
export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k = CUTOFF): number {
  if (relevant.size === 0) return 0;
  return topDistinct(ranked, k).filter((id) => relevant.has(id)).length / relevant.size;
}

/** Reciprocal rank within the first k places: 1 / the place of the first relevant id, 0 when none is there. */
export function reciprocalRankAt(ranked: readonly string[], relevant: ReadonlySet<string>, k = CUTOFF): number {
  const index = topDistinct(ranked, k).findIndex((id) => relevant.has(id));
  return index === -1 ? 0 : 1 / (index + 1);
}

/** One query's answer: the ranked ids of its first page and how many grants matched in all. */
export interface QueryAnswer {
  ranked: readonly string[];
  total: number;
}

/** One query's scores. */
export interface QueryScore {
  ndcg: number;
  recall: number;
  rr: number;
  /** True when the search matched no grant at all. */
  empty: boolean;
}

export function scoreQuery(answer: QueryAnswer, relevant: ReadonlySet<string>): QueryScore {
  return {
    ndcg: ndcgAt(answer.ranked, relevant),
    recall: recallAt(answer.ranked, relevant),
    rr: reciprocalRankAt(answer.ranked, relevant),
    empty: answer.total === 0,
  };
}

/** The means over a set of queries (MRR is the mean reciprocal rank), and how many found nothing. */
export interface Summary {
  queries: number;
  ndcg: number;
  recall: number;
  mrr: number;
  noResult: number;
}

export function summarise(scores: readonly QueryScore[]): Summary {
  const n = scores.length;
  const mean = (pick: (s: QueryScore) => number): number =>
    n === 0 ? 0 : scores.reduce((sum, s) => sum + pick(s), 0) / n;
  return {
    queries: n,
    ndcg: mean((s) => s.ndcg),
    recall: mean((s) => s.recall),
    mrr: mean((s) => s.rr),
    noResult: scores.filter((s) => s.empty).length,
  };
}
