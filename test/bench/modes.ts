// npm run bench -- --modes [options]: the search mix in each search mode (its extra GET /grants
// parameters: typos, matching, synonyms) side by side, on both engines, in alternating rounds;
// with --against, other builds' APIs run the exact mix in the same rounds (old against new).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@elastic/elasticsearch';
import { dropCatalogIndexes } from '../../src/search/elasticsearch/changeLog.js';
import { TEXT_SHAPES, type TextShape } from '../../fixtures/generate.js';
import {
  readSampleFile,
  REPO_ROOT,
  runIndexer,
  writeCatalog,
  writeSampleFile,
  type CatalogSample,
  type IndexerRun,
} from './catalog.js';
import { drive, elasticsearchPid, type LoadResult } from './load.js';
import { buildMix } from './mix.js';
import {
  API_NODE_OPTIONS,
  cleanEnv,
  createBenchSubscription,
  freePort,
  startProcess,
  type RunningProcess,
} from './processes.js';
import { markdown, median, n0, pct, table } from './report.js';

/**
 * The modes measured unless --mode says otherwise: the exact search (synonyms on, the default), and each relaxation.
 */
export const STANDARD_MODES = [
  '',
  'synonyms=false',
  'typos=auto',
  'matching=frequency',
  'typos=auto&matching=frequency',
] as const;

const ENGINES = ['sqlite', 'elasticsearch'] as const;
type Engine = (typeof ENGINES)[number];

const HELP = `Usage: npm run bench -- --modes [options]

Generates N grants (fixture generator), indexes them with the real indexer into each engine,
starts the API (node dist/src/main.js, production's V8 options and LOG_LEVEL) on each, and
measures the search mix (npm run bench's) in each search mode: every request of the mix with the
mode's parameters added. With --against DIR, that build's API (DIR/dist/src/main.js, its catalog
indexed by its own indexer) runs the exact mix in the same rounds. Every server and mode is
measured once per round, the order reversed from round to round; medians, and each mode's ratio
to the exact mix (median of the rounds' ratios). Catalogs built by a commit are kept (embedded in
.cache/, Elasticsearch under a kept alias) and found by the next run; --drop-catalogs deletes them.

Options:
  --mode PARAMS         (repeatable) a mode as its extra parameters, e.g. typos=auto&matching=last;
                        "exact" for none (default: exact, ${STANDARD_MODES.slice(1).join(', ')})
  --engines LIST        sqlite,elasticsearch (default both; ELASTICSEARCH_URL, default http://127.0.0.1:9200)
  --against DIR         (repeatable) another checkout's build, measured on the exact mix
  --against-modes       the --against builds run every mode too, not the exact mix alone
  --grants N            catalog size (default 100000)
  --text T              short or realistic (default realistic)
  --seed S              generator and mix seed (default 1)
  --rounds R            rounds (default 3)
  --duration S          seconds per measured run (default 5)
  --connections C       autocannon connections (default 10)
  --out FILE            JSON results (default test/bench/results/modes-<timestamp>.json)
  --drop-catalogs       delete the kept catalogs at the end
  --keep-temp           keep the temporary directory (server logs)
  -h, --help            this help`;

interface Options {
  modes: string[];
  engines: Engine[];
  against: string[];
  againstModes: boolean;
  grants: number;
  text: TextShape;
  seed: number;
  rounds: number;
  durationSeconds: number;
  connections: number;
  out: string;
  dropCatalogs: boolean;
  keepTemp: boolean;
  elasticsearchUrl: string;
}

class UsageError extends Error {}

function positiveInt(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    throw new UsageError(`--${name} must be an integer from 1 to ${max} (got "${raw}")`);
  return Number(raw);
}

/** A mode's parameters as written on the command line, "exact" for none. */
const modeOf = (raw: string): string => {
  const mode = raw.trim().replace(/^[?&]+/, '');
  if (mode === 'exact') return '';
  if (!/^[a-zA-Z]+=[^&=]+(&[a-zA-Z]+=[^&=]+)*$/.test(mode))
    throw new UsageError(`--mode takes name=value pairs joined by & (got "${raw}")`);
  return mode;
};

