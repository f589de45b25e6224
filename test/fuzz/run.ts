// The large fuzz run: npm run fuzz -- --runs 100000 [--seed N] [--max-minutes M]. Prints the figures (statuses, RSS
// through the run, req/s) and exits 1 on any broken rule, with the shrunk counterexample.
import { parseArgs } from 'node:util';
import { closeFuzzAgent, fuzz, startFuzzServer } from './harness.js';

const RSS_GROWTH_LIMIT_MB = 64;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10000' }, seed: { type: 'string' }, 'max-minutes': { type: 'string' } }, strict: true });
  const maxMinutes = values['max-minutes'] === undefined ? undefined : Number(values['max-minutes']);
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a positive integer (got "${values.runs}")`);
  const server = await startFuzzServer();
  try {
    const startRss = server.rss();
    const report = await fuzz(server, runs, values.seed === undefined ? undefined : Number(values.seed), { timeLimitMs: maxMinutes === undefined ? undefined : maxMinutes * 60_000 });
    const lines = [
      `fuzz: ${report.runs} requests${report.runs < runs ? ` (of ${runs}: stopped by --max-minutes)` : ''} in ${report.seconds} s (${Math.round(report.runs / report.seconds)} req/s), seed ${report.seed}`,
      `statuses: ${Object.entries(report.statuses).map(([status, n]) => `${status}×${n}`).join(' ')}`,
      `server RSS: ${Math.round(startRss / 1048576)} MB at start; every tenth of the run: ${report.rssMb.join(', ')} MB; growth after the first tenth ${report.rssGrowthMb} MB (limit ${RSS_GROWTH_LIMIT_MB})`,
      `alive at the end: ${report.alive}`,
      `result: ${report.failure === null ? 'no rule broken' : `FAILED\n${report.failure}`}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return report.failure === null && report.alive && report.rssGrowthMb < RSS_GROWTH_LIMIT_MB ? 0 : 1;
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
