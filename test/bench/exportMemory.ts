// The export memory check: a 1,000,000-grant GET /grants/export keeps the API's RSS
// within 50 MB of its idle RSS. Not a test (minutes, and a figure, not a yes/no on a shared
// machine): `npm run bench:export`. Generates the catalog, indexes it with the real indexer, starts
// the production API as a child process, measures its RSS at rest (after one search has loaded
// the engine's columns), then downloads the whole export while sampling the API's RSS every 50 ms.
// Then what a cursor page costs at the start and at 90 % of the catalog (a cursor built from the
// place of the grant the export gave at that point): median latency of 30 requests each.
//
//   npm run bench:export -- [--grants N] [--engine sqlite|elasticsearch] [--format ndjson|csv] [--keep-temp]
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { encodeCursor } from '../../src/http/parameters/grantCursor.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { procMemory, runIndexer, writeCatalog } from './catalog.js';
import { processCpuSeconds } from './load.js';
import { createBenchSubscription, freePort, startProcess, type RunningProcess } from './processes.js';

const LIMIT_MIB = 50;
const say = (line: string) => process.stderr.write(`» ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (kib: number) => kib / 1024;

const { values } = parseArgs({
  options: {
    grants: { type: 'string', default: '1000000' },
    engine: { type: 'string', default: 'sqlite' },
    format: { type: 'string', default: 'ndjson' },
    'elasticsearch-url': { type: 'string', default: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200' },
    'keep-temp': { type: 'boolean', default: false },
  },
});
const grants = Number(values.grants);
const engine = values.engine as string;
const format = values.format as string;
if (!Number.isSafeInteger(grants) || grants < 1) throw new Error('--grants must be a positive integer');
if (engine !== 'sqlite' && engine !== 'elasticsearch') throw new Error('--engine must be sqlite or elasticsearch');
if (format !== 'ndjson' && format !== 'csv') throw new Error('--format must be ndjson or csv');

/** RSS of the process now, in KiB (0 once it has exited). */
const rssKiB = (pid: number): number => procMemory(pid)?.rssKiB ?? 0;

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-export-'));
  const logDir = path.join(tmp, 'logs');
  mkdirSync(logDir);
  const alias = `bench-export-${randomBytes(5).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: path.join(tmp, 'data'),
    SEARCH_ENGINE: engine,
    ELASTICSEARCH_URL: values['elasticsearch-url'] as string,
    ELASTICSEARCH_INDEX: alias,
  };
  for (const name of ['PORT', 'HOST', 'LOG_LEVEL', 'SEED_CATALOG', 'SEED_FILE', 'REDIS_URL', 'NODE_OPTIONS'])
    delete env[name];
  let api: RunningProcess | undefined;
  try {
    say(`generating ${grants.toLocaleString('en-US')} grants`);
    const catalog = await writeCatalog(path.join(tmp, 'grants.ndjson'), grants, 1);
    say(`  ${(catalog.bytes / 1048576).toFixed(0)} MiB; indexing (${engine})`);
    const indexer = await runIndexer(catalog.file, env);
    if (indexer.exitCode !== 0) throw new Error(`grants-indexer exited ${indexer.exitCode}: ${indexer.output}`);
    say(`  ${indexer.indexed.toLocaleString('en-US')} indexed in ${indexer.seconds.toFixed(0)} s`);
    rmSync(catalog.file, { force: true });
    const { apiKey } = await createBenchSubscription(env);
    const auth = { Authorization: `Bearer ${apiKey}` };
    const port = await freePort();
    api = await startProcess({
      name: 'api',
      args: ['dist/src/main.js'],
      port,
      logDir,
      readyPath: '/readyz',
      env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SEED_CATALOG: 'false' },
    });
    const pid = api.pid;

    // Idle: after a few searches in the export's order (the columns and that order loaded), then a rest.
    for (let i = 0; i < 3; i++)
      await (await fetch(`${api.origin}/external/v1/grants?limit=100`, { headers: auth })).arrayBuffer();
    await sleep(3000);
    let idle = 0;
    for (let i = 0; i < 10; i++) {
      idle = Math.max(idle, rssKiB(pid));
      await sleep(100);
    }
    say(`idle RSS ${mib(idle).toFixed(1)} MiB; exporting (${format})`);

    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 50);
    const cpuBefore = processCpuSeconds(pid) ?? 0;
    const started = process.hrtime.bigint();
    const response = await fetch(`${api.origin}/external/v1/grants/export?format=${format}`, { headers: auth });
    if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
    const count = Number(response.headers.get('x-export-count'));
    let bytes = 0;
    let lines = 0;
    // The NDJSON line at 90 % of the export, kept for the deep-cursor measure.
    const deepIndex = Math.floor(count * 0.9);
    const deepParts: Buffer[] = [];
    let capturing = false;
    const reader = response.body!.getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
      let start = capturing ? 0 : -1;
      for (let i = 0; i < chunk.value.length; i++) {
        if (chunk.value[i] !== 10) continue;
        lines += 1;
        if (capturing) {
          deepParts.push(Buffer.from(chunk.value.subarray(start, i)));
          capturing = false;
          start = -1;
        }
        if (lines === deepIndex && format === 'ndjson') {
          capturing = true;
          start = i + 1;
        }
      }
      if (capturing && start >= 0) deepParts.push(Buffer.from(chunk.value.subarray(start)));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = (processCpuSeconds(pid) ?? 0) - cpuBefore;
    clearInterval(sampler);
    peak = Math.max(peak, rssKiB(pid));
    const rows = format === 'csv' ? lines - 1 : lines; // CSV: the header row (no grant field here holds a newline)
    const delta = mib(peak - idle);

    // Cursor pages: the first, and one after the place of the grant at 90 % (default order: deadline, then id).
    const cursorMs: Record<string, number> = {};
    if (deepParts.length > 0) {
      const deep = JSON.parse(Buffer.concat(deepParts).toString('utf8')) as { id: string; deadline: string | null };
      const query = parseGrantQuery(parseQueryString('limit=100&cursor=*'));
      const deepCursor = encodeCursor(query, 2, {
        key: deep.deadline === null ? null : Date.parse(deep.deadline),
        id: deep.id,
      });
      for (const [name, cursor] of [
        ['first', '*'],
        ['at90pct', deepCursor],
      ] as const) {
        const times: number[] = [];
        for (let i = 0; i < 30; i++) {
          const t0 = process.hrtime.bigint();
          const page = await fetch(`${api.origin}/external/v1/grants?limit=100&cursor=${cursor}`, { headers: auth });
          const body = (await page.json()) as { data: unknown[] };
          if (page.status !== 200 || body.data.length === 0)
            throw new Error(`cursor page ${name} answered ${page.status} with ${body.data.length} grants`);
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        times.sort((a, b) => a - b);
        cursorMs[name] = Math.round(times[15] * 10) / 10;
      }
    }
    const report = {
      engine,
      format,
      grants,
      exportCount: count,
      received: rows,
      mib: Math.round(bytes / 1048576),
      seconds: Math.round(seconds * 10) / 10,
      grantsPerSecond: Math.round(rows / seconds),
      apiCpuMicrosPerGrant: Math.round((cpu / Math.max(rows, 1)) * 1e6 * 10) / 10,
      idleRssMiB: Math.round(mib(idle) * 10) / 10,
      peakRssMiB: Math.round(mib(peak) * 10) / 10,
      deltaMiB: Math.round(delta * 10) / 10,
      limitMiB: LIMIT_MIB,
      holds: delta <= LIMIT_MIB && rows === count && count === grants,
      cursorPageMedianMs: cursorMs,
      loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
      node: process.version,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    say(
      `${rows.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} grants, ${report.mib} MiB in ` +
        `${report.seconds} s; RSS idle ${report.idleRssMiB} MiB, peak ${report.peakRssMiB} MiB ` +
        `(+${report.deltaMiB}, limit +${LIMIT_MIB}): ${report.holds ? 'holds' : 'DOES NOT HOLD'}`,
    );
    if (!report.holds) process.exitCode = 1;
  } finally {
    await api?.stop();
    if (engine === 'elasticsearch') {
      await fetch(`${values['elasticsearch-url']}/${alias}-*?ignore_unavailable=true&allow_no_indices=true`, {
        method: 'DELETE',
      }).catch(() => undefined);
    }
    if (values['keep-temp']) say(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
