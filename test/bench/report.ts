// The bench's results: their shape (the JSON file), the human tables and the targets.
import { readFileSync } from 'node:fs';
import { isEntryPoint } from '../../src/cli/entryPoint.js';
import type { IndexerRun } from './catalog.js';
import { shareRows, type LayerShares } from './layerShares.js';
import type { LoadResult } from './load.js';
import { CLASS_LABELS, SEARCH_CLASSES, type ClassName } from './mix.js';

export interface ClassResult {
  name: ClassName;
  label: string;
  /** Distinct requests in the class's rotation. */
  distinctRequests: number;
  /** Mean JSON body size of the API's answers (from the pre-flight pass); the ceiling serves this size. */
  bodyBytes: number;
  api: LoadResult;
  direct: LoadResult | null;
  ceiling: LoadResult;
}

export interface LayerConfigResult {
  name: string;
  /** The layers taken out (test/bench/benchServer.ts --without). */
  without: string[];
  env: Record<string, string>;
  /** Per measured class: one result per round. */
  runs: Record<string, LoadResult[]>;
  /** Per measured class: medians over the rounds. */
  median: Record<string, { rps: number; p50: number; p99: number; cpuUsPerRequest: number | null }>;
  readiness?: unknown;
}

export interface Target {
  name: string;
  measured: string;
  holds: boolean | null;
  note?: string;
}

export interface BenchResults {
  meta: Record<string, unknown>;
  /** indexer null: the catalog of a kept --data-dir, not indexed in this run. */
  catalog: {
    grants: number;
    fileBytes: number;
    generateSeconds: number;
    indexer: IndexerRun | null;
    mixSizes: Record<string, number>;
    preflight: unknown;
  };
  /** The API's start: spawn to the first 200 on /readyz, its resident set then, the embedded catalog file's size. */
  startup?: {
    readySeconds: number;
    cpuSecondsAtReady: number | null;
    rssMiBAtReady: number;
    catalogBytes: number | null;
  };
  classes: ClassResult[];
  /** Each search class on one connection (latency without queueing). */
  singleConnection: Partial<Record<(typeof SEARCH_CLASSES)[number], LoadResult>>;
  /**
   * The search mix at a fixed rate: `api`/`direct` evenly paced (open loop, latency from each
   * request's due time); `autocannon*` with autocannon's overallRate (each connection sends its
   * share of the second back to back, then waits for the next second: bursts).
   */
  fixedRate: {
    rate: number;
    api: LoadResult;
    direct: LoadResult | null;
    autocannonApi: LoadResult;
    autocannonDirect: LoadResult | null;
  } | null;
  /** Why the fixed-rate runs were not made, if they were not. */
  fixedRateSkipped?: string | null;
  /** GET /grants/suggest at a fixed rate, evenly paced (the suggest class's requests). */
  suggestFixedRate?: { rate: number; api: LoadResult } | null;
  /** GET /grants/:id/similar at a fixed rate, evenly paced (the similar class's requests). */
  similarFixedRate?: { rate: number; api: LoadResult } | null;
  /** The search mix without facets and with three, measured in alternating rounds on the API. */
  facetCost?: { rounds: { noFacets: LoadResult; facets: LoadResult }[] } | null;
  highlightCost?: { rounds: { plainPages: LoadResult; highlighted: LoadResult }[] } | null;
  layers: LayerConfigResult[];
  layerCosts: Record<string, Record<string, number>>;
  /** `/grants/:id` layer by layer, with the baselines and other builds, in the same rounds (--by-id-layers). */
  byIdLayerShares?: LayerShares | null;
  apiPeakRssMiB: number | null;
  usageLogRows: number | null;
  targets: Target[];
}

export const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
export const pct = (v: number) => `${Math.round(v * 100)}%`;

