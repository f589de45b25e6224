// The relevance table: one row per query class and one for all, one column per system and mode,
// each cell "nDCG@10 / recall@10 / MRR / queries with no result". As aligned text for a terminal,
// or as Markdown for docs/performance.md.
import { QUERY_CLASSES } from './judgments.js';
import type { Summary } from './metrics.js';
import { labelOf, type Evaluation } from './evaluate.js';

const cell = (s: Summary | undefined): string =>
  s === undefined ? '' : `${s.ndcg.toFixed(3)} / ${s.recall.toFixed(3)} / ${s.mrr.toFixed(3)} / ${s.noResult}`;

function rows(evaluations: readonly Evaluation[]): string[][] {
  const first = evaluations[0];
  const out: string[][] = [];
  for (const cls of QUERY_CLASSES) {
    const n = first?.byClass.get(cls)?.queries;
    if (n === undefined) continue;
    out.push([cls, String(n), ...evaluations.map((e) => cell(e.byClass.get(cls)))]);
  }
  out.push(['all', String(first?.overall.queries ?? 0), ...evaluations.map((e) => cell(e.overall))]);
  return out;
}

const header = (evaluations: readonly Evaluation[]): string[] => ['class', 'queries', ...evaluations.map(labelOf)];

export const CELL_LEGEND = 'each cell: nDCG@10 / recall@10 / MRR@10 / queries with no result';

export function formatText(evaluations: readonly Evaluation[]): string {
  const table = [header(evaluations), ...rows(evaluations)];
  const widths = table[0].map((_, col) => Math.max(...table.map((row) => row[col].length)));
  const line = (row: string[]): string =>
    row.map((text, col) => (col < 2 ? text.padEnd(widths[col]) : text.padStart(widths[col]))).join('  ');
  return [
    line(table[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...table.slice(1).map(line),
    `(${CELL_LEGEND})`,
  ].join('\n');
}

export function formatMarkdown(evaluations: readonly Evaluation[]): string {
  const head = header(evaluations);
  const line = (row: string[]): string => `| ${row.join(' | ')} |`;
  return [
    line(head),
    line(head.map((_, col) => (col === 0 ? '---' : '---:'))),
    ...rows(evaluations).map(line),
    '',
    `(${CELL_LEGEND})`,
  ].join('\n');
}

/** The judged searches a system answered worst (lowest nDCG@10, then fewest results): for reading. */
export function formatWorst(evaluation: Evaluation, count: number): string {
  const worst = [...evaluation.results]
    .sort((a, b) => a.score.ndcg - b.score.ndcg || a.answer.total - b.answer.total)
    .slice(0, count);
  return [
    `${labelOf(evaluation)}: the ${count} lowest nDCG@10`,
    ...worst.map(
      (r) =>
        `  ${r.score.ndcg.toFixed(3)}  ${String(r.answer.total).padStart(5)} matches  [${r.query.class}] ` +
        `${r.query.search}`,
    ),
  ].join('\n');
}
