// `npm run bench -- --alerts N`: what alerts cost and how fast they tell. A generated catalog
// indexed by the real indexer, the API as in production (its alerts worker on), N alerts of
// varied queries (words of real titles and filters of real grants) over ENTERPRISE subscriptions
// of 1,000 alerts each, all calling a local receiver (a child process that answers 200). Then:
//
// 1. a quiet round: a `grants-indexer sync` changing C grants; from the sync's end to each
//    webhook received (p50, p99, last), deliveries per second, matching cost per change and per
//    change × alert (the matcher's own counters on /metrics);
// 2. loaded rounds: the search mix, then /grants/:id, driven by autocannon while a sync of C
//    other grants is matched and delivered; throughput counted over the active period (from the
//    sync's start to the last webhook);
// 3. the same rounds on the API restarted with ALERTS_WORKER=false (nothing matches or delivers),
//    throughput over a period of the same length from the sync's start: the ratio is the target.
//
// With --store postgres and --instances 2, two API processes share a PostgreSQL database (one
// matches, both deliver) and the load is split between them.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { generateGrants, Random } from '../../fixtures/generate.js';
import type { Grant } from '../../src/grants/schema.js';
import { REPO_ROOT, runIndexer, writeCatalog } from './catalog.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import { processCpuSeconds } from './load.js';
import { buildMix } from './mix.js';
import { cleanEnv, createBenchSubscription, freePort, runCli, startProcess, type RunningProcess } from './processes.js';

export const ALERTS_HELP =
  `Usage: npm run bench -- --alerts N [options]

The alerts bench: N alerts (default 10000) over a generated catalog, a sync changing C grants
matched and delivered to a local receiver; latency from the sync's end to each webhook,
deliveries per second, matching cost, and the search mix and /grants/:id throughput while alerts
match and deliver against the same rounds with the alerts worker off.

Options:
  --alerts N        alerts (default 10000), over ENTERPRISE subscriptions of 1,000 each
  --grants N        catalog size (default 100000)
  --changes C       grants changed by each sync (default 1000)
  --engine E        sqlite (default) or elasticsearch (ELASTICSEARCH_URL)
  --store S         sqlite (default) or postgres (a bench database on --database-url)
  --instances I     API processes (default 1; with --store postgres, e.g. 2)
  --connections C   autocannon connections (default 10)
  --seed S          generator seed (default 1)
  --quick           10,000 grants, 1,000 alerts, 200 changes
  --out FILE        JSON results (default test/bench/results/alerts-<timestamp>.json)
  --keep-temp       keep the temporary directory (logs) and the PostgreSQL database
  --quiet-only      the quiet round only (with --profile: what matching and delivering cost)
  --profile DIR     CPU profiles of the API processes with alerts on ` +
  '(node dist/test/bench/profile.js DIR/*.cpuprofile)';

interface Options {
  alerts: number;
  grants: number;
  changes: number;
  engine: 'sqlite' | 'elasticsearch';
  store: 'sqlite' | 'postgres';
  instances: number;
  connections: number;
  seed: number;
  out: string;
  keepTemp: boolean;
  /** A directory for the alerts-on API processes' CPU profiles (--cpu-prof). */
  profileDir: string | null;
  /** The quiet round only (for profiling). */
  quietOnly: boolean;
  databaseUrl: string;
  elasticsearchUrl: string;
}