export function table(header: string[], rows: string[][], rightAlign = true): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || !rightAlign ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The same tables as markdown, for the bench journal (docs/journal/bench.md) and docs/performance.md. */
export function markdown(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** The engine's CPU per request, when the bench measured it (a local Elasticsearch). */
const engineCpu = (r: LoadResult | null | undefined) =>
  r?.engineCpuUsPerRequest == null ? '–' : n0(r.engineCpuUsPerRequest);

function classRows(results: BenchResults): { header: string[]; rows: string[][] } {
  const withEngine = results.classes.some((c) => c.api.engineCpuUsPerRequest != null);
  const header = [
    'class',
    'req/s',
    'p50 ms',
    'p97.5 ms',
    'p99 ms',
    'errors',
    'CPU µs/req',
    ...(withEngine ? ['ES CPU µs/req'] : []),
    'direct req/s',
    'API/direct',
    'ceiling req/s',
    'API/ceiling',
  ];
  const cpuCells = (r: LoadResult) => [
    r.serverCpuUsPerRequest === null ? '–' : n0(r.serverCpuUsPerRequest),
    ...(withEngine ? [engineCpu(r)] : []),
  ];
  const rows = results.classes.map((c) => [
    c.label,
    n0(c.api.rps),
    ms(c.api.latencyMs.p50),
    ms(c.api.latencyMs.p975),
    ms(c.api.latencyMs.p99),
    String(c.api.errors),
    ...cpuCells(c.api),
    c.direct === null ? '–' : n0(c.direct.rps),
    c.direct === null ? '–' : pct(c.api.rps / c.direct.rps),
    n0(c.ceiling.rps),
    pct(c.api.rps / c.ceiling.rps),
  ]);
  for (const [name, one] of Object.entries(results.singleConnection ?? {}) as [ClassName, LoadResult][]) {
    rows.push([
      `${CLASS_LABELS[name]}, 1 connection`,
      n0(one.rps),
      ms(one.latencyMs.p50),
      ms(one.latencyMs.p975),
      ms(one.latencyMs.p99),
      String(one.errors),
      ...cpuCells(one),
      '–',
      '–',
      '–',
      '–',
    ]);
  }
  const fixed = results.fixedRate;
  if (fixed !== null) {
    const row = (label: string, f: LoadResult, d: LoadResult | null) => [
      label,
      n0(f.rps),
      ms(f.latencyMs.p50),
      ms(f.latencyMs.p975),
      ms(f.latencyMs.p99),
      String(f.errors),
      ...cpuCells(f),
      d === null ? '–' : `p99 ${ms(d.latencyMs.p99)} ms`,
      '–',
      '–',
      '–',
    ];
    rows.push(row(`search mix, ${fixed.rate} req/s evenly paced`, fixed.api, fixed.direct));
    rows.push(row(`search mix, autocannon overallRate ${fixed.rate}`, fixed.autocannonApi, fixed.autocannonDirect));
  }
  for (const [what, paced] of [
    ['suggest', results.suggestFixedRate],
    ['similar', results.similarFixedRate],
  ] as const) {
    if (paced == null) continue;
    const f = paced.api;
    rows.push([
      `${what}, ${paced.rate} req/s evenly paced`,
      n0(f.rps),
      ms(f.latencyMs.p50),
      ms(f.latencyMs.p975),
      ms(f.latencyMs.p99),
      String(f.errors),
      ...cpuCells(f),
      '–',
      '–',
      '–',
      '–',
    ]);
  }
  return { header, rows };
}

function layerRows(results: BenchResults): { header: string[]; rows: string[][] } {
  const classes = Object.keys(results.layers[0]?.median ?? {});
  const header = [
    'layers',
    ...classes.flatMap((c) => [`${CLASS_LABELS[c as ClassName] ?? c} req/s`, 'vs all on', 'CPU µs/req']),
  ];
  const base = results.layers[0];
  const rows = results.layers.map((layer) => [
    layer.name,
    ...classes.flatMap((c) => {
      const m = layer.median[c];
      return [n0(m.rps), pct(m.rps / base.median[c].rps), m.cpuUsPerRequest === null ? '–' : n0(m.cpuUsPerRequest)];
    }),
  ]);
  return { header, rows };
}

export function formatReport(results: BenchResults, format: 'text' | 'markdown' = 'text'): string {
  const render = format === 'text' ? table : markdown;
  const m = results.meta as Record<string, any>;
  const ix = results.catalog.indexer;
  const out: string[] = [];
  out.push(
    `grants-api bench — engine ${m.engine}, store ${m.store ?? 'sqlite'}, ${n0(results.catalog.grants)} ` +
      `grants, ${m.connections} connections, ${m.durationSeconds} s per run, ` +
      `API LOG_LEVEL=${m.apiLogLevel}, ${m.cpus} cores, load average ${m.loadAverageStart} → ${m.loadAverageEnd}`,
  );
  const apiPeak = results.apiPeakRssMiB === null ? '' : `; API peak RSS ${results.apiPeakRssMiB.toFixed(0)} MiB`;
  out.push(
    ix === null
      ? `indexer: not run (the catalog of a kept --data-dir)${apiPeak}`
      : `indexer (child process, ${ix.engine}): ${n0(ix.indexed)} grants in ${ix.seconds.toFixed(1)} s = ` +
          `${n0(ix.recordsPerSecond)} records/s, ` +
          `peak RSS ${ix.peakRssMiB.toFixed(0)} MiB${apiPeak}`,
  );
  const startup = results.startup;
  const mix = results.classes.find((k) => k.name === 'searchMix');
  if (startup !== undefined) {
    out.push(
      `start-up (${m.text ?? 'short'} text): ready in ${startup.readySeconds.toFixed(1)} s ` +
        `(${startup.cpuSecondsAtReady?.toFixed(1) ?? '?'} s of CPU), RSS ${n0(startup.rssMiBAtReady)} MiB at ` +
        `ready` +
        (startup.catalogBytes === null ? '' : `, catalog file ${n0(startup.catalogBytes / 2 ** 20)} MiB`) +
        (mix === undefined
          ? ''
          : `; search mix ${n0(mix.api.rps)} req/s, p50 ${ms(mix.api.latencyMs.p50)} ms, p99 ` +
            `${ms(mix.api.latencyMs.p99)} ms`),
    );
  }
  out.push('');
  const c = classRows(results);
  out.push(render(c.header, c.rows));
  if (results.layers.length > 0) {
    out.push('');
    const l = layerRows(results);
    out.push(render(l.header, l.rows));
  }
  if (results.byIdLayerShares != null) {
    out.push('');
    const s = shareRows(results.byIdLayerShares);
    out.push(render(s.header, s.rows));
    out.push(s.summary);
  }
  out.push('');
  out.push('targets:');
  for (const t of results.targets) {
    const verdict = t.holds === null ? 'NOT MEASURED' : t.holds ? 'HOLDS' : 'MISSED';
    out.push(`  [${verdict}] ${t.name}: ${t.measured}${t.note ? ` (${t.note})` : ''}`);
  }
  return out.join('\n');
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export function medianOf(runs: LoadResult[]): LayerConfigResult['median'][string] {
  const cpu = runs.map((r) => r.serverCpuUsPerRequest).filter((v): v is number => v !== null);
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.latencyMs.p50)),
    p99: median(runs.map((r) => r.latencyMs.p99)),
    cpuUsPerRequest: cpu.length > 0 ? median(cpu) : null,
  };
}

