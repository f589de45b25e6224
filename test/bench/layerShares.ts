// `/grants/:id` layer by layer (`npm run bench -- --by-id-layers all`): the API with every layer
// on, the API less one layer at a time (test/bench/benchServer.ts --without), the API less all of
// them (Koa, the route's classification, the handler, the lookup and the envelope), other builds
// of the API (`--against DIR`, for an old-against-new comparison), the direct baseline and the
// ceiling, all measured in the same interleaved rounds (each round's order reversed from the
// last). A layer's share is what the API spends with it on less what it spends without it (server
// CPU µs per request, medians of the rounds), over what it spends with every layer on.
import type { LoadResult } from './load.js';
import type { LayerConfigResult } from './report.js';

/** One thing taken out of the API, by the names of benchServer's --without. */
export interface ShareLayer {
  name: string;
  without: string[];
}

/** Each layer a `/grants/:id` request passes, in the API's order (the four pages it passes by are one). */
export const BY_ID_LAYERS: readonly ShareLayer[] = [
  { name: 'metrics', without: ['metrics'] },
  { name: 'compression check', without: ['compression'] },
  { name: 'request id', without: ['requestId'] },
  { name: 'access log and request logger', without: ['accessLog'] },
  { name: 'usage recording', without: ['usage'] },
  { name: 'CORS', without: ['cors'] },
  { name: 'error handler', without: ['errors'] },
  { name: 'URL length bound', without: ['bounds'] },
  {
    name: 'pages passed by (openapi, docs, console, searchPage, landing)',
    without: ['openapi', 'docs', 'console', 'searchPage', 'landing'],
  },
  { name: 'overload guard', without: ['overload'] },
  { name: 'auth', without: ['auth'] },
  { name: 'key restrictions (origins, IPs)', without: ['callerOriginAndIp'] },
  { name: 'subscription status', without: ['status'] },
  { name: 'limits and allowance', without: ['limits'] },
  { name: 'route guard (404, 405)', without: ['routeGuard'] },
  { name: 'feature', without: ['feature'] },
  { name: 'scope', without: ['scope'] },
  { name: 'conditional (ETag, 304)', without: ['conditional'] },
];

/**
 * What a run of the step measures: `all` (every layer), `none` (no layer; the API, the baselines and `--against` builds
 * only) or a comma list of layer names of benchServer.
 */
export function shareLayersOf(spec: string): ShareLayer[] {
  if (spec === 'all') return [...BY_ID_LAYERS];
  if (spec === 'none') return [];
  const known = new Set(BY_ID_LAYERS.flatMap((l) => l.without));
  return spec.split(',').map((name) => {
    const trimmed = name.trim();
    if (!known.has(trimmed))
      throw new Error(`--by-id-layers takes all, none or a comma list of ${[...known].join(', ')} (got "${trimmed}")`);
    return (
      BY_ID_LAYERS.find((l) => l.without.length === 1 && l.without[0] === trimmed) ?? {
        name: trimmed,
        without: [trimmed],
      }
    );
  });
}

/** A server of the step: its row's name and how it is started. */
export interface ShareConfig {
  name: string;
  kind: 'api' | 'layerOff' | 'allOff' | 'against' | 'direct' | 'ceiling';
  without: string[];
  /** The API's LOG_LEVEL for this server when it is not the run's own (the `all on` row at the other level). */
  logLevel?: string;
  /** A checkout whose dist/src/main.js is started instead of this one's (kind `against`). */
  build?: string;
}

/**
 * The servers of the step. With every layer on, the API is measured at the run's LOG_LEVEL and at
 * the other of `info` and `warn` (production's level writes an access line per request; `warn`
 * writes none), so the ratio to the ceiling is printed at both in one run.
 */