const say = (line: string) => process.stderr.write(`» ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      alerts: { type: 'string' },
      grants: { type: 'string' },
      changes: { type: 'string' },
      engine: { type: 'string' },
      store: { type: 'string' },
      instances: { type: 'string' },
      connections: { type: 'string' },
      seed: { type: 'string' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      'keep-temp': { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      profile: { type: 'string' },
      'quiet-only': { type: 'boolean', default: false },
    },
  });
  const int = (name: string, value: string | undefined, fallback: number, max = 10_000_000): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new Error(`--${name} must be an integer from 1 to ${max} (got "${value}")`);
    return n;
  };
  const engine = values.engine ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'elasticsearch')
    throw new Error(`--engine must be sqlite or elasticsearch (got "${engine}")`);
  const store = values.store ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres')
    throw new Error(`--store must be sqlite or postgres (got "${store}")`);
  const instances = int('instances', values.instances, 1, 4);
  if (instances > 1 && store !== 'postgres')
    throw new Error('--instances above 1 needs --store postgres (instances share their store)');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    alerts: int('alerts', values.alerts, values.quick ? 1000 : 10_000, 100_000),
    grants: int('grants', values.grants, values.quick ? 10_000 : 100_000),
    changes: int('changes', values.changes, values.quick ? 200 : 1000, 100_000),
    engine,
    store,
    instances,
    connections: int('connections', values.connections, 10, 1000),
    seed: int('seed', values.seed, 1, 0xffffffff),
    out: path.resolve(values.out ?? path.join(REPO_ROOT, 'test/bench/results', `alerts-${stamp}.json`)),
    keepTemp: values['keep-temp'] ?? false,
    quietOnly: values['quiet-only'] ?? false,
    profileDir: values.profile === undefined ? null : path.resolve(values.profile),
    databaseUrl:
      values['database-url'] ?? process.env.DATABASE_URL?.trim() ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    elasticsearchUrl: (process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200').replace(/\/+$/, ''),
  };
}

// ---- The alerts' queries and the syncs' changes, drawn from the catalog itself ----

const titleWords = (title: string): string[] =>
  (title.match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'-]*/gu) ?? []).filter((w) => w.length >= 4);

/**
 * Roughly whether a grant holds an alert query's words and filters (to shape the bench's alerts only; the API decides).
 */
const lowerText = new WeakMap<Grant, string>();
function roughlyMatches(grant: Grant, query: Record<string, unknown>, now: number): boolean {
  let text = lowerText.get(grant);
  if (text === undefined)
    lowerText.set(grant, (text = `${grant.title} ${grant.funder} ${grant.description ?? ''}`.toLowerCase()));
  if (
    typeof query.search === 'string' &&
    !query.search
      .toLowerCase()
      .split(' ')
      .every((w) => text.includes(w))
  )
    return false;
  const holds = (name: string, held: readonly string[] | string | null) => {
    const wanted = query[name] as string[] | undefined;
    return (
      wanted === undefined ||
      (held !== null && wanted.some((v) => (typeof held === 'string' ? held === v : held.includes(v))))
    );
  };
  if (
    !holds('fundingType', grant.fundingType) ||
    !holds('funderType', grant.funderType) ||
    !holds('eligibleProvinces', grant.eligibleProvinces)
  )
    return false;
  if (!holds('targetBeneficiaries', grant.targetBeneficiaries) || !holds('sdgAlignment', grant.sdgAlignment))
    return false;
  if (query.open === true && grant.deadline !== null && Date.parse(grant.deadline) < now) return false;
  if (typeof query.amountMin === 'number' && (grant.amountMax ?? grant.amountMin ?? -1) < query.amountMin) return false;
  return true;
}

/** Saved searches are specific: a query is narrowed until about this share of the catalog at most matches it. */
export const ALERT_BREADTH = 0.001;

/**
 * A saved search a partner could make, seeded by one grant (so it matches at least that one), in
 * the shape of the guide's example ("clean energy" for small businesses in Ontario, open): the
 * rarest words of its title with two of its filters, open=true for half of them (80 %), four of
 * its filters with open=true (10 %), or its rarest word with an amount floor and two filters
 * (10 %); then narrowed, a word or a filter at a time, while more than ALERT_BREADTH of `sample`
 * (a uniform sample of the catalog) matches it. `share(word)`: the part of the catalog holding it.
 */
export function alertQueryFor(
  grant: Grant,
  rng: Random,
  share: (word: string) => number,
  sample: readonly Grant[],
  now: number,
): Record<string, unknown> {
  const words = [...new Set(titleWords(grant.title))].sort((a, b) => share(a.toLowerCase()) - share(b.toLowerCase()));
  const pick = <T>(items: readonly T[]): T => items[rng.int(items.length)];
  const filters: Record<string, unknown>[] = [{ fundingType: [grant.fundingType] }, { funderType: [grant.funderType] }];
  if (grant.eligibleProvinces.length > 0) filters.push({ eligibleProvinces: [pick(grant.eligibleProvinces)] });
  if (grant.targetBeneficiaries.length > 0) filters.push({ targetBeneficiaries: [pick(grant.targetBeneficiaries)] });
  if (grant.sdgAlignment.length > 0) filters.push({ sdgAlignment: [pick(grant.sdgAlignment)] });
  const unused = [...filters].sort(() => rng.int(3) - 1);
  const roll = rng.int(100);
  let wordCount = 0;
  let query: Record<string, unknown>;
  if (roll < 80 && words.length > 0) {
    wordCount = Math.min(2, words.length);
    query = Object.assign({ ...(rng.int(2) === 0 ? { open: true } : {}) }, ...unused.splice(0, 2));
  } else if (roll < 90 || words.length === 0) query = Object.assign({ open: true }, ...unused.splice(0, 4));
  else {
    wordCount = 1;
    query = Object.assign(
      { amountMin: grant.amountMax === null ? 10_000 : Math.max(1, Math.round(grant.amountMax / 2)) },
      ...unused.splice(0, 2),
    );
  }
  const withWords = () => (wordCount === 0 ? query : { search: words.slice(0, wordCount).join(' '), ...query });
  while (sample.filter((g) => roughlyMatches(g, withWords(), now)).length > ALERT_BREADTH * sample.length) {
    if (wordCount < Math.min(3, words.length)) wordCount += 1;
    else if (unused.length > 0) Object.assign(query, unused.shift());
    else break;
  }
  return withWords();
}

/**
 * The grant as a sync would bring it changed: a new updatedAt and one of a longer description, a larger amount or a
 * later deadline.
 */
export function changedGrant(grant: Grant, rng: Random, now: Date): Grant {
  const changed: Grant = { ...grant, updatedAt: new Date(now.getTime() - 1000).toISOString() };
  const kind = rng.int(3);
  if (kind === 0) changed.description = `${grant.description ?? ''} Updated: the funder added a second intake.`.trim();
  else if (kind === 1 && grant.amountMax !== null) changed.amountMax = Math.round(grant.amountMax * 1.1);
  else if (grant.deadline !== null)
    changed.deadline = new Date(Date.parse(grant.deadline) + 30 * 86_400_000).toISOString();
  else changed.description = `${grant.description ?? ''} Updated.`.trim();
  return changed;
}

/** Distinct indices in [0, n), `count` of them, drawn from rng. */
function distinctIndices(rng: Random, n: number, count: number, taken: Set<number>): number[] {
  const chosen: number[] = [];
  while (chosen.length < count) {
    const i = rng.int(n);
    if (taken.has(i)) continue;
    taken.add(i);
    chosen.push(i);
  }
  return chosen;
}

// ---- Measuring ----

interface Receiver {
  process: RunningProcess;
  report(from: number): Promise<{ count: number; unique: number; duplicates: number; times: number[] }>;
}

function receiverOf(running: RunningProcess): Receiver {
  return {
    process: running,
    report(from) {
      return new Promise((resolve) => {
        running.child.once('message', (m) =>
          resolve(m as { count: number; unique: number; duplicates: number; times: number[] }),
        );
        running.child.send({ from });
      });
    },
  };
}

/** The sums over the instances of the alert figures on /metrics. */
async function alertFigures(apis: RunningProcess[]): Promise<Record<string, number>> {
  const names = [
    'grants_alert_matcher_changes_total',
    'grants_alert_matcher_checks_total',
    'grants_alert_matcher_events_total',
    'grants_alert_matcher_seconds_total',
    'grants_webhook_outbox_depth',
  ];
  const sums: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  sums.delivered = 0;
  for (const api of apis) {
    const text = await (await fetch(`${api.origin}/metrics`)).text();
    for (const line of text.split('\n')) {
      const [name, value] = line.split(' ');
      if (name in sums && names.includes(name)) sums[name] += Number(value);
      if (name === 'grants_webhook_attempts_total{outcome="delivered"}') sums.delivered += Number(value);
    }
  }
  // The outbox is shared: every instance reports the same depth.
  sums.grants_webhook_outbox_depth /= apis.length;
  return sums;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** autocannon on one origin for `seconds`, keeping each response's arrival time. */
function driveTimed(
  origin: string,
  paths: string[],
  apiKey: string,
  connections: number,
  seconds: number,
): { done: Promise<{ arrivals: number[]; non2xx: number; errors: number }> } {
  let next = 0;
  const arrivals: number[] = [];
  const instance = autocannon({
    url: origin,
    connections,
    duration: seconds,
    timeout: 30,
    headers: { Authorization: `Bearer ${apiKey}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const p = paths[next];
          next = next + 1 === paths.length ? 0 : next + 1;
          return { ...request, path: p };
        },
      },
    ],
  });
  instance.on('response', () => arrivals.push(Date.now()));
  return {
    done: Promise.resolve(instance).then((result) => ({ arrivals, non2xx: result.non2xx, errors: result.errors })),
  };
}