/**
 * Facets' cost on top of the same searches: the median over the alternating rounds of each
 * round's ratio (server CPU per request when measured, else req/s). The bench makes the rounds
 * whenever it runs both facet classes.
 */
function facetTarget(results: BenchResults): Target {
  const name = 'facets cost ≤ 20% on top of the same searches';
  const pairs = results.facetCost?.rounds ?? [];
  if (pairs.length === 0) return { name, measured: 'not run', holds: null };
  const byCpu = pairs.every(
    (r) => r.facets.serverCpuUsPerRequest !== null && r.noFacets.serverCpuUsPerRequest !== null,
  );
  const costs = pairs.map((r) =>
    byCpu ? r.facets.serverCpuUsPerRequest! / r.noFacets.serverCpuUsPerRequest! - 1 : 1 - r.facets.rps / r.noFacets.rps,
  );
  const cost = median(costs);
  const on = medianOf(pairs.map((r) => r.facets));
  const off = medianOf(pairs.map((r) => r.noFacets));
  return {
    name,
    measured:
      `${pct(cost)} more ${byCpu ? 'CPU per request' : 'time (fewer req/s)'} (median of ${pairs.length} ` +
      `round(s): ${costs.map(pct).join(', ')}); ` +
      `medians ${n0(on.rps)} vs ${n0(off.rps)} req/s` +
      (byCpu ? `, ${n0(on.cpuUsPerRequest!)} vs ${n0(off.cpuUsPerRequest!)} µs/req` : ''),
    holds: cost <= 0.2,
    note:
      'the search mix with its facets removed vs the same requests each with three facets, in alternating rounds ' +
      'on the API; judged on server CPU per request when measured (req/s is noisy on a shared machine)',
  };
}

