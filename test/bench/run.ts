// npm run bench [-- options]: generates a catalog, indexes it with the real indexer, starts the
// production build of the API and the baseline servers as child processes, drives them with
// autocannon per endpoint class, measures what each middleware layer costs, prints a table with
// every figure's ratio to its baseline, checks the targets and writes the results as JSON.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { Client } from '@elastic/elasticsearch';
import { dropCatalogIndexes } from '../../src/search/elasticsearch/changeLog.js';
import { loadConfig, LOG_LEVELS } from '../../src/config.js';
import {
  catalogBytes,
  procMemory,
  REPO_ROOT,
  runIndexer,
  sampleIndexedCatalog,
  writeCatalog,
  type CatalogSample,
  type IndexerRun,
} from './catalog.js';
import { TEXT_SHAPES, type TextShape } from '../../fixtures/generate.js';
import { drive, drivePaced, elasticsearchPid, processCpuSeconds, type LoadResult, type LoadSettings } from './load.js';
import { buildMix, CLASS_LABELS, CLASS_NAMES, SEARCH_CLASSES, type ClassName } from './mix.js';
import { preflight } from './preflight.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import { runAlertsBench } from './alerts.js';
import { runImportsBench } from './imports.js';
import { runRelevanceBench } from '../relevance/run.js';
import { runModesBench } from './modes.js';
import {
  measureShares,
  shareConfigs,
  shareLayersOf,
  type LayerShares,
  type ShareConfig,
  type ShareLayer,
} from './layerShares.js';
import {
  API_NODE_OPTIONS,
  cleanEnv,
  createBenchSubscription,
  freePort,
  startProcess,
  type RunningProcess,
} from './processes.js';
import {
  evaluateTargets,
  formatReport,
  medianOf,
  type BenchResults,
  type ClassResult,
  type LayerConfigResult,
} from './report.js';

/** The level production logs at (src/config.ts's default): what the bench measures unless told otherwise. */
const PRODUCTION_LOG_LEVEL = loadConfig({}).logLevel;

const HELP = `Usage: npm run bench -- [options]

Generates N grants with the fixture generator, indexes them with grants-indexer (a child
process: records/s and peak RSS), starts the API (node dist/src/main.js, production's LOG_LEVEL) and
bare node:http baselines as child processes, and drives each with autocannon per endpoint
class. Prints every figure with its ratio to its baseline, the cost of each middleware layer
(the app without it, test/bench/benchServer.ts), which targets hold, and writes everything as JSON.

The alerts bench is its own run: npm run bench -- --alerts N --help.
So is the relevance bench: npm run bench -- --relevance --help, and the search modes side by
side: npm run bench -- --modes --help.
So is the importers bench: npm run bench -- --imports --help.

Options:
  --quick               short runs (whole bench well under 5 minutes)
  --grants N            catalog size (default 10000; e.g. 100000, 1000000)
  --duration S          seconds per measured run (default 10; --quick 3)
  --connections C       autocannon connections (default 10)
  --store S             subscriptions store: sqlite (default, DATA_DIR) or postgres: a
                        database grants_bench_<hex> created on --database-url's server for
                        the run and dropped after
  --database-url URL    PostgreSQL server for --store postgres (default DATABASE_URL, else
                        postgres://postgres@127.0.0.1:5432/postgres)
  --engine E            sqlite (default) or elasticsearch (ELASTICSEARCH_URL, default
                        http://127.0.0.1:9200; a unique alias, deleted at the end)
  --out FILE            JSON results (default test/bench/results/<timestamp>.json)
  --seed S              generator and mix seed (default 1)
  --text T              descriptions: short (default, a few sentences) or realistic (80–400
                        words, Zipfian over 50,000 words: fixtures/realisticText.ts)
  --data-dir DIR        the API's data directory, kept after the run: when it holds a catalog
                        already, generating and indexing are skipped and the mix is drawn from
                        that catalog (a 1,000,000-grant realistic catalog takes many minutes
                        to build; embedded engine only)
  --rounds R            rounds of the layer comparison, interleaved (default 3; --quick 1)
  --only CLASSES        comma list of classes to run (${CLASS_NAMES.join(', ')})
  --skip-layers         skip the layer-cost comparison
  --log-level L         the API's LOG_LEVEL (default: production's, ${PRODUCTION_LOG_LEVEL})
  --by-id-layers L      /grants/:id layer by layer, each layer taken out alone, with the
                        baselines, in the same interleaved rounds (--rounds): all, none (the
                        API, the baselines and --against builds only) or a comma list of
                        benchServer layer names
  --against DIR         (repeatable) also measure the API of another checkout's build
                        (DIR/dist/src/main.js, e.g. a worktree of an older commit) in those
                        rounds: an old-against-new comparison on one run
  --redis-url URL       Redis for the "limits on Redis" run (default redis://127.0.0.1:6379)
  --profile DIR         run the API under node --cpu-prof, profiles written to DIR
  --keep-temp           keep the temporary directory (catalog, databases, server logs)
  -h, --help            this help`;