interface SyncRun {
  startedAt: number;
  endedAt: number;
  output: string;
}

async function runSync(file: string, env: NodeJS.ProcessEnv): Promise<SyncRun> {
  const startedAt = Date.now();
  const output = await runCli('bin/grants-indexer.js', ['sync', '--source', file], env);
  return { startedAt, endedAt: Date.now(), output: output.trim().split('\n').slice(-1)[0] ?? '' };
}

/** Waits until the matcher has decided `changes` more changes and every event it wrote has reached the receiver. */
async function waitDelivered(
  apis: RunningProcess[],
  receiver: Receiver,
  before: Record<string, number>,
  receivedBefore: number,
  changes: number,
  timeoutMs = 600_000,
): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await alertFigures(apis);
    const decided = now.grants_alert_matcher_changes_total - before.grants_alert_matcher_changes_total;
    const events = now.grants_alert_matcher_events_total - before.grants_alert_matcher_events_total;
    const { unique } = await receiver.report(Number.MAX_SAFE_INTEGER);
    if (decided >= changes && now.grants_webhook_outbox_depth === 0 && unique - receivedBefore >= events) return now;
    if (Date.now() > deadline)
      throw new Error(
        `alerts did not finish within ${timeoutMs / 1000} s (changes decided ${decided}/${changes}, events ` +
          `${events}, received ${unique - receivedBefore}, outbox ${now.grants_webhook_outbox_depth})`,
      );
    // Not more often: a scrape of /metrics costs the API's thread too, and the rounds without
    // alerts do not scrape (the latencies come from the receiver, not from this loop).
    await sleep(1000);
  }
}