/**
 * Highlights' cost on top of the same searches (pages of 20, `highlight=title,description&crop=description:40`
 * against none): the median over the alternating rounds of each round's ratio, as for facets.
 */
function highlightTarget(results: BenchResults): Target {
  const name = 'highlights cost ≤ 25% on top of the same pages of 20';
  const pairs = results.highlightCost?.rounds ?? [];
  if (pairs.length === 0) return { name, measured: 'not run', holds: null };
  const byCpu = pairs.every(
    (r) => r.highlighted.serverCpuUsPerRequest !== null && r.plainPages.serverCpuUsPerRequest !== null,
  );
  const costs = pairs.map((r) =>
    byCpu
      ? r.highlighted.serverCpuUsPerRequest! / r.plainPages.serverCpuUsPerRequest! - 1
      : 1 - r.highlighted.rps / r.plainPages.rps,
  );
  const cost = median(costs);
  const on = medianOf(pairs.map((r) => r.highlighted));
  const off = medianOf(pairs.map((r) => r.plainPages));
  return {
    name,
    measured:
      `${pct(cost)} more ${byCpu ? 'CPU per request' : 'time (fewer req/s)'} (median of ${pairs.length} ` +
      `round(s): ${costs.map(pct).join(', ')}); ` +
      `medians ${n0(on.rps)} vs ${n0(off.rps)} req/s` +
      (byCpu ? `, ${n0(on.cpuUsPerRequest!)} vs ${n0(off.cpuUsPerRequest!)} µs/req` : ''),
    holds: cost <= 0.25,
    note:
      'the searches of the mix as pages of 20 with every field, without and with ' +
      'highlight=title,description&crop=description:40, in alternating rounds on the API; judged on server CPU ' +
      'per request when measured',
  };
}

