// The relevance floor npm test holds: each engine's nDCG@10 over the judged set, per matching
// mode, as committed in test/relevance/floor.json. A change that scores more than FLOOR_TOLERANCE
// below it fails; when relevance improves, raise the figure in the same commit.
import { readFileSync } from 'node:fs';
import { repoPath } from '../../src/repoRoot.js';
import type { Grant } from '../../src/grants/schema.js';
import { evaluate } from './evaluate.js';
import { corpusFile, loadCorpus, loadJudgments, type JudgedQuery } from './judgments.js';
import { MATCHING_MODES } from './modes.js';
import type { SearchSystem } from './systems.js';

export const FLOOR_TOLERANCE = 0.02;
export const FLOOR_FILE = repoPath('test/relevance/floor.json');

/** engine name → mode name → the committed nDCG@10. */
export type Floor = Record<string, Record<string, number>>;

export const loadFloor = (file = FLOOR_FILE): Floor => JSON.parse(readFileSync(file, 'utf8')) as Floor;

/** The corpus the engines index and the judged set, read once per test file. */
export function loadBenchData(): { grants: Grant[]; queries: JudgedQuery[] } {
  const grants = loadCorpus(corpusFile());
  return { grants, queries: loadJudgments(new Set(grants.map((g) => g.id))) };
}

/** One mode's measured nDCG@10 against its floor. */
export interface FloorCheck {
  mode: string;
  ndcg: number;
  floor: number | undefined;
}

/** Measures every matching mode on `system` and pairs each figure with the engine's floor for it. */
export async function measureAgainstFloor(
  system: SearchSystem,
  queries: readonly JudgedQuery[],
  floor: Floor,
): Promise<FloorCheck[]> {
  const checks: FloorCheck[] = [];
  for (const mode of MATCHING_MODES) {
    const evaluation = await evaluate(system, mode, queries);
    checks.push({ mode: mode.name, ndcg: evaluation.overall.ndcg, floor: floor[system.name]?.[mode.name] });
  }
  return checks;
}

/** What is wrong with the checks: a mode without a committed floor, or a figure more than the tolerance below it. */
export function floorProblems(engine: string, checks: readonly FloorCheck[]): string[] {
  return checks.flatMap(({ mode, ndcg, floor }) => {
    if (floor === undefined)
      return [`${engine} ${mode}: no floor in test/relevance/floor.json (measured nDCG@10 ${ndcg.toFixed(3)}; add it)`];
    if (ndcg < floor - FLOOR_TOLERANCE)
      return [
        `${engine} ${mode}: nDCG@10 ${ndcg.toFixed(3)} is more than ${FLOOR_TOLERANCE} below its floor ` +
          `${floor.toFixed(3)}`,
      ];
    return [];
  });
}
