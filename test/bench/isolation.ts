// The search-isolation and overload bench: the API (node dist/src/main.js) over a
// cached catalog, once with searches on the event loop (SEARCH_WORKERS=0) and once on worker
// threads, measuring
//  - the search mix at full speed (req/s, p99, CPU µs/req);
//  - /grants/:id evenly paced at --by-id-rate (1,000 req/s) alone: the machine's own floor;
//  - isolation: the same while another client sends search + filters at full speed — the p99 of
//    /grants/:id;
//  - overload: search + filters at --overload-connections (well past saturation) — the p99 of the
//    searches served and the share shed with 503.
// SEARCH_WORKERS=0 runs as the engine did before the workers: no queue limit, no event-loop check.
//
//   npm run build && node dist/test/bench/isolation.js --grants 1000000 [--duration 10] [--workers 0,2]
//
// The catalog (generated, then indexed by the real grants-indexer) is cached in
// .cache/bench-catalog-<grants>-seed<seed>/ with the sample the request mix is drawn from: a
// 1,000,000-grant catalog takes minutes to build, and is built once.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT, storedCatalogs, type StoredCatalog } from './catalog.js';
import { drive, drivePaced, type LoadResult } from './load.js';
import autocannon from 'autocannon';
import { buildMix } from './mix.js';
import { cleanEnv, createBenchSubscription, freePort, startProcess } from './processes.js';

const HELP = `Usage: node dist/test/bench/isolation.js [options]

Options:
  --grants N                catalog size (default 1000000)
  --seed S                  generator and mix seed (default 1)
  --workers LIST            SEARCH_WORKERS values to compare (default 0,${os.availableParallelism()})
  --duration S              seconds per measured run (default 10)
  --connections C           connections of the full-speed search client (default 10)
  --by-id-rate R            /grants/:id requests per second during the isolation run (default 1000)
  --overload-connections C  connections of the overload run (default 200)
  --timeout-ms MS           SEARCH_TIMEOUT_MS of the API (default 2000)
  --queue-limit Q           SEARCH_QUEUE_LIMIT of the API (default 64)
  --only LIST               mix,alone,isolation,overload (default all four; alone: /grants/:id
                            paced with no search running, the machine's own floor)
  --build-only              build (or find) the cached catalog, measure nothing
  --profile DIR             write the API process's CPU profiles (main thread and workers) into DIR
  --out FILE                JSON results (default test/bench/results/isolation-<timestamp>.json)
  -h, --help                this help
`;

/** The catalog of `grants` grants in .cache/, built (with its sample) when missing. */
async function cachedCatalog(grants: number, seed: number): Promise<StoredCatalog> {
  const dataDir = path.join(REPO_ROOT, '.cache', `bench-catalog-${grants}-seed${seed}`);
  const env = (dir: string) => cleanEnv({ SEARCH_ENGINE: 'sqlite', DATA_DIR: dir, LOG_LEVEL: 'warn' });
  const [catalog] = await storedCatalogs(grants, seed, [{ dataDir, indexerRoot: REPO_ROOT }], env, (line) =>
    process.stdout.write(`${line}\n`),
  );
  return catalog;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number | null;
  loadAverage: number;
  statusCodes: Record<string, number>;
}

const figures = (r: LoadResult): Figures => ({
  rps: Math.round(r.rps),
  p50: r.latencyMs.p50,
  p99: r.latencyMs.p99,
  cpuUsPerRequest: r.serverCpuUsPerRequest === null ? null : Math.round(r.serverCpuUsPerRequest),
  loadAverage: r.loadAverage,
  statusCodes: r.statusCodes,
});