interface AlertRound {
  syncSeconds: number;
  sync: string;
  webhooks: number;
  duplicates: number;
  latencyFromSyncEndS: { p50: number; p99: number; last: number; first: number };
  deliveriesPerSecond: number;
  /**
   * CPU time of the API process(es) from the sync's start to the last webhook (matching, delivering and the sync's
   * reload).
   */
  apiCpuSeconds: number;
  /**
   * The API processes' main threads alone (matching and delivering run there; the index loader and the search workers
   * do not).
   */
  apiMainThreadCpuSeconds: number;
  matcher: {
    changes: number;
    checks: number;
    events: number;
    seconds: number;
    msPerChange: number;
    usPerChangePerAlert: number;
  };
}

export async function runAlertsBench(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${ALERTS_HELP}\n`);
    return 0;
  }
  const o = parseOptions(argv);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'grants-bench-alerts-'));
  const logDir = path.join(tmp, 'logs');
  mkdirSync(logDir);
  const running: RunningProcess[] = [];
  let database: BenchDatabase | null = null;
  const alias = `bench-alerts-${randomBytes(5).toString('hex')}`;
  const engineEnv: Record<string, string> = {
    DATA_DIR: path.join(tmp, 'data'),
    SEARCH_ENGINE: o.engine,
    ELASTICSEARCH_URL: o.elasticsearchUrl,
    ELASTICSEARCH_INDEX: alias,
  };
  try {
    if (o.store === 'postgres') {
      database = await createBenchDatabase(o.databaseUrl);
      engineEnv.DATABASE_URL = database.url;
      engineEnv.SECRETS_KEY = randomBytes(32).toString('base64');
      // As a fleet is configured: the instances know how many they are.
      engineEnv.API_INSTANCES = String(o.instances);
      say(`subscriptions and alerts: PostgreSQL database ${database.name}`);
    }
    // 1. The catalog.
    say(`generating ${o.grants.toLocaleString('en-US')} grants; indexing with grants-indexer (${o.engine})`);
    const catalog = await writeCatalog(path.join(tmp, 'grants.ndjson'), o.grants, o.seed);
    const indexer = await runIndexer(catalog.file, cleanEnv(engineEnv));
    if (indexer.exitCode !== 0) throw new Error(`grants-indexer exited ${indexer.exitCode}: ${indexer.output}`);
    rmSync(catalog.file, { force: true });
    const mix = buildMix(catalog.sample, o.grants, o.seed);

    // 2. Which grants seed the alerts, and the five sets of changed grants (quiet, two loaded, two without alerts).
    const rng = new Random(o.seed ^ 0x5eed);
    const taken = new Set<number>();
    const seedIndices = Array.from({ length: o.alerts }, () => rng.int(o.grants));
    const changeSets = Array.from({ length: 5 }, () =>
      distinctIndices(rng, o.grants, Math.min(o.changes, Math.floor(o.grants / 5)), taken),
    );
    const wanted = new Set([...seedIndices, ...changeSets.flat()]);
    const kept = new Map<number, Grant>();
    const estimation: Grant[] = [];
    const every = Math.max(1, Math.floor(o.grants / 2000));
    let index = 0;
    for (const grant of generateGrants(o.grants, o.seed)) {
      if (wanted.has(index)) kept.set(index, grant);
      if (index % every === 0) estimation.push(grant);
      index += 1;
    }
    const now = new Date();
    const syncFiles = changeSets.map((set, i) => {
      const file = path.join(tmp, `changes-${i}.ndjson`);
      writeFileSync(file, set.map((at) => JSON.stringify(changedGrant(kept.get(at)!, rng, now))).join('\n') + '\n');
      return file;
    });

    const queriesAt = Date.now();
    const queryRng = new Random(o.seed ^ 0xa1e7);
    const share = (word: string) => (catalog.sample.documentFrequency.get(word) ?? 0) / catalog.sample.size;
    const queries = seedIndices.map((at) => alertQueryFor(kept.get(at)!, queryRng, share, estimation, now.getTime()));
    let nextAlert = 0;
    say(`${o.alerts.toLocaleString('en-US')} alert queries drawn in ${round((Date.now() - queriesAt) / 1000)} s`);

    // 3. The receiver and the API process(es).
    const receiverPort = await freePort();
    const receiverProcess = await startProcess({
      name: 'receiver',
      args: ['dist/test/bench/webhookReceiver.js'],
      env: cleanEnv({ PORT: String(receiverPort) }),
      port: receiverPort,
      logDir,
      readyPath: '/',
      ipc: true,
    });
    running.push(receiverProcess);
    const receiver = receiverOf(receiverProcess);
    const startApis = async (worker: boolean): Promise<RunningProcess[]> => {
      const apis: RunningProcess[] = [];
      for (let i = 0; i < o.instances; i++) {
        const port = await freePort();
        const api = await startProcess({
          name: `api-${worker ? 'alerts' : 'noalerts'}-${i}`,
          args:
            worker && o.profileDir !== null
              ? ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`, 'dist/src/main.js']
              : ['dist/src/main.js'],
          port,
          logDir,
          readyPath: '/readyz',
          env: cleanEnv({
            ...engineEnv,
            PORT: String(port),
            HOST: '127.0.0.1',
            LOG_LEVEL: 'warn',
            SEED_CATALOG: 'false',
            METRICS_PUBLIC: 'true',
            ALERTS_WORKER: String(worker),
            WEBHOOK_ALLOW_HTTP: 'true',
            WEBHOOK_ALLOW_PRIVATE: 'true',
          }),
        });
        running.push(api);
        apis.push(api);
      }
      return apis;
    };
    let apis = await startApis(true);

    // 4. Subscriptions of 1,000 alerts each, the alerts created through the API.
    const subscriptions = Math.ceil(o.alerts / 1000);
    const keys: string[] = [];
    for (let i = 0; i < subscriptions; i++) keys.push((await createBenchSubscription(cleanEnv(engineEnv))).apiKey);
    say(`creating ${o.alerts.toLocaleString('en-US')} alerts over ${subscriptions} subscriptions`);
    const createdAt = Date.now();
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = nextAlert++; i < o.alerts; i = nextAlert++) {
          const api = apis[(worker + i) % apis.length];
          // On a machine shared with other work the API may shed load (503 with Retry-After): a
          // partner would retry, with the same Idempotency-Key so that no alert is made twice.
          let response: Response;
          let body: string;
          for (let tries = 1; ; tries++) {
            response = await fetch(`${api.origin}/external/v1/alerts`, {
              signal: AbortSignal.timeout(30_000),
              method: 'POST',
              headers: {
                Authorization: `Bearer ${keys[Math.floor(i / 1000)]}`,
                'Content-Type': 'application/json',
                'Idempotency-Key': `bench-alert-${o.seed}-${i}`,
              },
              body: JSON.stringify({
                name: `bench alert ${i}`,
                query: queries[i],
                url: `http://127.0.0.1:${receiverPort}/hooks/${Math.floor(i / 1000)}`,
                events: ['grant.matched', 'grant.updated', 'grant.unmatched'],
              }),
            });
            body = await response.text();
            if (response.status !== 503 || tries === 10) break;
            await new Promise((resolve) =>
              setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)),
            );
          }
          if (response.status !== 201)
            throw new Error(
              `creating alert ${i} (${JSON.stringify(queries[i])}) answered ${response.status}: ${body.slice(0, 300)}`,
            );
        }
      }),
    );
    say(`  in ${round((Date.now() - createdAt) / 1000)} s`);
    // How broad the alerts are, as the API counts: GET /grants?limit=0 with the queries of 200 of them.
    const totals: number[] = [];
    for (let i = 0; i < o.alerts; i += Math.max(1, Math.floor(o.alerts / 200))) {
      const params = new URLSearchParams({ limit: '0' });
      for (const [name, value] of Object.entries(queries[i]))
        params.set(name, Array.isArray(value) ? value.join(',') : String(value));
      const answer = (await (
        await fetch(`${apis[0].origin}/external/v1/grants?${params}`, {
          headers: { Authorization: `Bearer ${keys[0]}` },
        })
      ).json()) as { pagination: { total: number } };
      totals.push(answer.pagination.total);
    }
    totals.sort((a, b) => a - b);
    const breadth = {
      sampled: totals.length,
      median: percentile(totals, 50),
      mean: Math.round(totals.reduce((a, b) => a + b, 0) / Math.max(1, totals.length)),
      p90: percentile(totals, 90),
      max: totals[totals.length - 1] ?? 0,
    };
    say(
      `  results per alert (GET /grants, ${breadth.sampled} alerts): median ${breadth.median}, mean ` +
        `${breadth.mean}, p90 ${breadth.p90}, max ${breadth.max}`,
    );
    await sleep(1500); // the matcher's first turn after the alerts: nothing to do yet

    const syncEnv = cleanEnv(engineEnv);
    const alertRound = async (
      file: string,
      during?: () => void,
    ): Promise<AlertRound & { activeFrom: number; activeTo: number }> => {
      const before = await alertFigures(apis);
      const cpuBefore = apis.map((api) => processCpuSeconds(api.pid) ?? 0);
      const mainBefore = apis.map((api) => processCpuSeconds(api.pid, api.pid) ?? 0);
      const receivedBefore = (await receiver.report(Number.MAX_SAFE_INTEGER)).count;
      during?.();
      const sync = await runSync(file, syncEnv);
      const after = await waitDelivered(apis, receiver, before, receivedBefore, o.changes);
      const got = await receiver.report(receivedBefore);
      const cpuSeconds = apis.reduce((sum, api, i) => sum + (processCpuSeconds(api.pid) ?? 0) - cpuBefore[i], 0);
      const mainSeconds = apis.reduce(
        (sum, api, i) => sum + (processCpuSeconds(api.pid, api.pid) ?? 0) - mainBefore[i],
        0,
      );
      const latencies = got.times.map((t) => (t - sync.endedAt) / 1000).sort((a, b) => a - b);
      const first = got.times.reduce((a, b) => Math.min(a, b), got.times[0] ?? sync.endedAt);
      const last = got.times.reduce((a, b) => Math.max(a, b), got.times[0] ?? sync.endedAt);
      const changes = after.grants_alert_matcher_changes_total - before.grants_alert_matcher_changes_total;
      const checks = after.grants_alert_matcher_checks_total - before.grants_alert_matcher_checks_total;
      const seconds = after.grants_alert_matcher_seconds_total - before.grants_alert_matcher_seconds_total;
      return {
        syncSeconds: round((sync.endedAt - sync.startedAt) / 1000, 2),
        sync: sync.output,
        webhooks: got.times.length,
        duplicates: got.duplicates,
        latencyFromSyncEndS: {
          first: round((first - sync.endedAt) / 1000, 2),
          p50: round(percentile(latencies, 50), 2),
          p99: round(percentile(latencies, 99), 2),
          last: round((last - sync.endedAt) / 1000, 2),
        },
        apiCpuSeconds: round(cpuSeconds, 2),
        apiMainThreadCpuSeconds: round(mainSeconds, 2),
        deliveriesPerSecond:
          got.times.length < 2 ? 0 : Math.round(got.times.length / Math.max(0.001, (last - first) / 1000)),
        matcher: {
          changes,
          checks,
          events: after.grants_alert_matcher_events_total - before.grants_alert_matcher_events_total,
          seconds: round(seconds, 3),
          msPerChange: changes === 0 ? 0 : round((seconds * 1000) / changes, 3),
          usPerChangePerAlert: checks === 0 ? 0 : round((seconds * 1e6) / checks, 3),
        },
        activeFrom: sync.startedAt,
        activeTo: Math.max(last, sync.endedAt),
      };
    };

    // 5. The quiet round.
    say(`quiet round: a sync of ${o.changes} changed grants, matched and delivered`);
    const quiet = await alertRound(syncFiles[0]);
    say(
      `  ${quiet.webhooks} webhooks; from the sync's end: p50 ${quiet.latencyFromSyncEndS.p50} s, p99 ` +
        `${quiet.latencyFromSyncEndS.p99} s, last ${quiet.latencyFromSyncEndS.last} s; ` +
        `${quiet.deliveriesPerSecond}/s`,
    );

    if (o.quietOnly) {
      process.stdout.write(`\nquiet round: ${JSON.stringify({ alertResults: breadth, ...quiet })}\n`);
      return 0;
    }
    // 6. Loaded rounds with alerts, then without (the alerts worker off).
    const activeSeconds = (quiet.activeTo - quiet.activeFrom) / 1000;
    // Under load, alerts take a share of the thread only (ALERTS_BUSY_PERCENT): their work lasts
    // longer than in the quiet round; the load runs long enough to cover it (the span counted
    // ends with the load when it does not).
    const windowSeconds = Math.ceil(2 + Math.max(30, activeSeconds * 6));
    const classes = { searchMix: mix.searchMix, byId: mix.byId } as const;
    const loaded: Record<
      string,
      {
        alerts: AlertRound;
        rps: number;
        activeSeconds: number;
        endedWithinLoad: boolean;
        non2xx: number;
        errors: number;
      }
    > = {};
    const load = async (className: keyof typeof classes, action: () => Promise<{ from: number; to: number }>) => {
      const share = Math.max(1, Math.floor(o.connections / apis.length));
      // Warm-up (8 s: the API without alerts is a fresh process), then the measured run with the sync 2 s in.
      await Promise.all(
        apis.map((api, i) => driveTimed(api.origin, classes[className], keys[i % keys.length], share, 8).done),
      );
      const loadEnd = Date.now() + windowSeconds * 1000;
      const runs = apis.map(
        (api, i) => driveTimed(api.origin, classes[className], keys[i % keys.length], share, windowSeconds).done,
      );
      await sleep(2000);
      const span = await action();
      const results = await Promise.all(runs);
      const to = Math.min(span.to, loadEnd);
      const arrivals = results.flatMap((r) => r.arrivals).filter((t) => t >= span.from && t <= to).length;
      return {
        rps: Math.round(arrivals / ((to - span.from) / 1000)),
        spanSeconds: round((to - span.from) / 1000, 2),
        endedWithinLoad: span.to <= loadEnd,
        non2xx: results.reduce((n, r) => n + r.non2xx, 0),
        errors: results.reduce((n, r) => n + r.errors, 0),
      };
    };
    let set = 1;
    for (const className of Object.keys(classes) as (keyof typeof classes)[]) {
      say(`loaded round with alerts: ${className}, ${windowSeconds} s with a sync of ${o.changes} grants 2 s in`);
      let result: AlertRound & { activeFrom: number; activeTo: number } = quiet;
      const figures = await load(className, async () => {
        result = await alertRound(syncFiles[set++]);
        return { from: result.activeFrom, to: result.activeTo };
      });
      loaded[className] = { alerts: result, activeSeconds: figures.spanSeconds, ...figures };
      say(
        `  ${figures.rps} req/s over the ${figures.spanSeconds} s of the sync, matching and ` +
          `delivery${figures.endedWithinLoad ? '' : ' (the load ended first)'} (${result.webhooks} webhooks, ` +
          `last ${result.latencyFromSyncEndS.last} s after the sync)`,
      );
    }
    for (const api of apis) await api.stop();
    apis = await startApis(false);
    const without: Record<
      string,
      { rps: number; activeSeconds: number; endedWithinLoad: boolean; non2xx: number; errors: number }
    > = {};
    for (const className of Object.keys(classes) as (keyof typeof classes)[]) {
      const span = loaded[className].activeSeconds;
      say(`loaded round without alerts (ALERTS_WORKER=false): ${className}, over ${span} s from the sync's start`);
      const figures = await load(className, async () => {
        const sync = await runSync(syncFiles[set++], syncEnv);
        await sleep(Math.max(0, sync.startedAt + span * 1000 - Date.now()));
        return { from: sync.startedAt, to: sync.startedAt + span * 1000 };
      });
      without[className] = { ...figures, activeSeconds: span };
      say(`  ${figures.rps} req/s`);
    }

    // 7. The report.
    const ratio = (className: string) => round((100 * loaded[className].rps) / Math.max(1, without[className].rps), 0);
    const results = {
      kind: 'alerts',
      at: new Date().toISOString(),
      options: { ...o, out: undefined },
      loadAverage: os.loadavg()[0],
      cpus: os.cpus().length,
      alertResults: breadth,
      quiet,
      loaded,
      without,
      targets: {
        p99FromSyncEnd: {
          value: quiet.latencyFromSyncEndS.p99,
          target: '≤ 5 s',
          met: quiet.latencyFromSyncEndS.p99 <= 5,
        },
        deliveriesPerSecondPerProcess: {
          value: Math.round(quiet.deliveriesPerSecond / o.instances),
          target: '≥ 500',
          met: quiet.deliveriesPerSecond / o.instances >= 500,
        },
        searchMixRatio: { value: ratio('searchMix'), target: '≥ 80 %', met: ratio('searchMix') >= 80 },
        byIdRatio: { value: ratio('byId'), target: '≥ 80 %', met: ratio('byId') >= 80 },
      },
    };
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(o.out, JSON.stringify(results, null, 2));
    const lines = [
      '',
      `Alerts bench: ${o.grants.toLocaleString('en-US')} grants, ${o.alerts.toLocaleString('en-US')} ` +
        `alerts, syncs of ${o.changes} changes; engine ${o.engine}, store ${o.store}, ${o.instances} API ` +
        `process(es); load average ${round(os.loadavg()[0], 2)}`,
      '',
      `| figure | value | target |`,
      `|---|---|---|`,
      `| results per alert (GET /grants with its query, ${breadth.sampled} alerts) | median ` +
        `${breadth.median}, mean ${breadth.mean}, p90 ${breadth.p90}, max ${breadth.max} | |`,
      `| webhooks per sync (quiet round) | ${quiet.webhooks} (${quiet.duplicates} duplicates) | |`,
      `| sync itself | ${quiet.syncSeconds} s (${quiet.sync}) | |`,
      `| sync's end → webhook: first / p50 / p99 / last | ${quiet.latencyFromSyncEndS.first} / ` +
        `${quiet.latencyFromSyncEndS.p50} / ${quiet.latencyFromSyncEndS.p99} / ` +
        `${quiet.latencyFromSyncEndS.last} s | p99 ≤ 5 s: ` +
        `${results.targets.p99FromSyncEnd.met ? 'met' : 'NOT met'} |`,
      `| deliveries per second (per process) | ${quiet.deliveriesPerSecond} ` +
        `(${results.targets.deliveriesPerSecondPerProcess.value}) | ≥ 500: ` +
        `${results.targets.deliveriesPerSecondPerProcess.met ? 'met' : 'NOT met'} |`,
      `| API CPU from the sync's start to the last webhook | ${quiet.apiCpuSeconds} s ` +
        `(${quiet.webhooks > 0 ? round((quiet.apiCpuSeconds * 1e6) / quiet.webhooks, 0) : 0} µs per webhook, ` +
        `matching included) | |`,
      `| the API's main thread alone (matching and delivering; not the index loader or the search workers) ` +
        `| ${quiet.apiMainThreadCpuSeconds} s ` +
        `(${quiet.webhooks > 0 ? round((quiet.apiMainThreadCpuSeconds * 1e6) / quiet.webhooks, 0) : 0} µs per ` +
        `webhook) | |`,
      `| matching: per change / per change × alert | ${quiet.matcher.msPerChange} ms / ` +
        `${round((quiet.matcher.seconds * 1e9) / Math.max(1, quiet.matcher.changes * o.alerts), 1)} ns ` +
        `(${quiet.matcher.seconds} s for ${quiet.matcher.changes} changes × ${o.alerts} alerts; ` +
        `${quiet.matcher.checks.toLocaleString('en-US')} candidate pairs decided in full) | |`,
      ...(['searchMix', 'byId'] as const).map(
        (c) =>
          `| ${c === 'byId' ? '/grants/:id' : 'search mix'} req/s, alerts on / off | ${loaded[c].rps} / ` +
          `${without[c].rps} over ${loaded[c].activeSeconds} s = ${ratio(c)} % ` +
          `(${loaded[c].alerts.webhooks} webhooks, last ${loaded[c].alerts.latencyFromSyncEndS.last} s ` +
          `after the sync; errors ${loaded[c].non2xx + loaded[c].errors} / ` +
          `${without[c].non2xx + without[c].errors}) | ≥ 80 %: ${ratio(c) >= 80 ? 'met' : 'NOT met'} |`,
      ),
      '',
      `JSON: ${o.out}`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    for (const p of running.reverse()) await p.stop().catch(() => undefined);
    if (database !== null && o.keepTemp) say(`kept the PostgreSQL database ${database.name}`);
    else if (database !== null) await database.drop().catch(() => undefined);
    if (o.engine === 'elasticsearch') {
      await fetch(`${o.elasticsearchUrl}/${alias}-*,${alias}_changes?ignore_unavailable=true&allow_no_indices=true`, {
        method: 'DELETE',
      }).catch(() => undefined);
    }
    if (o.keepTemp) say(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}
