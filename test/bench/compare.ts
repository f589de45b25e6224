// npm run bench:compare -- --base <ref> [--head <ref>] [options]: two builds of the API side by side
// in one run — the base ref built in a temporary git worktree, the head (default: this working
// tree) — on one generated catalog indexed by the real indexer, each build's API its own process,
// measured per search class in alternating rounds (old new, new old, …): per class req/s and
// server CPU µs per request for each build and the ratio new/old, as a table (markdown too) and JSON.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT, storedCatalogs, type CatalogTarget } from './catalog.js';
import { buildRef, catalogFormatChanges, commitOf, workingTree, type Build } from './builds.js';
import { formatCompare, type CompareResults, type CompareRound } from './compareReport.js';
import { drive, type LoadResult } from './load.js';
import { buildMix, CLASS_LABELS, SEARCH_CLASSES, type ClassName } from './mix.js';
import { preflight } from './preflight.js';
import { cleanEnv, createBenchSubscription, freePort, startProcess, type RunningProcess } from './processes.js';

/** The classes a comparison measures: the search classes, the mix with and without facets, /grants/:id. */
const COMPARED_CLASSES = [
  'text',
  'filters',
  'combined',
  'deep',
  'searchMix',
  'noFacets',
  'facets',
  'byId',
] as const satisfies readonly ClassName[];

const HELP = `Usage: npm run bench:compare -- --base <git ref> [options]

Builds the base ref in a temporary git worktree (node_modules linked to this checkout's) and
sets it beside the head (default: this working tree, as npm run bench:compare has just built
it). Generates one catalog (fixture generator, --seed) and indexes it with the real indexer:
one catalog both builds read when the catalog's format files are the same in both (else one per
build, each indexed by its own indexer, from the same generated grants). Catalogs indexed by a
commit are kept in .cache/ and reused. Starts each build's API (node dist/src/main.js,
LOG_LEVEL=warn) on its own DATA_DIR, sends every distinct request to both (their answers
compared byte for byte), warms both up, then measures each class in alternating rounds: in each
round both builds back to back, the first alternating from round to round (old new, new old, …).
Prints per class each build's req/s and server CPU µs per request (medians) and the medians of
the rounds' new/old ratios, as a table and as markdown, and writes everything as JSON.

Options:
  --base REF            the old build (required): a branch, tag or commit
  --head REF            the new build (default: this working tree)
  --grants N            catalog size (default 10000)
  --seed S              generator and mix seed (default 1)
  --rounds R            alternating rounds (default 4)
  --duration S          seconds per measured run (default 5)
  --connections C       autocannon connections (default 10)
  --only CLASSES        comma list (default ${COMPARED_CLASSES.join(',')})
  --catalog WHICH       auto (default), shared (one catalog, indexed by the base's indexer) or
                        each (one per build, each by its own indexer)
  --out FILE            JSON results (default test/bench/results/compare-<timestamp>.json)
  --keep-temp           keep the temporary directory (worktrees, data, server logs)
  -h, --help            this help

Run it niced on a shared machine (nice -n 10 npm run bench:compare -- …): every process it
starts inherits the niceness, and both builds run under the same conditions.`;

interface Options {
  base: string;
  head: string | null;
  grants: number;
  seed: number;
  rounds: number;
  durationSeconds: number;
  connections: number;
  only: ClassName[];
  catalog: 'auto' | 'shared' | 'each';
  out: string;
  keepTemp: boolean;
}

class UsageError extends Error {}

function positiveInt(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    throw new UsageError(`--${name} must be an integer from 1 to ${max} (got "${raw}")`);
  return Number(raw);
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      grants: { type: 'string' },
      seed: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      catalog: { type: 'string' },
      out: { type: 'string' },
      'keep-temp': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  if (values.base === undefined) throw new UsageError('--base is required');
  const only = (values.only ?? COMPARED_CLASSES.join(','))
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  for (const name of only) {
    if (!(COMPARED_CLASSES as readonly string[]).includes(name))
      throw new UsageError(`--only takes ${COMPARED_CLASSES.join(', ')} (got "${name}")`);
  }
  const catalog = values.catalog ?? 'auto';
  if (catalog !== 'auto' && catalog !== 'shared' && catalog !== 'each')
    throw new UsageError(`--catalog must be auto, shared or each (got "${catalog}")`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    base: values.base,
    head: values.head ?? null,
    grants: positiveInt('grants', values.grants, 10_000, 100_000_000),
    seed: positiveInt('seed', values.seed, 1, 0xffffffff),
    rounds: positiveInt('rounds', values.rounds, 4, 50),
    durationSeconds: positiveInt('duration', values.duration, 5, 3600),
    connections: positiveInt('connections', values.connections, 10, 1000),
    only: COMPARED_CLASSES.filter((c) => only.includes(c)),
    catalog,
    out: path.resolve(values.out ?? path.join(REPO_ROOT, 'test/bench/results', `compare-${stamp}.json`)),
    keepTemp: values['keep-temp'] ?? false,
  };
}

