// bench:compare's results: their shape (the JSON file), the per-class summary of the alternating
// rounds (medians, and the median of each round's new/old ratio) and its table.
import { readFileSync } from 'node:fs';
import { isEntryPoint } from '../../src/cli/entryPoint.js';
import type { LoadResult } from './load.js';
import type { ClassName } from './mix.js';
import { markdown, median, n0, pct, table } from './report.js';

export interface BuildInfo {
  label: string;
  commit: string;
  uncommitted: boolean;
}

/** One round of one class: each build's run, and which ran first. */
export interface CompareRound {
  first: 'old' | 'new';
  old: LoadResult;
  new: LoadResult;
}

export interface CompareResults {
  meta: Record<string, unknown> & { grants: number; loadAverageStart: number; loadAverageEnd: number };
  builds: { old: BuildInfo; new: BuildInfo };
  /** How many pre-flight answers were compared byte for byte, and the paths whose bodies differ. */
  answers: { compared: number; differing: string[] };
  classes: { name: ClassName; label: string; rounds: CompareRound[] }[];
}

/** A figure's median for each build and the median of the rounds' new/old ratios, with their range. */
export interface Compared {
  old: number;
  new: number;
  ratio: number;
  lowest: number;
  highest: number;
}

export interface ClassSummary {
  name: ClassName;
  label: string;
  rps: Compared;
  cpu: Compared | null;
  errors: { old: number; new: number };
  /** Whether the new build is within `TOLERANCE` of the old or better, on req/s and on CPU per request. */
  within: boolean;
}

/** How much worse the new build may be on a class and still count as the same: 5 %. */
export const TOLERANCE = 0.05;

function compared(rounds: CompareRound[], figure: (r: LoadResult) => number | null): Compared | null {
  const pairs = rounds.map((r) => [figure(r.old), figure(r.new)] as const);
  if (pairs.some(([o, n]) => o === null || n === null || o === 0)) return null;
  const ratios = pairs.map(([o, n]) => n! / o!);
  return {
    old: median(pairs.map(([o]) => o!)),
    new: median(pairs.map(([, n]) => n!)),
    ratio: median(ratios),
    lowest: Math.min(...ratios),
    highest: Math.max(...ratios),
  };
}

export function summarise(results: CompareResults): ClassSummary[] {
  return results.classes.map(({ name, label, rounds }) => {
    const rps = compared(rounds, (r) => r.rps)!;
    const cpu = compared(rounds, (r) => r.serverCpuUsPerRequest);
    const errors = {
      old: rounds.reduce((sum, r) => sum + r.old.errors, 0),
      new: rounds.reduce((sum, r) => sum + r.new.errors, 0),
    };
    const within = rps.ratio >= 1 - TOLERANCE && (cpu === null || cpu.ratio <= 1 + TOLERANCE) && errors.new === 0;
    return { name, label, rps, cpu, errors, within };
  });
}

/** Each build's facet cost: the median over rounds of CPU per request with three facets over without, less one. */
export function facetCosts(results: CompareResults): { old: number; new: number } | null {
  const of = (name: ClassName) => results.classes.find((c) => c.name === name)?.rounds;
  const without = of('noFacets');
  const withFacets = of('facets');
  if (without === undefined || withFacets === undefined || without.length !== withFacets.length) return null;
  const cost = (build: 'old' | 'new') => {
    const ratios = without.map((r, i) => {
      const on = withFacets[i][build].serverCpuUsPerRequest;
      const off = r[build].serverCpuUsPerRequest;
      return on === null || off === null ? null : on / off - 1;
    });
    return ratios.some((v) => v === null) ? null : median(ratios as number[]);
  };
  const costs = { old: cost('old'), new: cost('new') };
  return costs.old === null || costs.new === null ? null : (costs as { old: number; new: number });
}

const ratio = (v: number) => v.toFixed(3);
const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(Math.round(v * 100))} %`;
const describe = (b: BuildInfo) =>
  `${b.label} (${b.commit.slice(0, 12)}${b.uncommitted ? ', with uncommitted changes' : ''})`;

export function formatCompare(results: CompareResults, format: 'text' | 'markdown' = 'text'): string {
  const render = format === 'text' ? table : markdown;
  const m = results.meta;
  const summaries = summarise(results);
  const rounds = results.classes[0]?.rounds.length ?? 0;
  const out: string[] = [];
  out.push(`bench:compare — old: ${describe(results.builds.old)}; new: ${describe(results.builds.new)}`);
  out.push(
    `${n0(m.grants)} grants (${String(m.catalog)} catalog), ${String(m.connections)} connections, ${rounds} ` +
      `alternating round(s) of ${String(m.durationSeconds)} s per build and class, ` +
      `${String(m.cpus)} cores, load average ${m.loadAverageStart} → ${m.loadAverageEnd}`,
  );
  out.push(
    `answers compared in the pre-flight: ${n0(results.answers.compared)}, bodies differing: ` +
      `${n0(results.answers.differing.length)}`,
  );
  out.push('');
  const header = [
    'class',
    'old req/s',
    'new req/s',
    'new/old req/s',
    'old CPU µs/req',
    'new CPU µs/req',
    'new/old CPU',
    'CPU ratio range',
    'errors old/new',
    `within ${pct(TOLERANCE)}`,
  ];
  const rows = summaries.map((s) => [
    s.label,
    n0(s.rps.old),
    n0(s.rps.new),
    ratio(s.rps.ratio),
    s.cpu === null ? '–' : n0(s.cpu.old),
    s.cpu === null ? '–' : n0(s.cpu.new),
    s.cpu === null ? '–' : ratio(s.cpu.ratio),
    s.cpu === null ? '–' : `${ratio(s.cpu.lowest)}–${ratio(s.cpu.highest)}`,
    `${s.errors.old}/${s.errors.new}`,
    s.within ? 'yes' : 'NO',
  ]);
  out.push(render(header, rows));
  const facets = facetCosts(results);
  if (facets !== null) {
    out.push('');
    out.push(
      `facets' cost (three facets vs none, CPU per request, median of the rounds): old ` +
        `${signed(facets.old)}, new ${signed(facets.new)}`,
    );
  }
  out.push('');
  out.push(
    "Each figure is the median over the rounds; a new/old ratio is the median of the rounds' ratios (the " +
      'two builds of a round ran back to back, ' +
      (`the first of them alternating), its range the lowest and highest round. "within ${pct(TOLERANCE)}": ` +
        `new/old req/s ≥ ${ratio(1 - TOLERANCE)}, `) +
      `new/old CPU ≤ ${ratio(1 + TOLERANCE)} and no error on the new build.`,
  );
  return out.join('\n');
}

// node dist/test/bench/compareReport.js RESULTS.json [--markdown]: prints a comparison again.
if (isEntryPoint(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write('usage: node dist/test/bench/compareReport.js RESULTS.json [--markdown]\n');
    process.exit(2);
  }
  const results = JSON.parse(readFileSync(file, 'utf8')) as CompareResults;
  process.stdout.write(`${formatCompare(results, process.argv.includes('--markdown') ? 'markdown' : 'text')}\n`);
}