export const modeLabel = (mode: string): string => (mode === '' ? 'exact' : mode);

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      modes: { type: 'boolean', default: false },
      mode: { type: 'string', multiple: true },
      engines: { type: 'string' },
      against: { type: 'string', multiple: true },
      'against-modes': { type: 'boolean', default: false },
      grants: { type: 'string' },
      text: { type: 'string' },
      seed: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      out: { type: 'string' },
      'drop-catalogs': { type: 'boolean', default: false },
      'keep-temp': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const engines = (values.engines ?? ENGINES.join(',')).split(',').map((e) => e.trim());
  for (const engine of engines)
    if (!(ENGINES as readonly string[]).includes(engine))
      throw new UsageError(`--engines takes ${ENGINES.join(', ')} (got "${engine}")`);
  const text = values.text ?? 'realistic';
  if (!(TEXT_SHAPES as readonly string[]).includes(text))
    throw new UsageError(`--text must be ${TEXT_SHAPES.join(' or ')} (got "${text}")`);
  const modes = [...new Set((values.mode ?? STANDARD_MODES.map(modeLabel)).map(modeOf))];
  if (!modes.includes('')) modes.unshift('');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    modes,
    engines: ENGINES.filter((e) => engines.includes(e)),
    against: (values.against ?? []).map((dir) => path.resolve(dir)),
    againstModes: values['against-modes'] ?? false,
    grants: positiveInt('grants', values.grants, 100_000, 10_000_000),
    text: text as TextShape,
    seed: positiveInt('seed', values.seed, 1, 0xffffffff),
    rounds: positiveInt('rounds', values.rounds, 3, 50),
    durationSeconds: positiveInt('duration', values.duration, 5, 3600),
    connections: positiveInt('connections', values.connections, 10, 1000),
    out: path.resolve(values.out ?? path.join(REPO_ROOT, 'test/bench/results', `modes-${stamp}.json`)),
    dropCatalogs: values['drop-catalogs'] ?? false,
    keepTemp: values['keep-temp'] ?? false,
    elasticsearchUrl: (process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200').replace(/\/+$/, ''),
  };
}

const say = (line: string) => process.stderr.write(`» ${line}\n`);
const loadAverage = () => Math.round(os.loadavg()[0] * 100) / 100;

/** A build: this checkout or an --against one. */
interface BuildDir {
  label: string;
  root: string;
  /** What its catalogs are kept under: a digest of the files that make them (so a change elsewhere reuses them). */
  tag: string;
}

/**
 * The files of a checkout that make its catalogs: the generator, the indexer, the schema and analysis, each engine's
 * writer.
 */
const CATALOG_MAKERS = [
  'fixtures/generate.ts',
  'fixtures/realisticText.ts',
  'mappings',
  'src/grants',
  'indexer',
  'src/search/sqlite/storage',
  'src/search/elasticsearch/writer.ts',
];

function buildOf(root: string, label: string): BuildDir {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...CATALOG_MAKERS], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '')
    .sort();
  const digest = createHash('sha1');
  for (const file of files)
    if (existsSync(path.join(root, file))) digest.update(file).update(readFileSync(path.join(root, file)));
  return { label, root, tag: digest.digest('hex').slice(0, 12) };
}

/**
 * The generated catalog as `build`'s indexer takes it: the same file, or a copy less the fields its
 * grant schema does not know (an older build: the French fields), written beside it.
 */
async function sourceFor(build: BuildDir, source: string): Promise<string> {
  const schema = (await import(pathToFileURL(path.join(build.root, 'dist/src/grants/schema.js')).href)) as {
    grantSchema: { properties: Record<string, unknown> };
  };
  const known = new Set(Object.keys(schema.grantSchema.properties));
  const lines = createInterface({ input: createReadStream(source), crlfDelay: Infinity });
  let projected: string | null = null;
  let out: ReturnType<typeof createWriteStream> | null = null;
  for await (const line of lines) {
    if (line === '') continue;
    const record = JSON.parse(line) as Record<string, unknown>;
    const unknown = Object.keys(record).filter((k) => !known.has(k));
    if (out === null) {
      if (unknown.length === 0) return source;
      projected = `${source}.${build.label}`;
      out = createWriteStream(projected, { highWaterMark: 1 << 20 });
    }
    for (const k of unknown) delete record[k];
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  }
  if (out === null) return source;
  out.end();
  await once(out, 'close');
  return projected!;
}

/** One server measured: an engine, a build, a mode. */
interface Config {
  engine: Engine;
  build: string;
  mode: string;
  name: string;
}

export interface ModesResults {
  meta: Record<string, unknown>;
  indexers: { engine: Engine; build: string; run: IndexerRun | null }[];
  configs: (Config & { runs: LoadResult[] })[];
  /** Per engine: requests of the mix kept (answered 200 by every server and mode; deep pages past the end dropped). */
  mixSize: Record<string, number>;
}

function withMode(p: string, mode: string): string {
  if (mode === '') return p;
  return `${p}${p.includes('?') ? '&' : '?'}${mode}`;
}