const say = (line: string) => process.stderr.write(`» ${line}\n`);
const loadAverage = () => Math.round(os.loadavg()[0] * 100) / 100;

/**
 * Where the catalog a build's indexer builds lives: kept in .cache/ when a commit made it, else in the run's temporary
 * directory.
 */
function catalogTarget(build: Build, o: Options, tmp: string, name: string): CatalogTarget {
  const dataDir = build.uncommitted
    ? path.join(tmp, `catalog-${name}`)
    : path.join(REPO_ROOT, '.cache', `bench-catalog-${o.grants}-seed${o.seed}-${build.commit.slice(0, 12)}`);
  return { dataDir, indexerRoot: build.root };
}

/** One build's API: its own DATA_DIR (subscriptions, usage) whose catalog.sqlite links to the catalog it reads. */
async function startApi(
  build: Build,
  name: string,
  catalogDir: string,
  tmp: string,
): Promise<{ api: RunningProcess; apiKey: string }> {
  const dataDir = path.join(tmp, `data-${name}`);
  mkdirSync(dataDir, { recursive: true });
  // SQLite follows the link, so the catalog's WAL and shared-memory files are the catalog's own.
  symlinkSync(path.join(catalogDir, 'catalog.sqlite'), path.join(dataDir, 'catalog.sqlite'));
  const env = { DATA_DIR: dataDir, SEARCH_ENGINE: 'sqlite' };
  const { apiKey } = await createBenchSubscription(cleanEnv(env), build.root);
  const port = await freePort();
  const api = await startProcess({
    name: `api-${name}`,
    args: ['dist/src/main.js'],
    cwd: build.root,
    port,
    logDir: tmp,
    readyPath: '/readyz',
    // At 1,000,000 grants an API reads its index for minutes before it is ready on a loaded machine.
    readyTimeoutMs: 1_800_000,
    env: cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SEED_CATALOG: 'false' }),
  });
  return { api, apiKey };
}

