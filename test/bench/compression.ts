// What compression costs and saves on limit=100 pages: the API as production runs it (node
// dist/src/main.js, the bundled 600 fixture grants), once without compression and once per gzip
// level and brotli quality, each driven with autocannon over the same list of limit=100 pages.
// Reports bytes per response on the wire, req/s, latency and the server's CPU µs per request, and
// the load average (the machine is shared; CPU µs/req is the steadier figure).
//
//   npm run bench:compression [-- --duration 5 --connections 10 --levels
//   gzip:1,gzip:4,gzip:6,gzip:9,br:1,br:4,br:6,br:9]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { drive, type LoadResult } from './load.js';
import { createBenchSubscription, freePort, startProcess } from './processes.js';

interface Variant {
  name: string;
  env: Record<string, string>;
  acceptEncoding: string | null;
}

function variantsOf(levels: string): Variant[] {
  const variants: Variant[] = [{ name: 'none', env: { COMPRESSION: 'false' }, acceptEncoding: null }];
  for (const item of levels
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const [coding, level] = item.split(':');
    if (coding === 'gzip')
      variants.push({ name: `gzip ${level}`, env: { COMPRESSION_GZIP_LEVEL: level }, acceptEncoding: 'gzip' });
    else if (coding === 'br')
      variants.push({ name: `br ${level}`, env: { COMPRESSION_BROTLI_QUALITY: level }, acceptEncoding: 'br' });
    else throw new Error(`--levels takes gzip:N and br:N items (got "${item}")`);
  }
  return variants;
}

/** limit=100 pages: every page of the 600 fixture grants in four orders, and two filtered lists. */
const PATHS = ['deadline', 'title', 'amountMax', 'updatedAt']
  .flatMap((sort) => [1, 2, 3, 4, 5, 6].map((page) => `/external/v1/grants?limit=100&page=${page}&sort=${sort}`))
  .concat([
    '/external/v1/grants?limit=100&eligibleProvinces=QUEBEC',
    '/external/v1/grants?limit=100&fundingType=GRANT&facets=funderType,eligibleProvinces',
  ]);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      levels: { type: 'string', default: 'gzip:1,gzip:4,gzip:6,gzip:9,br:1,br:4,br:6,br:9' },
    },
    strict: true,
  });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'grants-bench-compression-'));
  const rows: { variant: Variant; result: LoadResult }[] = [];
  let bodies: Buffer[] = [];
  try {
    const baseEnv = {
      ...process.env,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      SEARCH_ENGINE: 'sqlite',
      REDIS_URL: '',
    };
    const { apiKey } = await createBenchSubscription(baseEnv);
    for (const variant of variantsOf(values.levels)) {
      const port = await freePort();
      const server = await startProcess({
        name: `api-${variant.name.replace(' ', '-')}`,
        args: ['dist/src/main.js'],
        env: { ...baseEnv, ...variant.env, PORT: String(port) },
        port,
        logDir: dataDir,
      });
      try {
        const headers: Record<string, string> = {
          Authorization: `Bearer ${apiKey}`,
          ...(variant.acceptEncoding === null ? {} : { 'Accept-Encoding': variant.acceptEncoding }),
        };
        // Warm-up, then the measured run.
        await drive({
          origin: server.origin,
          paths: PATHS,
          connections: Number(values.connections),
          durationSeconds: 1,
          headers,
        });
        const result = await drive({
          origin: server.origin,
          paths: PATHS,
          connections: Number(values.connections),
          durationSeconds: Number(values.duration),
          headers,
          serverPid: server.pid,
        });
        if (result.errors > 0)
          throw new Error(`${variant.name}: ${result.errors} errors (${JSON.stringify(result.statusCodes)})`);
        rows.push({ variant, result });
        if (variant.acceptEncoding === null)
          bodies = await Promise.all(
            PATHS.map(async (p) => Buffer.from(await (await fetch(server.origin + p, { headers })).arrayBuffer())),
          );
        process.stderr.write(`${variant.name}: ${Math.round(result.rps)} req/s\n`);
      } finally {
        await server.stop();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const plain = rows[0].result;
  const lines = [
    `limit=100 pages (${PATHS.length} URLs, 600 fixture grants), ${values.connections} connections, ` +
      `${values.duration} s each; load average at the end ` +
      `${rows[rows.length - 1].result.loadAverage.toFixed(1)}`,
    '',
    '| encoding | bytes/response | vs none | req/s | p50 ms | p99 ms | server CPU µs/req | load avg |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ variant, result }) =>
      [
        variant.name,
        Math.round(result.bytesPerResponse).toLocaleString('en-US'),
        `${((result.bytesPerResponse / plain.bytesPerResponse) * 100).toFixed(1)} %`,
        Math.round(result.rps).toLocaleString('en-US'),
        result.latencyMs.p50.toFixed(1),
        result.latencyMs.p99.toFixed(1),
        result.serverCpuUsPerRequest === null ? '—' : Math.round(result.serverCpuUsPerRequest).toLocaleString('en-US'),
        result.loadAverage.toFixed(1),
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .replace(/$/, ' |'),
    ),
  ];
  lines.push('', ...compressionAlone(bodies, values.levels));
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The compression alone, in this process, on the same bodies (the uncompressed answers): CPU time
 * per body (the fastest of 5 rounds, so another process's load counts least) and the ratio.
 */
function compressionAlone(bodies: Buffer[], levels: string): string[] {
  const total = bodies.reduce((sum, b) => sum + b.length, 0);
  const out = [
    `compression alone (zlib in one process, the ${bodies.length} uncompressed bodies, ` +
      `${Math.round(total / bodies.length).toLocaleString('en-US')} bytes on average; fastest of 5 rounds)`,
    '',
    '| encoding | bytes/body | vs none | CPU µs/body | MB/s |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const item of levels
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')) {
    const [coding, levelText] = item.split(':');
    const level = Number(levelText);
    const run = (body: Buffer) =>
      (coding === 'gzip'
        ? gzipSync(body, { level })
        : brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: level } })
      ).length;
    let best = Infinity;
    let bytes = 0;
    for (let round = 0; round < 5; round++) {
      const started = process.cpuUsage();
      bytes = bodies.reduce((sum, body) => sum + run(body), 0);
      const used = process.cpuUsage(started);
      best = Math.min(best, used.user + used.system);
    }
    const perBody = best / bodies.length;
    out.push(
      `| ${coding} ${level} | ${Math.round(bytes / bodies.length).toLocaleString('en-US')} | ` +
        `${((bytes / total) * 100).toFixed(1)} % | ${Math.round(perBody).toLocaleString('en-US')} | ` +
        `${Math.round(total / bodies.length / perBody)} |`,
    );
  }
  return out;
}

main().catch((error) => {
  process.stderr.write(`bench:compression failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