/** The median of the rounds' ratios of a config's req/s to another's (the pair run in the same round). */
function roundRatio(a: LoadResult[], b: LoadResult[]): { median: number; min: number; max: number } {
  const ratios = a.map((r, i) => r.rps / b[i].rps);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

export function formatModes(results: ModesResults, format: 'text' | 'markdown' = 'text'): string {
  const out: string[] = [];
  const m = results.meta;
  out.push(
    `search modes: ${m.grants} grants (${m.text} text), ${m.rounds} round(s) of ${m.durationSeconds} s, ` +
      `${m.connections} connections, load ${m.loadAverageStart} → ${m.loadAverageEnd} on ${m.cpus} cores`,
  );
  for (const i of results.indexers)
    if (i.run !== null)
      out.push(
        `  indexer ${i.engine} (${i.build}): ${n0(i.run.recordsPerSecond)} records/s, ` +
          `${i.run.seconds.toFixed(0)} s, peak RSS ${i.run.peakRssMiB.toFixed(0)} MiB`,
      );
  const header = [
    'engine',
    'build',
    'mode',
    'req/s',
    'p50 ms',
    'p99 ms',
    'API CPU µs/req',
    'ES CPU µs/req',
    'vs exact (range)',
  ];
  const rows: string[][] = [];
  for (const c of results.configs) {
    const exact = results.configs.find((x) => x.engine === c.engine && x.build === 'this' && x.mode === '')!;
    const cpu = c.runs.map((r) => r.serverCpuUsPerRequest).filter((v): v is number => v !== null);
    const es = c.runs.map((r) => r.engineCpuUsPerRequest).filter((v): v is number => v !== null && v !== undefined);
    const ratio = roundRatio(c.runs, exact.runs);
    rows.push([
      c.engine,
      c.build,
      modeLabel(c.mode),
      n0(median(c.runs.map((r) => r.rps))),
      median(c.runs.map((r) => r.latencyMs.p50)).toFixed(1),
      median(c.runs.map((r) => r.latencyMs.p99)).toFixed(1),
      cpu.length > 0 ? n0(median(cpu)) : '–',
      es.length > 0 ? n0(median(es)) : '–',
      c === exact ? '100%' : `${pct(ratio.median)} (${pct(ratio.min)}–${pct(ratio.max)})`,
    ]);
  }
  out.push(format === 'markdown' ? markdown(header, rows) : table(header, rows));
  const errors = results.configs.filter((c) => c.runs.some((r) => r.errors > 0));
  for (const c of errors) out.push(`  errors: ${c.name}: ${c.runs.map((r) => r.errors).join(', ')}`);
  return out.join('\n');
}

export async function runModesBench(argv: string[]): Promise<number> {
  let o: Options | null;
  try {
    o = parseOptions(argv);
  } catch (error) {
    process.stderr.write(`bench --modes: ${(error as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (o === null) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const started = Date.now();
  const loadAverageStart = loadAverage();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'grants-bench-modes-'));
  const running: RunningProcess[] = [];
  const builds = [buildOf(REPO_ROOT, 'this'), ...o.against.map((dir) => buildOf(dir, path.basename(dir)))];
  const catalogKey = `bench-modes-${o.grants}-${o.text}-seed${o.seed}`;
  const cacheRoot = path.join(REPO_ROOT, '.cache');
  const aliasOf = (build: BuildDir) => `${catalogKey}-${build.tag}`.toLowerCase();
  const embeddedDirOf = (build: BuildDir) => path.join(cacheRoot, `${catalogKey}-${build.tag}`);
  const es = new Client({ node: o.elasticsearchUrl, requestTimeout: 60_000 });
  const enginePid = o.engines.includes('elasticsearch') ? (elasticsearchPid() ?? undefined) : undefined;
  try {
    // 1. The catalog: generated once, indexed by each build's indexer into each engine, unless kept.
    mkdirSync(cacheRoot, { recursive: true });
    const sampleFile = path.join(cacheRoot, `${catalogKey}.sample.json`);
    let sample: CatalogSample | null = readSampleFile(sampleFile);
    const indexers: ModesResults['indexers'] = [];
    const held = async (engine: Engine, build: BuildDir): Promise<boolean> => {
      if (sample === null) return false;
      if (engine === 'sqlite') return existsSync(path.join(embeddedDirOf(build), 'catalog.sqlite'));
      const count = await es.count({ index: aliasOf(build) }).catch(() => null);
      return count !== null && count.count === o.grants;
    };
    const missing: { engine: Engine; build: BuildDir }[] = [];
    for (const engine of o.engines)
      for (const build of builds) if (!(await held(engine, build))) missing.push({ engine, build });
    if (missing.length > 0) {
      say(`generating ${o.grants.toLocaleString('en-US')} grants (seed ${o.seed}, ${o.text} text)`);
      const source = path.join(tmp, 'grants.ndjson');
      const generated = await writeCatalog(source, o.grants, o.seed, o.text);
      sample = generated.sample;
      writeSampleFile(sampleFile, sample);
      for (const { engine, build } of missing) {
        // An embedded catalog is built beside its place and moved there once whole: a run stopped midway leaves none to
        // be found.
        const dataDir =
          engine === 'sqlite' ? `${embeddedDirOf(build)}.partial` : path.join(tmp, `index-${build.label}`);
        rmSync(dataDir, { recursive: true, force: true });
        mkdirSync(dataDir, { recursive: true });
        if (engine === 'elasticsearch')
          await es.indices.delete({ index: `${aliasOf(build)}-*`, ignore_unavailable: true, allow_no_indices: true });
        say(`indexing into ${engine} with the indexer of ${build.label} (${build.root})`);
        const run = await runIndexer(
          await sourceFor(build, source),
          cleanEnv({
            DATA_DIR: dataDir,
            SEARCH_ENGINE: engine,
            ELASTICSEARCH_URL: o.elasticsearchUrl,
            ELASTICSEARCH_INDEX: aliasOf(build),
            LOG_LEVEL: 'warn',
          }),
          build.root,
        );
        if (run.exitCode !== 0) throw new Error(`grants-indexer (${build.root}) exited ${run.exitCode}: ${run.output}`);
        say(
          `  ${run.indexed.toLocaleString('en-US')} in ${run.seconds.toFixed(1)} s = ` +
            `${Math.round(run.recordsPerSecond)} records/s, peak RSS ${run.peakRssMiB.toFixed(0)} MiB`,
        );
        if (engine === 'sqlite') {
          rmSync(embeddedDirOf(build), { recursive: true, force: true });
          renameSync(dataDir, embeddedDirOf(build));
        }
        indexers.push({ engine, build: build.label, run });
      }
      rmSync(source, { force: true });
    }
    if (sample === null) throw new Error('no sample of the catalog');
    const mix = buildMix(sample, o.grants, o.seed);

    // 2. One API per engine and build, each on a DATA_DIR of its own (the embedded catalog linked).
    const apis = new Map<string, { api: RunningProcess; apiKey: string }>();
    for (const engine of o.engines) {
      for (const build of builds) {
        const name = `${engine}-${build.label}`;
        const dataDir = path.join(tmp, `data-${name}`);
        mkdirSync(dataDir, { recursive: true });
        if (engine === 'sqlite')
          symlinkSync(path.join(embeddedDirOf(build), 'catalog.sqlite'), path.join(dataDir, 'catalog.sqlite'));
        const env = {
          DATA_DIR: dataDir,
          SEARCH_ENGINE: engine,
          ELASTICSEARCH_URL: o.elasticsearchUrl,
          ELASTICSEARCH_INDEX: aliasOf(build),
        };
        const { apiKey } = await createBenchSubscription(cleanEnv(env), build.root);
        const port = await freePort();
        say(`starting the API of ${build.label} on ${engine}`);
        const api = await startProcess({
          name: `api-${name}`,
          args: [...API_NODE_OPTIONS, 'dist/src/main.js'],
          cwd: build.root,
          port,
          logDir: tmp,
          readyPath: '/readyz',
          readyTimeoutMs: 1_800_000,
          env: cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', SEED_CATALOG: 'false' }),
        });
        running.push(api);
        apis.set(name, { api, apiKey });
      }
    }
    const configs: Config[] = [];
    for (const engine of o.engines) {
      for (const mode of o.modes) configs.push({ engine, build: 'this', mode, name: `${engine} ${modeLabel(mode)}` });
      for (const build of builds.slice(1))
        for (const mode of o.againstModes ? o.modes : [''])
          configs.push({ engine, build: build.label, mode, name: `${engine} ${build.label} ${modeLabel(mode)}` });
    }
    const serverOf = (c: Config) => apis.get(`${c.engine}-${c.build}`)!;

    // 3. Pre-flight: each request of the mix once per server and mode; kept when every one answers 200 (and a deep page
    // is not past the end).
    say('pre-flight: every distinct request once per server and mode');
    const mixSize: Record<string, number> = {};
    const paths = new Map<Engine, string[]>();
    for (const engine of o.engines) {
      const distinct = [...new Set(mix.searchMix)];
      const failed = new Set<string>();
      for (const c of configs.filter((x) => x.engine === engine)) {
        const { api, apiKey } = serverOf(c);
        for (const p of distinct) {
          if (failed.has(p)) continue;
          let response = await fetch(api.origin + withMode(p, c.mode), {
            headers: { Authorization: `Bearer ${apiKey}` },
          });
          // A busy shared Elasticsearch can make the API shed a request (503, Retry-After): asked again.
          for (let retry = 0; response.status === 503 && retry < 5; retry++) {
            await response.arrayBuffer();
            await new Promise((resolve) =>
              setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)),
            );
            response = await fetch(api.origin + withMode(p, c.mode), {
              headers: { Authorization: `Bearer ${apiKey}` },
            });
          }
          const body = await response.text();
          if (!response.ok) {
            if (response.status >= 500)
              throw new Error(`pre-flight: ${c.name}: ${p}: ${response.status} ${body.slice(0, 200)}`);
            failed.add(p);
          } else if (p.includes('page=') && (JSON.parse(body) as { data: unknown[] }).data.length === 0) failed.add(p);
        }
      }
      const kept = mix.searchMix.filter((p) => !failed.has(p));
      paths.set(engine, kept);
      mixSize[engine] = kept.length;
      say(`  ${engine}: ${kept.length} of ${mix.searchMix.length} requests kept`);
    }

    const load = (c: Config, seconds = o.durationSeconds): Promise<LoadResult> => {
      const { api, apiKey } = serverOf(c);
      return drive({
        origin: api.origin,
        paths: paths.get(c.engine)!.map((p) => withMode(p, c.mode)),
        connections: o.connections,
        durationSeconds: seconds,
        headers: { Authorization: `Bearer ${apiKey}` },
        serverPid: api.pid,
        enginePid: c.engine === 'elasticsearch' ? enginePid : undefined,
        settle: true,
      });
    };
    say('warming up (3 s per server and mode)');
    for (const c of configs) await load(c, 3);

    // 4. The rounds: every config once per round, the order reversed from round to round.
    const runs = new Map<Config, LoadResult[]>(configs.map((c) => [c, []]));
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? configs : [...configs].reverse();
      for (const c of order) {
        const r = await load(c);
        runs.get(c)!.push(r);
        say(
          `round ${round + 1} ${c.name.padEnd(48)} ${String(Math.round(r.rps)).padStart(6)} req/s  p50 ` +
            `${r.latencyMs.p50.toFixed(1)}  p99 ${r.latencyMs.p99.toFixed(1)} ms  cpu ` +
            `${r.serverCpuUsPerRequest ?? '–'}` +
            (r.engineCpuUsPerRequest == null ? '' : ` es ${r.engineCpuUsPerRequest}`) +
            ' ' +
            `µs/req  errors ${r.errors}  load ${r.loadAverage}`,
        );
      }
    }

    const results: ModesResults = {
      meta: {
        date: new Date().toISOString(),
        command: `npm run bench -- ${argv.join(' ')}`,
        grants: o.grants,
        text: o.text,
        seed: o.seed,
        rounds: o.rounds,
        durationSeconds: o.durationSeconds,
        connections: o.connections,
        builds: builds.map((b) => ({ label: b.label, root: b.root, tag: b.tag })),
        apiCommand: `node ${API_NODE_OPTIONS.join(' ')} dist/src/main.js (production's LOG_LEVEL)`,
        node: process.version,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        loadAverageStart,
        loadAverageEnd: loadAverage(),
        elapsedSeconds: Math.round((Date.now() - started) / 1000),
        mixDigest: createHash('sha1').update(mix.searchMix.join('\n')).digest('hex').slice(0, 12),
      },
      indexers,
      configs: configs.map((c) => ({ ...c, runs: runs.get(c)! })),
      mixSize,
    };
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(
      `\n${formatModes(results)}\n\n${formatModes(results, 'markdown')}\n\nresults: ` +
        `${path.relative(process.cwd(), o.out)} (${results.meta.elapsedSeconds} s)\n`,
    );
    return 0;
  } finally {
    await Promise.allSettled(running.map((p) => p.stop()));
    if (o.dropCatalogs) {
      for (const build of builds) {
        rmSync(embeddedDirOf(build), { recursive: true, force: true });
        await dropCatalogIndexes(es, aliasOf(build)).catch(() => undefined);
      }
    }
    await es.close();
    if (o.keepTemp) say(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}