export function shareConfigs(
  layers: readonly ShareLayer[],
  against: readonly string[],
  logLevel: string,
): ShareConfig[] {
  const otherLevel = logLevel === 'warn' ? 'info' : 'warn';
  return [
    { name: 'all on', kind: 'api', without: [] },
    { name: `all on, LOG_LEVEL=${otherLevel}`, kind: 'api', without: [], logLevel: otherLevel },
    ...against.map((build): ShareConfig => ({ name: `all on, build ${build}`, kind: 'against', without: [], build })),
    ...layers.map((layer): ShareConfig => ({ name: `${layer.name} off`, kind: 'layerOff', without: layer.without })),
    ...(layers.length > 1
      ? [
          {
            name: 'all of them off (Koa, classify, handler)',
            kind: 'allOff',
            without: layers.flatMap((l) => l.without),
          } as ShareConfig,
        ]
      : []),
    { name: 'direct baseline (node:http + lookup + envelope)', kind: 'direct', without: [] },
    { name: 'ceiling (node:http, same bytes)', kind: 'ceiling', without: [] },
  ];
}

export interface LayerShares {
  rounds: number;
  seconds: number;
  logLevel: string;
  configs: (ShareConfig & { runs: LoadResult[]; median: LayerConfigResult['median'][string] })[];
}

/** Measures every config in `rounds` interleaved rounds, each round's order the reverse of the last. */
export async function measureShares(
  configs: readonly ShareConfig[],
  rounds: number,
  measure: (config: ShareConfig, index: number, round: number) => Promise<LoadResult>,
): Promise<LoadResult[][]> {
  const runs = configs.map((): LoadResult[] => []);
  for (let round = 0; round < rounds; round++) {
    const order = configs.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) runs[i].push(await measure(configs[i], i, round));
  }
  return runs;
}

const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
const pct = (v: number) => `${Math.round(v * 100)}%`;
const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)}`;

/** The table's rows: req/s, ratio to the ceiling, CPU µs per request, and for a layer its cost and share. */
export function shareRows(shares: LayerShares): { header: string[]; rows: string[][]; summary: string } {
  const find = (kind: ShareConfig['kind']) => shares.configs.find((c) => c.kind === kind);
  const allOn = shares.configs.find((c) => c.kind === 'api' && c.logLevel === undefined)!;
  const ceiling = find('ceiling')!;
  const onCpu = allOn.median.cpuUsPerRequest;
  const header = ['/grants/:id', 'req/s', 'vs ceiling', 'CPU µs/req', 'layer µs/req', 'share of all on'];
  const rows = shares.configs.map((c) => {
    const cpu = c.median.cpuUsPerRequest;
    const cost =
      c.kind === 'layerOff' || c.kind === 'allOff' ? (onCpu === null || cpu === null ? null : onCpu - cpu) : null;
    return [
      c.name,
      n0(c.median.rps),
      pct(c.median.rps / ceiling.median.rps),
      cpu === null ? '–' : n0(cpu),
      cost === null ? '' : signed(cost),
      cost === null || onCpu === null ? '' : pct(cost / onCpu),
    ];
  });
  const layerCosts = shares.configs
    .filter((c) => c.kind === 'layerOff')
    .map((c) => (onCpu ?? 0) - (c.median.cpuUsPerRequest ?? 0));
  const sum = layerCosts.reduce((a, b) => a + b, 0);
  const otherLevels = shares.configs
    .filter((c) => c.kind === 'api' && c.logLevel !== undefined)
    .map((c) => `, ${pct(c.median.rps / ceiling.median.rps)} at LOG_LEVEL=${c.logLevel}`)
    .join('');
  const summary =
    `API/ceiling ${pct(allOn.median.rps / ceiling.median.rps)} (${n0(allOn.median.rps)} vs ` +
    `${n0(ceiling.median.rps)} req/s, medians of ${shares.rounds} interleaved round(s) of ${shares.seconds} ` +
    `s, LOG_LEVEL=${shares.logLevel}${otherLevels}); ` +
    (`CPU per request: all on ${onCpu === null ? '–' : n0(onCpu)} µs, ceiling ` +
      `${ceiling.median.cpuUsPerRequest === null ? '–' : n0(ceiling.median.cpuUsPerRequest)} µs`) +
    (layerCosts.length > 0 ? `; the layers one by one add up to ${sum.toFixed(1)} µs` : '');
  return { header, rows, summary };
}
