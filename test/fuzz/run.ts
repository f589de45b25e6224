// The large fuzz run: npm run fuzz -- --runs 100000 [--seed N] [--max-minutes M] [--heap-snapshots DIR]. Prints the
// figures (statuses, the server's memory through the run, req/s) and exits 1 on any broken rule, with the shrunk
// counterexample, or when memory is not flat.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { closeFuzzAgent, describeMemory, fuzz, startFuzzServer } from './harness.js';

/**
 * The server's heap after a full collection may not grow by this much from the second quarter of
 * the run to the last (medians). A leak of 50 bytes a request fails it over 100,000 requests
 * (2.5 MB between the middles of the two quarters, 50,000 requests apart).
 */
const HEAP_GROWTH_LIMIT_MB = 2;
/** The RSS (workers, SQLite's page caches, the allocator) over the same quarters: a looser bound. */
const RSS_GROWTH_LIMIT_MB = 24;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10000' },
      seed: { type: 'string' },
      'max-minutes': { type: 'string' },
      'heap-snapshots': { type: 'string' },
    },
    strict: true,
  });
  const maxMinutes = values['max-minutes'] === undefined ? undefined : Number(values['max-minutes']);
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a positive integer (got "${values.runs}")`);
  const snapshotDir = values['heap-snapshots'] === undefined ? undefined : path.resolve(values['heap-snapshots']);
  // Writing a snapshot stops the event loop for seconds: the overload check would shed requests meanwhile.
  const server = await startFuzzServer(snapshotDir === undefined ? {} : { OVERLOAD_EVENT_LOOP_DELAY_MS: '0' });
  try {
    const report = await fuzz(server, runs, values.seed === undefined ? undefined : Number(values.seed), {
      timeLimitMs: maxMinutes === undefined ? undefined : maxMinutes * 60_000,
      snapshotDir,
    });
    const lines = [
      `fuzz: ${report.runs} ` +
        'requests' +
        (report.runs < runs
          ? ` (of ${runs}: ${report.failure === null ? 'stopped by --max-minutes' : 'stopped at the failure'})`
          : '') +
        ' ' +
        `in ${report.seconds} s (${Math.round(report.runs / report.seconds)} req/s), seed ${report.seed}`,
      `statuses: ${Object.entries(report.statuses)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ')}`,
      describeMemory(report),
      `memory flat: heap ${report.heapGrowthMb} MB (limit ${HEAP_GROWTH_LIMIT_MB}), rss ` +
        `${report.rssGrowthMb} MB (limit ${RSS_GROWTH_LIMIT_MB})`,
      `alive at the end: ${report.alive}`,
      `key in the log: ${report.keyLines.length} line(s), of ${report.keyPaths} requests with the key ` +
        `spelled in their ` +
        `path${report.keyLines.length === 0 ? '' : `\n${report.keyLines.slice(0, 5).join('\n')}`}`,
      `result: ${report.failure === null ? 'no rule broken' : `FAILED\n${report.failure}`}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    // Too short a run to have samples in both quarters is not judged on memory.
    const flat = (report.heapGrowthMb ?? 0) < HEAP_GROWTH_LIMIT_MB && (report.rssGrowthMb ?? 0) < RSS_GROWTH_LIMIT_MB;
    return report.failure === null && report.alive && flat && report.keyLines.length === 0 ? 0 : 1;
  } finally {
    closeFuzzAgent();
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`fuzz failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
