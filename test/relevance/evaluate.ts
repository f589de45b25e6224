// Runs the judged set through one system in one mode and scores it, per class and overall.
import { QUERY_CLASSES, type JudgedQuery, type QueryClass } from './judgments.js';
import { scoreQuery, summarise, type QueryAnswer, type QueryScore, type Summary } from './metrics.js';
import type { MatchingMode } from './modes.js';
import type { SearchSystem } from './systems.js';

export interface QueryResult {
  query: JudgedQuery;
  answer: QueryAnswer;
  score: QueryScore;
}

/** One column of the report: a system in a mode, its summaries and every query's result. */
export interface Evaluation {
  system: string;
  /** The mode's name; null for the baseline, which has none. */
  mode: string | null;
  byClass: Map<QueryClass, Summary>;
  overall: Summary;
  results: QueryResult[];
}

/** The report's label of an evaluation: the system, and its mode unless it is the default. */
export const labelOf = (e: Pick<Evaluation, 'system' | 'mode'>): string =>
  e.mode === null || e.mode === 'default' ? e.system : `${e.system} ${e.mode}`;

export async function evaluate(
  system: SearchSystem,
  mode: MatchingMode,
  queries: readonly JudgedQuery[],
): Promise<Evaluation> {
  const results: QueryResult[] = [];
  for (const query of queries) {
    let answer: QueryAnswer;
    try {
      answer = await system.answer(query.search, mode);
    } catch (error) {
      throw new Error(
        `${labelOf({ system: system.name, mode: mode.name })}: the search ${JSON.stringify(query.search)} ` +
          `failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    results.push({ query, answer, score: scoreQuery(answer, query.relevant) });
  }
  const byClass = new Map<QueryClass, Summary>();
  for (const cls of QUERY_CLASSES) {
    const scores = results.filter((r) => r.query.class === cls).map((r) => r.score);
    if (scores.length > 0) byClass.set(cls, summarise(scores));
  }
  return {
    system: system.name,
    mode: system.hasModes ? mode.name : null,
    byClass,
    overall: summarise(results.map((r) => r.score)),
    results,
  };
}