/** Full-speed load on `paths`, with the latency of the answers served (2xx) apart from the refused (503). */
async function driveCountingShed(
  origin: string,
  paths: string[],
  connections: number,
  durationSeconds: number,
  headers: Record<string, string>,
) {
  const served: number[] = [];
  const shed: number[] = [];
  let next = 0;
  const instance = autocannon({
    url: origin,
    connections,
    duration: durationSeconds,
    timeout: 30,
    headers,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const p = paths[next];
          next = (next + 1) % paths.length;
          return { ...request, path: p };
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) =>
    (status === 200 ? served : shed).push(ms),
  );
  const result = await instance;
  const pct = (list: number[], q: number) => {
    if (list.length === 0) return 0;
    const sorted = Float64Array.from(list).sort();
    return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100) / 100;
  };
  const seconds = result.duration > 0 ? result.duration : durationSeconds;
  return {
    servedPerSecond: Math.round(served.length / seconds),
    served: served.length,
    servedP50: pct(served, 0.5),
    servedP99: pct(served, 0.99),
    refused: shed.length,
    refusedP99: pct(shed, 0.99),
    refusedShare:
      served.length + shed.length === 0 ? 0 : Math.round((shed.length / (served.length + shed.length)) * 1000) / 1000,
    socketErrors: result.errors,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

interface WorkersRun {
  workers: number;
  mix?: Figures;
  alone?: Figures;
  isolation?: { byId: Figures; search: Figures };
  overload?: Awaited<ReturnType<typeof driveCountingShed>>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      grants: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      workers: { type: 'string', default: `0,${os.availableParallelism()}` },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'by-id-rate': { type: 'string', default: '1000' },
      'overload-connections': { type: 'string', default: '200' },
      'timeout-ms': { type: 'string', default: '2000' },
      profile: { type: 'string' },
      'queue-limit': { type: 'string', default: '64' },
      only: { type: 'string', default: 'mix,alone,isolation,overload' },
      out: { type: 'string' },
      'build-only': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const grants = Number(values.grants);
  const seed = Number(values.seed);
  const duration = Number(values.duration);
  const only = new Set(values.only.split(','));
  const catalog = await cachedCatalog(grants, seed);
  if (values['build-only']) return;
  const mix = buildMix(catalog.sample, grants, seed);
  const runs: WorkersRun[] = [];

  for (const workers of values.workers.split(',').map(Number)) {
    const port = await freePort();
    const env = {
      ...process.env,
      DATA_DIR: catalog.dataDir,
      SEARCH_ENGINE: 'sqlite',
      SEED_CATALOG: 'false',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      PORT: String(port),
      HOST: '127.0.0.1',
      SEARCH_WORKERS: String(workers),
      SEARCH_TIMEOUT_MS: values['timeout-ms'],
      // "Before" (SEARCH_WORKERS=0) is the engine as it was: searches on the event loop, nothing shed.
      SEARCH_QUEUE_LIMIT: workers === 0 ? '100000' : values['queue-limit'],
      OVERLOAD_EVENT_LOOP_DELAY_MS: workers === 0 ? '0' : '500',
    };
    const { apiKey } = await createBenchSubscription(env);
    const headers = { authorization: `Bearer ${apiKey}` };
    const logDir = path.join(os.tmpdir());
    const api = await startProcess({
      name: `bench-isolation-api-${workers}`,
      args: [
        ...(values.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values.profile}`]),
        'dist/src/main.js',
      ],
      env,
      port,
      logDir,
      readyTimeoutMs: 600_000,
    });
    const run: WorkersRun = { workers };
    try {
      // Warm-up: one search answered (on the event loop, the first one loads the columns: tens of
      // seconds at 1,000,000 grants; workers load theirs before the API listens), then a short run.
      for (let answered = false; !answered;) {
        const res = await fetch(api.origin + mix.combined[0], { headers });
        await res.arrayBuffer();
        answered = res.status === 200;
      }
      await drive({
        origin: api.origin,
        paths: mix.searchMix,
        connections: 2,
        durationSeconds: 3,
        headers,
        serverPid: api.pid,
      });
      if (only.has('mix')) {
        run.mix = figures(
          await drive({
            origin: api.origin,
            paths: mix.searchMix,
            connections: Number(values.connections),
            durationSeconds: duration,
            headers,
            serverPid: api.pid,
          }),
        );
        process.stdout.write(`workers=${workers} search mix: ${JSON.stringify(run.mix)}\n`);
      }
      if (only.has('alone')) {
        run.alone = figures(
          await drivePaced({
            origin: api.origin,
            paths: mix.byId,
            rate: Number(values['by-id-rate']),
            durationSeconds: duration,
            headers,
          }),
        );
        process.stdout.write(`workers=${workers} /grants/:id alone: ${JSON.stringify(run.alone)}\n`);
      }
      if (only.has('isolation')) {
        const [search, byId] = await Promise.all([
          drive({
            origin: api.origin,
            paths: mix.combined,
            connections: Number(values.connections),
            durationSeconds: duration,
            headers,
            serverPid: api.pid,
          }),
          drivePaced({
            origin: api.origin,
            paths: mix.byId,
            rate: Number(values['by-id-rate']),
            durationSeconds: duration,
            headers,
          }),
        ]);
        run.isolation = { byId: figures(byId), search: figures(search) };
        process.stdout.write(`workers=${workers} isolation: ${JSON.stringify(run.isolation)}\n`);
      }
      if (only.has('overload')) {
        run.overload = await driveCountingShed(
          api.origin,
          mix.combined,
          Number(values['overload-connections']),
          duration,
          headers,
        );
        process.stdout.write(`workers=${workers} overload: ${JSON.stringify(run.overload)}\n`);
      }
    } finally {
      await api.stop();
    }
    runs.push(run);
  }
  const results = {
    at: new Date().toISOString(),
    grants,
    seed,
    cpus: os.availableParallelism(),
    node: process.version,
    catalogBuilt: catalog.built,
    settings: values,
    runs,
  };
  const out =
    values.out ??
    path.join(REPO_ROOT, 'test/bench/results', `isolation-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, JSON.stringify(results, null, 2));
  process.stdout.write(`results: ${out}\n`);
}

main().catch((error) => {
  process.stderr.write(`isolation bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