export function evaluateTargets(results: BenchResults, engine: string, grants: number): Target[] {
  const targets: Target[] = [];
  const cls = (name: ClassName) => results.classes.find((c) => c.name === name);

  // `/grants/:id` against the ceiling is a figure, not a target: the class table prints it, and the
  // layer-by-layer step prints it with every layer on at `info` and at `warn` beside each layer's share.
  const mix = cls('searchMix');
  const direct = mix?.direct ?? null;
  const mixTarget = (name: string, wanted: boolean, threshold: number) => {
    if (!wanted)
      return { name, measured: `needs --engine ${engine === 'sqlite' ? 'elasticsearch' : 'sqlite'}`, holds: null };
    if (mix === undefined || direct === null) return { name, measured: 'not run', holds: null };
    if (direct.rps === 0)
      return {
        name,
        measured: `${n0(mix.api.rps)} req/s; the direct baseline answered nothing in its run`,
        holds: null,
      };
    const ratio = mix.api.rps / direct.rps;
    return {
      name,
      measured: `${n0(mix.api.rps)} vs ${n0(direct.rps)} req/s = ${pct(ratio)}`,
      holds: ratio >= threshold,
    };
  };
  targets.push(mixTarget('search mix ≥ 70% of the direct-SQLite baseline', engine === 'sqlite', 0.7));
  targets.push(mixTarget('search mix on Elasticsearch ≥ 85% of the direct engine', engine === 'elasticsearch', 0.85));

  const fixed = results.fixedRate;
  if (fixed === null) {
    targets.push({
      name: 'search mix p99 < 25 ms at a fixed 200 req/s',
      measured: results.fixedRateSkipped ?? 'not run',
      holds: null,
    });
  } else {
    const p99 = (name: string, r: LoadResult, note: string) => ({
      name,
      measured: `p99 ${ms(r.latencyMs.p99)} ms over ${n0(r.requests)} requests (${n0(r.rps)} req/s achieved)`,
      holds: r.latencyMs.p99 < 25 && r.errors === 0,
      note,
    });
    targets.push(
      p99(
        `search mix p99 < 25 ms at ${fixed.rate} req/s evenly paced (${engine})`,
        fixed.api,
        'one request every 5 ms, open loop, latency from the due time',
      ),
    );
    targets.push(
      p99(
        `search mix p99 < 25 ms with autocannon overallRate ${fixed.rate} (${engine})`,
        fixed.autocannonApi,
        `autocannon lets each of the ${fixed.autocannonApi.connections} connections send its share of each ` +
          `second back to back: bursts at full concurrency`,
      ),
    );
  }

  const suggestRate = results.suggestFixedRate;
  if (suggestRate == null) {
    targets.push({ name: 'suggest p99 ≤ 10 ms at a fixed 200 req/s', measured: 'not run', holds: null });
  } else {
    const r = suggestRate.api;
    targets.push({
      name: `suggest p99 ≤ 10 ms at ${suggestRate.rate} req/s evenly paced (${engine})`,
      measured: `p99 ${ms(r.latencyMs.p99)} ms over ${n0(r.requests)} requests (${n0(r.rps)} req/s achieved)`,
      holds: r.latencyMs.p99 <= 10 && r.errors === 0,
      note: 'GET /grants/suggest as typed (test/bench/mix.ts suggestPaths), one request every 5 ms, open loop',
    });
  }

  const similarRate = results.similarFixedRate;
  if (similarRate != null) {
    const r = similarRate.api;
    targets.push({
      name: `similar p99 ≤ 50 ms at ${similarRate.rate} req/s evenly paced (${engine})`,
      measured: `p99 ${ms(r.latencyMs.p99)} ms over ${n0(r.requests)} requests (${n0(r.rps)} req/s achieved)`,
      holds: r.latencyMs.p99 <= 50 && r.errors === 0,
      note:
        'GET /grants/:id/similar of sampled grants (test/bench/mix.ts similarPaths), one request every 20 ms, ' +
        'open loop',
    });
  }

  const on = results.layers.find((l) => l.name === 'all on');
  const off = results.layers.find((l) => l.name === 'all three off');
  if (on === undefined || off === undefined) {
    targets.push({ name: 'auth + limits + usage cost ≤ 10% of throughput', measured: 'not run', holds: null });
  } else {
    const costs = Object.keys(on.median).map((c) => ({ c, cost: 1 - on.median[c].rps / off.median[c].rps }));
    targets.push({
      name: 'auth + limits + usage cost ≤ 10% of throughput',
      measured: costs.map(({ c, cost }) => `${CLASS_LABELS[c as ClassName] ?? c}: ${pct(cost)}`).join(', '),
      holds: costs.every(({ cost }) => cost <= 0.1),
      note: 'cost = 1 − req/s(all on) / req/s(all three off), medians over rounds',
    });
  }

  const million = grants >= 1_000_000;
  const embedded = engine === 'sqlite';
  const search = SEARCH_CLASSES.map(cls).filter((c): c is ClassResult => c !== undefined);
  if (embedded && grants >= 100_000 && !million) {
    targets.push(
      search.length === 0
        ? { name: 'embedded, 100,000 grants: every search class ≥ 300 req/s', measured: 'not run', holds: null }
        : {
            name: 'embedded, 100,000 grants: every search class ≥ 300 req/s',
            measured: search.map((c) => `${c.label}: ${n0(c.api.rps)}`).join(', '),
            holds: search.every((c) => c.api.rps >= 300),
          },
    );
    targets.push(
      mix === undefined
        ? { name: 'embedded, 100,000 grants: search mix ≥ 400 req/s', measured: 'not run', holds: null }
        : {
            name: 'embedded, 100,000 grants: search mix ≥ 400 req/s',
            measured: `${n0(mix.api.rps)} req/s`,
            holds: mix.api.rps >= 400,
          },
    );
  }
  if (engine === 'elasticsearch' && grants >= 100_000 && !million) {
    // The Elasticsearch targets at a real catalog's size (the API, one process, and Elasticsearch on the same cores).
    const floors: [ClassName, number][] = [
      ['searchMix', 300],
      ['deep', 150],
      ['byId', 3000],
    ];
    for (const [name, floor] of floors) {
      const c = cls(name);
      const label = `Elasticsearch, 100,000 grants: ${CLASS_LABELS[name]} ≥ ${n0(floor)} req/s`;
      targets.push(
        c === undefined
          ? { name: label, measured: 'not run', holds: null }
          : {
              name: label,
              measured:
                `${n0(c.api.rps)} req/s (API ` +
                `${c.api.serverCpuUsPerRequest === null ? '–' : n0(c.api.serverCpuUsPerRequest)} µs/req, ` +
                `Elasticsearch ${engineCpu(c.api)} µs/req of CPU)`,
              holds: c.api.rps >= floor,
            },
      );
    }
  }
  targets.push(facetTarget(results));
  targets.push(highlightTarget(results));
  if (million && embedded) {
    targets.push(
      mix === undefined
        ? { name: 'embedded, 1,000,000 grants: search mix ≥ 60 req/s', measured: 'not run', holds: null }
        : {
            name: 'embedded, 1,000,000 grants: search mix ≥ 60 req/s',
            measured: `${n0(mix.api.rps)} req/s`,
            holds: mix.api.rps >= 60,
          },
    );
  }
  const singles = Object.entries(results.singleConnection ?? {}) as [ClassName, LoadResult][];
  const singleName = '1,000,000 grants: every embedded search class p50 < 50 ms on one connection';
  targets.push(
    !million || !embedded
      ? { name: singleName, measured: 'only measured with --grants 1000000 --engine sqlite', holds: null }
      : singles.length === 0
        ? { name: singleName, measured: 'not run', holds: null }
        : {
            name: singleName,
            measured: singles.map(([name, r]) => `${CLASS_LABELS[name]}: p50 ${ms(r.latencyMs.p50)} ms`).join(', '),
            holds: singles.every(([, r]) => r.latencyMs.p50 < 50),
          },
  );
  const ix = results.catalog.indexer;
  targets.push(
    ix === null
      ? {
          name: '1,000,000 grants: indexer peak memory < 300 MB',
          measured: 'the indexer did not run (a kept --data-dir)',
          holds: null,
        }
      : !million
        ? {
            name: '1,000,000 grants: indexer peak memory < 300 MB',
            measured: `only measured with --grants 1000000 (here ${ix.peakRssMiB.toFixed(0)} MiB at ${n0(grants)})`,
            holds: null,
          }
        : {
            name: '1,000,000 grants: indexer peak memory < 300 MB',
            measured: `${(ix.peakRssMiB * 1.048576).toFixed(0)} MB (${ix.peakRssMiB.toFixed(0)} MiB) peak RSS`,
            holds: ix.peakRssMiB * 1.048576 < 300,
          },
  );
  return targets;
}

// node dist/test/bench/report.js RESULTS.json [--markdown]: prints a results file again.
if (isEntryPoint(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write('usage: node dist/test/bench/report.js RESULTS.json [--markdown]\n');
    process.exit(2);
  }
  const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  process.stdout.write(`${formatReport(results, process.argv.includes('--markdown') ? 'markdown' : 'text')}\n`);
}
