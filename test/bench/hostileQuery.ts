// node dist/test/bench/hostileQuery.js [options]: the hostile typo query (200 characters of words
// with thousands of typo neighbours each, test/support/typoCatalog.ts) against the production API
// on each engine: alone, one after another, and from several connections at once, beside the
// search budget (SEARCH_TIMEOUT_MS, production's default).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@elastic/elasticsearch';
import { dropCatalogIndexes } from '../../src/search/elasticsearch/changeLog.js';
import { loadConfig } from '../../src/config.js';
import { typosWithin } from '../../src/grants/typos.js';
import { writeNdjson } from '../support/catalog.js';
import { crowdedQuery, swarmedCatalogGrants } from '../support/typoCatalog.js';
import { runIndexer } from './catalog.js';
import { drive, elasticsearchPid, type LoadResult } from './load.js';
import { PREFIX } from './mix.js';
import {
  API_NODE_OPTIONS,
  cleanEnv,
  createBenchSubscription,
  freePort,
  startProcess,
  type RunningProcess,
} from './processes.js';
import { median, table } from './report.js';

const HELP = `Usage: node dist/test/bench/hostileQuery.js [options]

Indexes a catalog swarming with typo neighbours of the hostile query's words (thousands each) into
each engine with the real indexer, starts the production API on each, and sends the 200-character
query with typos=auto: --sequential times alone, then from --connections connections for
--duration seconds. Prints latencies beside the search budget (SEARCH_TIMEOUT_MS).

Options:
  --grants N         catalog size (default 3000)
  --engines LIST     sqlite,elasticsearch (default both; ELASTICSEARCH_URL)
  --sequential N     requests one after another (default 10)
  --connections C    concurrent connections (default 4)
  --duration S       seconds of the concurrent run (default 10)
  -h, --help         this help`;

const say = (line: string) => process.stderr.write(`» ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      grants: { type: 'string' },
      engines: { type: 'string' },
      sequential: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const grants = Number(values.grants ?? 3000);
  const engines = (values.engines ?? 'sqlite,elasticsearch').split(',');
  const sequential = Number(values.sequential ?? 10);
  const connections = Number(values.connections ?? 4);
  const duration = Number(values.duration ?? 10);
  const esUrl = (process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200').replace(/\/+$/, '');
  const budgetMs = loadConfig({}).searchLoad.timeoutMs;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'grants-bench-hostile-'));
  const alias = `bench-hostile-${randomBytes(4).toString('hex')}`;
  const running: RunningProcess[] = [];
  const es = new Client({ node: esUrl });
  try {
    const catalog = swarmedCatalogGrants(grants);
    const query = crowdedQuery();
    const words = new Set(catalog.flatMap((g) => `${g.title} ${g.description}`.toLowerCase().split(/\s+/)));
    const neighbours = query.split(' ').map((w) => [...words].filter((c) => typosWithin(w, c) !== null).length);
    say(
      `${grants} grants, ${words.size} distinct words; the query's words have ` +
        `${Math.min(...neighbours)}–${Math.max(...neighbours)} typo neighbours each`,
    );
    const source = writeNdjson(tmp, 'grants.ndjson', catalog);
    const rows: string[][] = [];
    for (const engine of engines) {
      const dataDir = path.join(tmp, `data-${engine}`);
      mkdirSync(dataDir);
      const env = { DATA_DIR: dataDir, SEARCH_ENGINE: engine, ELASTICSEARCH_URL: esUrl, ELASTICSEARCH_INDEX: alias };
      const indexed = await runIndexer(source, cleanEnv({ ...env, LOG_LEVEL: 'warn' }));
      if (indexed.exitCode !== 0) throw new Error(`grants-indexer exited ${indexed.exitCode}: ${indexed.output}`);
      const { apiKey } = await createBenchSubscription(cleanEnv(env));
      const port = await freePort();
      const api = await startProcess({
        name: `api-${engine}`,
        args: [...API_NODE_OPTIONS, 'dist/src/main.js'],
        port,
        logDir: tmp,
        readyPath: '/readyz',
        env: cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', SEED_CATALOG: 'false' }),
      });
      running.push(api);
      const headers = { Authorization: `Bearer ${apiKey}` };
      const hostile = `${PREFIX}/grants?search=${encodeURIComponent(query)}&typos=auto&limit=5`;
      // The dictionary's first use and the code's first run, before anything is timed.
      await (
        await fetch(`${api.origin}${PREFIX}/grants?search=${query.slice(0, 9)}&typos=auto&limit=0`, { headers })
      ).arrayBuffer();
      const times: number[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < sequential; i++) {
        const started = performance.now();
        const response = await fetch(api.origin + hostile, { headers });
        await response.arrayBuffer();
        times.push(performance.now() - started);
        statuses.push(response.status);
      }
      const loaded: LoadResult = await drive({
        origin: api.origin,
        paths: [hostile],
        connections,
        durationSeconds: duration,
        headers,
        serverPid: api.pid,
        enginePid: engine === 'elasticsearch' ? (elasticsearchPid() ?? undefined) : undefined,
        settle: true,
      });
      const codes = (counts: Record<string, number>) =>
        Object.entries(counts)
          .map(([code, n]) => `${code}×${n}`)
          .join(' ');
      const alone = statuses.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
      rows.push([
        engine,
        'alone',
        String(sequential),
        median(times).toFixed(0),
        Math.max(...times).toFixed(0),
        codes(alone),
      ]);
      rows.push([
        engine,
        `${connections} connections, ${duration} s`,
        String(loaded.requests),
        loaded.latencyMs.p50.toFixed(0),
        `${loaded.latencyMs.p99.toFixed(0)} (p99)`,
        codes(loaded.statusCodes),
      ]);
      say(
        `${engine}: alone median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms; ` +
          `${connections} connections p50 ${loaded.latencyMs.p50.toFixed(0)} p99 ` +
          `${loaded.latencyMs.p99.toFixed(0)} ms, load ${loaded.loadAverage}`,
      );
      await api.stop();
    }
    process.stdout.write(
      `\nhostile query (${query.length} characters, typos=auto), budget ${budgetMs} ms, load average ` +
        `${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores\n`,
    );
    process.stdout.write(`${table(['engine', 'run', 'requests', 'p50 ms', 'max ms', 'statuses'], rows)}\n`);
    return 0;
  } finally {
    await Promise.allSettled(running.map((p) => p.stop()));
    if (engines.includes('elasticsearch')) {
      await dropCatalogIndexes(es, alias).catch(() => undefined);
    }
    await es.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `hostileQuery failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