interface Options {
  quick: boolean;
  grants: number;
  durationSeconds: number;
  connections: number;
  engine: 'sqlite' | 'elasticsearch';
  store: 'sqlite' | 'postgres';
  databaseUrl: string;
  out: string;
  seed: number;
  text: TextShape;
  dataDir: string | null;
  rounds: number;
  only: ClassName[];
  skipLayers: boolean;
  logLevel: string;
  /** --by-id-layers: what the layer-by-layer step takes out; null: no such step. */
  byIdLayers: ShareLayer[] | null;
  against: string[];
  redisUrl: string;
  elasticsearchUrl: string;
  profileDir: string | null;
  keepTemp: boolean;
}

class UsageError extends Error {}

function positiveInt(name: string, raw: string | undefined, fallback: number, max = 100_000_000): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    throw new UsageError(`--${name} must be an integer from 1 to ${max} (got "${raw}")`);
  return Number(raw);
}

function byIdLayersOf(spec: string): ShareLayer[] {
  try {
    return shareLayersOf(spec);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean', default: false },
      grants: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      engine: { type: 'string' },
      store: { type: 'string' },
      'database-url': { type: 'string' },
      out: { type: 'string' },
      seed: { type: 'string' },
      text: { type: 'string' },
      'data-dir': { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string' },
      'skip-layers': { type: 'boolean', default: false },
      'log-level': { type: 'string' },
      'by-id-layers': { type: 'string' },
      against: { type: 'string', multiple: true },
      'redis-url': { type: 'string' },
      profile: { type: 'string' },
      'keep-temp': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const engine = values.engine ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'elasticsearch')
    throw new UsageError(`--engine must be sqlite or elasticsearch (got "${engine}")`);
  const store = values.store ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres')
    throw new UsageError(`--store must be sqlite or postgres (got "${store}")`);
  const only = (values.only ?? CLASS_NAMES.join(','))
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  for (const name of only) {
    if (!(CLASS_NAMES as readonly string[]).includes(name))
      throw new UsageError(`--only takes ${CLASS_NAMES.join(', ')} (got "${name}")`);
  }
  const text = values.text ?? 'short';
  if (!(TEXT_SHAPES as readonly string[]).includes(text))
    throw new UsageError(`--text must be ${TEXT_SHAPES.join(' or ')} (got "${text}")`);
  if (values['data-dir'] !== undefined && engine !== 'sqlite')
    throw new UsageError('--data-dir keeps an embedded catalog: it needs --engine sqlite');
  const logLevel = values['log-level'] ?? PRODUCTION_LOG_LEVEL;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    quick: values.quick ?? false,
    grants: positiveInt('grants', values.grants, 10_000),
    durationSeconds: positiveInt('duration', values.duration, values.quick ? 3 : 10, 3600),
    connections: positiveInt('connections', values.connections, 10, 1000),
    engine,
    store,
    databaseUrl:
      values['database-url'] ?? process.env.DATABASE_URL?.trim() ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    out: path.resolve(values.out ?? path.join(REPO_ROOT, 'test/bench/results', `${stamp}.json`)),
    seed: values.seed === undefined ? 1 : positiveInt('seed', values.seed, 1, 0xffffffff),
    text: text as TextShape,
    dataDir: values['data-dir'] === undefined ? null : path.resolve(values['data-dir']),
    rounds: positiveInt('rounds', values.rounds, values.quick ? 1 : 3, 20),
    only: only as ClassName[],
    skipLayers: values['skip-layers'] ?? false,
    logLevel,
    byIdLayers: values['by-id-layers'] === undefined ? null : byIdLayersOf(values['by-id-layers']),
    against: (values.against ?? []).map((dir) => path.resolve(dir)),
    redisUrl: values['redis-url'] ?? 'redis://127.0.0.1:6379',
    elasticsearchUrl: (process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200').replace(/\/+$/, ''),
    profileDir: values.profile === undefined ? null : path.resolve(values.profile),
    keepTemp: values['keep-temp'] ?? false,
  };
}

/** Alternating rounds of the facet-cost comparison (odd, so that one order does not have the last word). */
const FACET_ROUNDS = 5;
/** Classes measured only against each other, in rounds (the highlights' cost), never on their own. */
const PAIRED_ONLY: readonly ClassName[] = ['plainPages', 'highlighted'];
const say = (line: string) => process.stderr.write(`» ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gitDescribe(): { commit: string; productChangesUncommitted: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, productChangesUncommitted: dirty };
  } catch {
    return { commit: 'unknown', productChangesUncommitted: false };
  }
}

async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1500,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--alerts')) return runAlertsBench(argv);
  if (argv.includes('--relevance')) return runRelevanceBench(argv);
  if (argv.includes('--imports')) return runImportsBench(argv);
  if (argv.includes('--modes')) return runModesBench(argv);
  let options: Options | null;
  try {
    options = parseOptions(argv);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (options === null) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const o = options;
  const started = Date.now();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'grants-bench-'));
  const logDir = path.join(tmp, 'logs');
  mkdirSync(logDir);
  const dataDir = o.dataDir ?? path.join(tmp, 'data');
  mkdirSync(dataDir, { recursive: true });
  const catalogFile = path.join(dataDir, 'catalog.sqlite');
  const alias = `bench-${randomBytes(5).toString('hex')}`;
  const redisPrefix = `bench:${randomBytes(5).toString('hex')}:`;
  const running: RunningProcess[] = [];
  let usedRedis = false;
  let indexedElasticsearch = false;
  const warmupSeconds = o.quick ? 1 : 3;

  const engineEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    SEARCH_ENGINE: o.engine,
    ELASTICSEARCH_URL: o.elasticsearchUrl,
    ELASTICSEARCH_INDEX: alias,
  };
  let benchDatabase: BenchDatabase | null = null;

  try {
    if (o.engine === 'elasticsearch') {
      const health = await fetch(`${o.elasticsearchUrl}/_cluster/health`, { signal: AbortSignal.timeout(5000) }).catch(
        () => null,
      );
      if (health === null || !health.ok) throw new Error(`Elasticsearch does not answer at ${o.elasticsearchUrl}`);
    }
    if (o.store === 'postgres') {
      benchDatabase = await createBenchDatabase(o.databaseUrl);
      engineEnv.DATABASE_URL = benchDatabase.url;
      say(`subscriptions store: PostgreSQL database ${benchDatabase.name}`);
    }
    // The Elasticsearch JVM, when it runs on this machine: its CPU per request beside the API's.
    const enginePid = o.engine === 'elasticsearch' ? (elasticsearchPid() ?? undefined) : undefined;
    if (o.engine === 'elasticsearch')
      say(
        enginePid === undefined
          ? 'no local Elasticsearch process: its CPU is not measured'
          : `Elasticsearch JVM: pid ${enginePid} (its CPU per request is measured)`,
      );
    const loadAverageStart = Math.round(os.loadavg()[0] * 100) / 100;
    const git = gitDescribe();

    // 1. Catalog: generate (streamed), index with the real indexer as a child process; or the
    // catalog a kept --data-dir holds already.
    let catalog: { bytes: number; seconds: number; sample: CatalogSample; grants: number };
    let indexer: IndexerRun | null = null;
    if (o.dataDir !== null && catalogBytes(catalogFile) > 0) {
      const kept = sampleIndexedCatalog(catalogFile, o.seed);
      if (kept.grants !== o.grants)
        throw new Error(`${catalogFile} holds ${kept.grants} grants, not --grants ${o.grants}`);
      catalog = { bytes: 0, seconds: 0, ...kept };
      say(`catalog kept in ${dataDir}: ${kept.grants.toLocaleString('en-US')} grants, not generated nor indexed again`);
    } else {
      say(`generating ${o.grants.toLocaleString('en-US')} grants (seed ${o.seed}, ${o.text} text)`);
      const generated = await writeCatalog(path.join(tmp, 'grants.ndjson'), o.grants, o.seed, o.text);
      catalog = generated;
      say(
        `  ${(generated.bytes / 1048576).toFixed(1)} MiB in ${generated.seconds.toFixed(1)} s; indexing ` +
          `with grants-indexer (${o.engine})`,
      );
      indexedElasticsearch = o.engine === 'elasticsearch';
      indexer = await runIndexer(generated.file, cleanEnv(engineEnv));
      if (indexer.exitCode !== 0) throw new Error(`grants-indexer exited ${indexer.exitCode}: ${indexer.output}`);
      say(
        `  ${indexer.indexed.toLocaleString('en-US')} in ${indexer.seconds.toFixed(1)} s = ` +
          `${Math.round(indexer.recordsPerSecond)} records/s, peak RSS ${indexer.peakRssMiB.toFixed(0)} MiB`,
      );
      rmSync(generated.file, { force: true });
    }
    const mix = buildMix(catalog.sample, o.grants, o.seed);

    // 2. The bench subscription, then the servers.
    const { apiKey } = await createBenchSubscription(cleanEnv(engineEnv));
    const auth = { Authorization: `Bearer ${apiKey}` };
    /** The production entry point, or with `without` the bench's own (the app less those layers). */
    const startApi = async (
      name: string,
      how: { env?: Record<string, string>; without?: readonly string[]; profile?: boolean; build?: string } = {},
    ): Promise<RunningProcess> => {
      const port = await freePort();
      const entry =
        how.build !== undefined
          ? [path.join(how.build, 'dist/src/main.js')]
          : how.without === undefined
            ? ['dist/src/main.js']
            : ['dist/test/bench/benchServer.js', `--without=${how.without.join(',')}`];
      const profiled = how.profile && o.profileDir !== null ? ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`] : [];
      // Every API (the layer servers and --against builds too) with production's V8 options.
      const args = [...API_NODE_OPTIONS, ...profiled, ...entry];
      const api = await startProcess({
        name,
        args,
        port,
        logDir,
        readyPath: '/readyz',
        env: cleanEnv({
          ...engineEnv,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: o.logLevel,
          SEED_CATALOG: 'false',
          ...how.env,
        }),
      });
      running.push(api);
      return api;
    };
    const startBaseline = async (kind: string): Promise<RunningProcess> => {
      const port = await freePort();
      const server = await startProcess({
        name: `baseline-${kind}`,
        args: ['dist/test/bench/baselines.js', kind],
        port,
        logDir,
        env: cleanEnv({ ...engineEnv, PORT: String(port) }),
      });
      running.push(server);
      return server;
    };
    if (o.profileDir !== null) mkdirSync(o.profileDir, { recursive: true });
    // Start-up: from the process's spawn to its first 200 on /readyz (the API answers searches).
    const spawned = process.hrtime.bigint();
    const api = await startApi('api', { profile: true });
    const startup = {
      readySeconds: Number(process.hrtime.bigint() - spawned) / 1e9,
      // CPU time the process spent getting ready: the steadier figure on a shared machine.
      cpuSecondsAtReady: processCpuSeconds(api.pid),
      rssMiBAtReady: (procMemory(api.pid)?.rssKiB ?? NaN) / 1024,
      catalogBytes: o.engine === 'sqlite' ? catalogBytes(catalogFile) : null,
    };
    say(
      `API ready in ${startup.readySeconds.toFixed(1)} s (${startup.cpuSecondsAtReady?.toFixed(1) ?? '?'} s ` +
        `of CPU), RSS ${startup.rssMiBAtReady.toFixed(0)} MiB` +
        (startup.catalogBytes === null ? '' : `, catalog file ${(startup.catalogBytes / 2 ** 20).toFixed(0)} MiB`),
    );
    const direct = await startBaseline(o.engine);
    const ceiling = await startBaseline('ceiling');

    // 3. Pre-flight: every distinct request once (all must succeed; empty deep pages are dropped).
    say('pre-flight: every distinct request of the classes checked once');
    // With --skip-layers only the classes measured (the search mix's four with it); else all of them.
    const checked: ClassName[] = o.skipLayers
      ? [...new Set(o.only.flatMap((name): ClassName[] => (name === 'searchMix' ? [...SEARCH_CLASSES, name] : [name])))]
      : [...CLASS_NAMES];
    const pre = await preflight(api.origin, apiKey, mix, checked);
    const droppedCount = Object.fromEntries(Object.entries(pre.dropped).map(([k, v]) => [k, v.length]));
    for (const [name, list] of Object.entries(pre.dropped)) {
      const failures = list.filter((d) => d.why !== 'page past the end');
      if (failures.length > 0)
        throw new Error(
          `pre-flight: ${failures.length} ${name} request(s) failed, e.g. ${failures[0].path}: ${failures[0].why}`,
        );
    }
    const mixSizes = Object.fromEntries(CLASS_NAMES.map((c) => [c, pre.kept[c].length]));

    const load = (server: RunningProcess, paths: string[], extra: Partial<LoadSettings> = {}): Promise<LoadResult> =>
      drive({
        origin: server.origin,
        paths,
        connections: o.connections,
        durationSeconds: o.durationSeconds,
        headers: auth,
        serverPid: server.pid,
        enginePid,
        settle: true,
        ...extra,
      });
    // Warm-up (JIT, caches) on what will be measured: the search mix and /grants/:id.
    const warmSearch = o.only.some((c) => c !== 'byId') || !o.skipLayers;
    const warmById = o.only.includes('byId') || !o.skipLayers;
    const warm = async (server: RunningProcess, headers: Record<string, string> = auth) => {
      if (warmSearch && pre.kept.searchMix.length > 0)
        await drive({
          origin: server.origin,
          paths: pre.kept.searchMix,
          connections: o.connections,
          durationSeconds: warmupSeconds,
          headers,
          serverPid: server.pid,
          enginePid,
          settle: true,
        });
      for (const name of ['suggest', 'similar'] as const) {
        if (!o.only.includes(name) || server !== api || pre.kept[name].length === 0) continue;
        await drive({
          origin: server.origin,
          paths: pre.kept[name],
          connections: o.connections,
          durationSeconds: warmupSeconds,
          headers,
          serverPid: server.pid,
          enginePid,
          settle: true,
        });
      }
      if (warmById)
        await drive({
          origin: server.origin,
          paths: pre.kept.byId,
          connections: o.connections,
          durationSeconds: Math.max(1, warmupSeconds / 2),
          headers,
          serverPid: server.pid,
          enginePid,
          settle: true,
        });
    };
    say(`warming up (${warmupSeconds} s per server)`);
    await warm(api);
    await warm(direct);
    await warm(ceiling, { ...auth, 'X-Bench-Bytes': String(pre.bodyBytes.searchMix) });

    // 4. Each class: the API, its direct-engine baseline, the ceiling with the same body size.
    const classes: ClassResult[] = [];
    const line = (what: string, r: LoadResult) =>
      say(
        `  ${what.padEnd(34)} ${String(Math.round(r.rps)).padStart(6)} req/s  p50 ` +
          `${r.latencyMs.p50.toFixed(2)}  p99 ${r.latencyMs.p99.toFixed(2)} ms  errors ${r.errors}  cpu ` +
          `${r.serverCpuUsPerRequest ?? '–'} ` +
          `µs/req${r.engineCpuUsPerRequest == null ? '' : `  es ${r.engineCpuUsPerRequest} µs/req`}  load ` +
          `${r.loadAverage}`,
      );
    let usageLogRows: number | null = null;
    for (const name of CLASS_NAMES) {
      if (!o.only.includes(name) || PAIRED_ONLY.includes(name)) continue;
      const paths = pre.kept[name];
      if (paths.length === 0) {
        say(`  ${name}: no request left after pre-flight; skipped`);
        continue;
      }
      if (name === 'usage' && benchDatabase !== null) {
        usageLogRows = await benchDatabase.count('usage_log');
      } else if (name === 'usage') {
        const db = new Database(path.join(dataDir, 'subscriptions.sqlite'), { readonly: true, fileMustExist: true });
        usageLogRows = db.prepare('SELECT count(*) FROM usage_log').pluck().get() as number;
        db.close();
      }
      const apiResult = await load(api, paths);
      line(`${name} API`, apiResult);
      let directResult: LoadResult | null = null;
      // The direct baselines answer GET /grants and /grants/:id alone.
      if (name !== 'usage' && name !== 'suggest' && name !== 'similar') {
        directResult = await load(direct, paths);
        line(`${name} direct ${o.engine}`, directResult);
      }
      const ceilingResult = await load(ceiling, paths, {
        headers: { ...auth, 'X-Bench-Bytes': String(pre.bodyBytes[name]) },
      });
      line(`${name} ceiling (${pre.bodyBytes[name]} B)`, ceilingResult);
      classes.push({
        name,
        label: CLASS_LABELS[name],
        distinctRequests: new Set(paths).size,
        bodyBytes: pre.bodyBytes[name],
        api: apiResult,
        direct: directResult,
        ceiling: ceilingResult,
      });
    }

    // Two classes measured in FACET_ROUNDS alternating rounds (each round's order reversed from the
    // last), so that drift of a shared machine falls on both; null unless both are run.
    const alternatingRounds = async <A extends ClassName, B extends ClassName>(a: A, b: B, cost: string) => {
      if (!o.only.includes(a) || !o.only.includes(b) || pre.kept[a].length === 0 || pre.kept[b].length === 0)
        return null;
      const rounds: Record<A | B, LoadResult>[] = [];
      const seconds = o.quick ? o.durationSeconds : Math.max(3, Math.round(o.durationSeconds / 2));
      for (let round = 0; round < FACET_ROUNDS; round++) {
        const measured: Partial<Record<A | B, LoadResult>> = {};
        for (const name of round % 2 === 0 ? [a, b] : [b, a]) {
          const result = await load(api, pre.kept[name], { durationSeconds: seconds });
          measured[name] = result;
          line(`${name} API (${cost} cost, round ${round + 1})`, result);
        }
        rounds.push({ [a]: measured[a]!, [b]: measured[b]! } as Record<A | B, LoadResult>);
      }
      return { rounds };
    };
    // What facets cost: the search mix without facets and with three.
    const facetCost: BenchResults['facetCost'] = await alternatingRounds('noFacets', 'facets', 'facet');
    // What highlights cost: the same searches as pages of 20 without and with highlights.
    const highlightCost: BenchResults['highlightCost'] = await alternatingRounds(
      'plainPages',
      'highlighted',
      'highlight',
    );

    // Each search class's latency without queueing (the 1,000,000-grant targets).
    const singleConnection: BenchResults['singleConnection'] = {};
    for (const name of SEARCH_CLASSES) {
      if (!o.only.includes(name) || pre.kept[name].length === 0) continue;
      const result = await load(api, pre.kept[name], { connections: 1 });
      singleConnection[name] = result;
      line(`${name} API, 1 connection`, result);
    }
    // The evenly paced runs: `paths` sent to `server` at `rate` req/s for at least 5 seconds.
    const pacedSeconds = Math.max(o.durationSeconds, 5);
    const pacedRun = (server: RunningProcess, paths: string[], rate: number) =>
      drivePaced({
        origin: server.origin,
        paths,
        rate,
        durationSeconds: pacedSeconds,
        headers: auth,
        serverPid: server.pid,
        enginePid,
      });
    // One class through the API alone, evenly paced at `rate` req/s; null when the class is not run.
    const apiFixedRate = async (name: 'suggest' | 'similar', rate: number) => {
      if (!o.only.includes(name) || pre.kept[name].length === 0) return null;
      const result = await pacedRun(api, pre.kept[name], rate);
      line(`${name} API paced ${rate} req/s`, result);
      return { rate, api: result };
    };
    let fixedRate: BenchResults['fixedRate'] = null;
    let fixedRateSkipped: string | null = null;
    const saturated = classes.find((c) => c.name === 'searchMix')?.api.rps ?? Infinity;
    if (o.only.includes('searchMix') && saturated < 200) {
      // An open-loop 200 req/s on a server that saturates below it only builds a queue.
      fixedRateSkipped = `not run: the search mix saturates at ${Math.round(saturated)} req/s, below 200`;
      say(`fixed rate: ${fixedRateSkipped}`);
    } else if (o.only.includes('searchMix')) {
      const rate = 200;
      const paced = (server: RunningProcess) => pacedRun(server, pre.kept.searchMix, rate);
      const pacedApi = await paced(api);
      line(`searchMix API paced ${rate} req/s`, pacedApi);
      const pacedDirect = await paced(direct);
      line(`searchMix direct paced ${rate} req/s`, pacedDirect);
      const burstApi = await load(api, pre.kept.searchMix, { overallRate: rate, durationSeconds: pacedSeconds });
      line(`searchMix API overallRate ${rate}`, burstApi);
      const burstDirect = await load(direct, pre.kept.searchMix, { overallRate: rate, durationSeconds: pacedSeconds });
      line(`searchMix direct overallRate ${rate}`, burstDirect);
      fixedRate = { rate, api: pacedApi, direct: pacedDirect, autocannonApi: burstApi, autocannonDirect: burstDirect };
    }
    // Search as you type at 200 req/s evenly paced: its p99 target.
    const suggestFixedRate: BenchResults['suggestFixedRate'] = await apiFixedRate('suggest', 200);
    // Similar grants at 50 req/s evenly paced: its p99 target.
    const similarFixedRate: BenchResults['similarFixedRate'] = await apiFixedRate('similar', 50);
    const apiMemory = procMemory(api.pid);
    await api.stop();

    // 5. The cost of each layer: one API per configuration (all of them through the bench's entry
    // point, so they differ only in the layers taken out), measured in interleaved rounds.
    const layers: LayerConfigResult[] = [];
    const layerCosts: BenchResults['layerCosts'] = {};
    if (!o.skipLayers) {
      const configs: { name: string; without: string[]; env: Record<string, string> }[] = [
        { name: 'all on', without: [], env: {} },
        { name: 'auth off', without: ['auth'], env: {} },
        { name: 'limits off', without: ['limits'], env: {} },
        { name: 'usage off', without: ['usage'], env: {} },
        { name: 'all three off', without: ['auth', 'limits', 'usage'], env: {} },
      ];
      if (await redisReachable(o.redisUrl)) {
        configs.push({
          name: 'all on, limits on Redis',
          without: [],
          env: { REDIS_URL: o.redisUrl, REDIS_KEY_PREFIX: redisPrefix },
        });
        usedRedis = true;
      } else {
        say(`Redis does not answer at ${o.redisUrl}: the "limits on Redis" run is skipped`);
      }
      const layerClasses = (['byId', 'searchMix'] as const).filter((c) => pre.kept[c].length > 0);
      const servers: RunningProcess[] = [];
      for (const config of configs) servers.push(await startApi(`api-${config.name.replace(/[^a-z]+/g, '-')}`, config));
      const layerSeconds = o.quick ? o.durationSeconds : Math.max(3, Math.round(o.durationSeconds / 2));
      say(
        `layers: ${configs.length} configurations × ${layerClasses.join(', ')} × ${o.rounds} round(s) of ` +
          `${layerSeconds} s`,
      );
      for (const server of servers) await warm(server);
      const runs = configs.map(() => Object.fromEntries(layerClasses.map((c) => [c, [] as LoadResult[]])));
      for (let round = 0; round < o.rounds; round++) {
        for (let i = 0; i < configs.length; i++) {
          for (const c of layerClasses) {
            const r = await load(servers[i], pre.kept[c], { durationSeconds: layerSeconds });
            runs[i][c].push(r);
            line(`${configs[i].name} ${c} (round ${round + 1})`, r);
          }
        }
      }
      for (let i = 0; i < configs.length; i++) {
        let readiness: unknown;
        try {
          readiness = await (await fetch(`${servers[i].origin}/readyz`)).json();
        } catch {
          readiness = null;
        }
        layers.push({
          name: configs[i].name,
          without: configs[i].without,
          env: configs[i].env,
          runs: runs[i],
          median: Object.fromEntries(layerClasses.map((c) => [c, medianOf(runs[i][c])])),
          readiness,
        });
        await servers[i].stop();
      }
      for (const layer of layers) {
        layerCosts[layer.name] = Object.fromEntries(
          layerClasses.map((c) => [c, Math.round((layer.median[c].rps / layers[0].median[c].rps) * 1000) / 1000]),
        );
      }
    }

    // 6. /grants/:id layer by layer, with the baselines (still running) and other builds.
    let byIdLayerShares: LayerShares | null = null;
    if (o.byIdLayers !== null && pre.kept.byId.length > 0) {
      const configs = shareConfigs(o.byIdLayers, o.against, o.logLevel);
      const seconds = o.quick ? o.durationSeconds : Math.max(3, Math.round(o.durationSeconds / 2));
      const servers: RunningProcess[] = [];
      for (const [i, config] of configs.entries()) {
        if (config.kind === 'direct') servers.push(direct);
        else if (config.kind === 'ceiling') servers.push(ceiling);
        else if (config.kind === 'api')
          servers.push(
            await startApi(`share-${i}`, {
              without: [],
              ...(config.logLevel === undefined ? {} : { env: { LOG_LEVEL: config.logLevel } }),
            }),
          );
        else
          servers.push(
            await startApi(
              `share-${i}`,
              config.kind === 'against' ? { build: config.build } : { without: config.without },
            ),
          );
      }
      say(`/grants/:id layer by layer: ${configs.length} servers × ${o.rounds} round(s) of ${seconds} s`);
      const ceilingHeaders = { ...auth, 'X-Bench-Bytes': String(pre.bodyBytes.byId) };
      const headersOf = (config: ShareConfig) => (config.kind === 'ceiling' ? ceilingHeaders : auth);
      for (const [i, server] of servers.entries()) {
        await drive({
          origin: server.origin,
          paths: pre.kept.byId,
          connections: o.connections,
          durationSeconds: Math.max(1, warmupSeconds),
          headers: headersOf(configs[i]),
        });
      }
      const runs = await measureShares(configs, o.rounds, async (config, i, round) => {
        const r = await load(servers[i], pre.kept.byId, { durationSeconds: seconds, headers: headersOf(config) });
        line(`${config.name} (round ${round + 1})`.slice(0, 60), r);
        return r;
      });
      byIdLayerShares = {
        rounds: o.rounds,
        seconds,
        logLevel: o.logLevel,
        configs: configs.map((config, i) => ({ ...config, runs: runs[i], median: medianOf(runs[i]) })),
      };
      for (const [i, server] of servers.entries())
        if (configs[i].kind !== 'direct' && configs[i].kind !== 'ceiling') await server.stop();
    }

    const results: BenchResults = {
      meta: {
        date: new Date().toISOString(),
        command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
        engine: o.engine,
        store: o.store,
        grants: o.grants,
        seed: o.seed,
        text: o.text,
        quick: o.quick,
        durationSeconds: o.durationSeconds,
        warmupSeconds,
        connections: o.connections,
        layerRounds: o.skipLayers ? 0 : o.rounds,
        apiLogLevel: o.logLevel,
        apiCommand: 'node dist/src/main.js',
        layersCommand: 'node dist/test/bench/benchServer.js --without=<layers>',
        node: process.version,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
        loadAverageStart,
        loadAverageEnd: Math.round(os.loadavg()[0] * 100) / 100,
        git,
        elapsedSeconds: Math.round((Date.now() - started) / 1000),
        latencyNote:
          'per response, send to last byte, recorded by the bench from autocannon response events (not corrected ' +
          'for coordinated omission)',
      },
      catalog: {
        grants: o.grants,
        fileBytes: catalog.bytes,
        generateSeconds: catalog.seconds,
        indexer,
        mixSizes,
        preflight: { dropped: droppedCount, bodyBytes: pre.bodyBytes },
      },
      classes,
      singleConnection,
      facetCost,
      highlightCost,
      fixedRate,
      fixedRateSkipped,
      suggestFixedRate,
      similarFixedRate,
      layers,
      layerCosts,
      byIdLayerShares,
      apiPeakRssMiB: apiMemory === null ? null : apiMemory.hwmKiB / 1024,
      startup,
      usageLogRows,
      targets: [],
    };
    results.targets = evaluateTargets(results, o.engine, o.grants);
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(
      `\n${formatReport(results)}\n\nresults: ${path.relative(process.cwd(), o.out)} ` +
        `(${results.meta.elapsedSeconds} s)\n`,
    );
    if (o.profileDir !== null) process.stdout.write(`CPU profiles of the API: ${o.profileDir}\n`);
    return 0;
  } finally {
    await Promise.allSettled(running.map((p) => p.stop()));
    if (usedRedis) {
      try {
        await deleteRedisKeys(o.redisUrl, redisPrefix);
      } catch (error) {
        say(`could not delete Redis keys ${redisPrefix}*: ${(error as Error).message}`);
      }
    }
    if (indexedElasticsearch) {
      const client = new Client({ node: o.elasticsearchUrl, requestTimeout: 30_000 });
      try {
        await dropCatalogIndexes(client, alias);
      } catch (error) {
        say(`could not delete Elasticsearch indexes ${alias}-*: ${(error as Error).message}`);
      } finally {
        await client.close();
      }
    }
    if (benchDatabase !== null) {
      try {
        await benchDatabase.drop();
      } catch (error) {
        say(`could not drop the PostgreSQL database ${benchDatabase.name}: ${(error as Error).message}`);
      }
    }
    if (o.dataDir !== null) say(`data directory kept: ${o.dataDir}`);
    if (o.keepTemp) say(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
    await sleep(0);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