async function main(argv: string[]): Promise<number> {
  let o: Options | null;
  try {
    o = parseOptions(argv);
  } catch (error) {
    process.stderr.write(`bench:compare: ${(error as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (o === null) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const started = Date.now();
  const loadAverageStart = loadAverage();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'grants-bench-compare-'));
  const builds: Build[] = [];
  const running: RunningProcess[] = [];
  const buildLog = (text: string) => writeFileSync(path.join(tmp, 'builds.log'), text, { flag: 'a' });
  try {
    // 1. The builds.
    say(`building ${o.base} in a temporary worktree`);
    const old = buildRef(o.base, path.join(tmp, 'old'), buildLog);
    builds.push(old);
    let head: Build;
    if (o.head === null) head = workingTree();
    else if (commitOf(o.head) === old.commit)
      head = old; // the same build twice: the method's noise floor
    else {
      say(`building ${o.head} in a temporary worktree`);
      head = buildRef(o.head, path.join(tmp, 'new'), buildLog);
      builds.push(head);
    }

    // 2. The catalog: one both read when its format is the same in both builds, else one each.
    const changes = head === old ? [] : catalogFormatChanges(old, head);
    const shared = head === old || o.catalog === 'shared' || (o.catalog === 'auto' && changes.length === 0);
    if (!shared)
      say(
        `one catalog per build ` +
          `(${changes.length > 0 ? `format files differ: ${changes.join(', ')}` : '--catalog each'})`,
      );
    else
      say(
        `one catalog for both builds (` +
          (changes.length > 0
            ? `--catalog shared, though format files differ: ${changes.join(', ')}`
            : 'its format files are the same in both') +
          ')',
      );
    const targets = shared
      ? [catalogTarget(old, o, tmp, 'old')]
      : [catalogTarget(old, o, tmp, 'old'), catalogTarget(head, o, tmp, 'new')];
    const indexerEnv = (dataDir: string) => cleanEnv({ DATA_DIR: dataDir, SEARCH_ENGINE: 'sqlite', LOG_LEVEL: 'warn' });
    const catalogs = await storedCatalogs(o.grants, o.seed, targets, indexerEnv, say);
    const oldCatalog = catalogs[0];
    const newCatalog = catalogs[shared ? 0 : 1];
    const mix = buildMix(oldCatalog.sample, o.grants, o.seed);

    // 3. Both APIs, then every distinct request to both; a request either build fails is an error.
    // One after the other: each reads its index with the machine to itself.
    say("starting the old build's API");
    const a = await startApi(old, 'old', oldCatalog.dataDir, tmp);
    running.push(a.api);
    say("starting the new build's API");
    const b = await startApi(head, 'new', newCatalog.dataDir, tmp);
    running.push(b.api);
    const checked: ClassName[] = o.only.includes('searchMix')
      ? [...new Set<ClassName>([...o.only, ...SEARCH_CLASSES])]
      : o.only;
    say('pre-flight: every distinct request once to each build');
    const preOld = await preflight(a.api.origin, a.apiKey, mix, checked);
    const preNew = await preflight(b.api.origin, b.apiKey, mix, checked);
    for (const [build, pre] of [
      ['old', preOld],
      ['new', preNew],
    ] as const) {
      for (const [name, list] of Object.entries(pre.dropped)) {
        const failures = list.filter((d) => d.why !== 'page past the end');
        if (failures.length > 0)
          throw new Error(
            `pre-flight (${build}): ${failures.length} ${name} request(s) failed, e.g. ${failures[0].path}: ` +
              `${failures[0].why}`,
          );
      }
    }
    const differing = [...preOld.pathDigests]
      .filter(([p, digest]) => preNew.pathDigests.has(p) && preNew.pathDigests.get(p) !== digest)
      .map(([p]) => p);
    const compared = [...preOld.pathDigests.keys()].filter((p) => preNew.pathDigests.has(p)).length;
    say(
      `answers compared: ${compared}, bodies differing: ` +
        `${differing.length}${differing.length > 0 ? ` (e.g. ${differing[0]})` : ''}`,
    );
    /** A class's paths that both builds answered (deep pages past the end of either are dropped). */
    const pathsOf = (name: ClassName) => {
      const answeredByNew = new Set(preNew.kept[name]);
      return preOld.kept[name].filter((p) => answeredByNew.has(p));
    };

    // 4. Warm-up, then the alternating rounds.
    const servers = { old: a, new: b };
    const load = (build: 'old' | 'new', paths: string[], seconds = o.durationSeconds): Promise<LoadResult> =>
      drive({
        origin: servers[build].api.origin,
        paths,
        connections: o.connections,
        durationSeconds: seconds,
        headers: { Authorization: `Bearer ${servers[build].apiKey}` },
        serverPid: servers[build].api.pid,
        settle: true,
      });
    say('warming up (3 s of the search mix, 2 s of /grants/:id, each build)');
    for (const build of ['old', 'new'] as const) {
      await load(build, pathsOf('searchMix').length > 0 ? pathsOf('searchMix') : pathsOf(o.only[0]), 3);
      if (o.only.includes('byId')) await load(build, pathsOf('byId'), 2);
    }
    const classes: CompareResults['classes'] = o.only.map((name) => ({
      name,
      label: CLASS_LABELS[name],
      rounds: [] as CompareRound[],
    }));
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const c of classes) {
        const paths = pathsOf(c.name);
        if (paths.length === 0) throw new Error(`${c.name}: no request left after the pre-flight`);
        const measured: Partial<Record<'old' | 'new', LoadResult>> = {};
        for (const build of order) {
          const r = await load(build, paths);
          measured[build] = r;
          say(
            `round ${round + 1} ${c.name.padEnd(9)} ${build}: ${String(Math.round(r.rps)).padStart(6)} ` +
              `req/s  cpu ${r.serverCpuUsPerRequest ?? '–'} µs/req  errors ${r.errors}  load ${r.loadAverage}`,
          );
        }
        c.rounds.push({ first: order[0], old: measured.old!, new: measured.new! });
      }
    }

    const results: CompareResults = {
      meta: {
        date: new Date().toISOString(),
        command: `npm run bench:compare -- ${argv.join(' ')}`,
        grants: o.grants,
        seed: o.seed,
        rounds: o.rounds,
        durationSeconds: o.durationSeconds,
        connections: o.connections,
        catalog: shared ? 'one shared' : 'one per build',
        catalogFormatChanges: changes,
        apiCommand: 'node dist/src/main.js (LOG_LEVEL=warn, SEARCH_ENGINE=sqlite)',
        node: process.version,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        loadAverageStart,
        loadAverageEnd: loadAverage(),
        elapsedSeconds: Math.round((Date.now() - started) / 1000),
      },
      builds: {
        old: { label: old.label, commit: old.commit, uncommitted: old.uncommitted },
        new: { label: head.label, commit: head.commit, uncommitted: head.uncommitted },
      },
      answers: { compared, differing },
      classes,
    };
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(
      `\n${formatCompare(results)}\n\n${formatCompare(results, 'markdown')}\n\nresults: ` +
        `${path.relative(process.cwd(), o.out)} (${results.meta.elapsedSeconds} s)\n`,
    );
    return 0;
  } finally {
    await Promise.allSettled(running.map((p) => p.stop()));
    for (const build of builds) build.remove();
    if (o.keepTemp) say(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `bench:compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
