// `npm run chaos`: the chaos scenario (./scenario.ts) with the long run's durations: 15 s faults, a
// 10 s burst at 10x the load, 500 slow-loris connections. Prints the report as markdown (each long
// run's report goes into the chaos journal, docs/journal/chaos.md) and exits 1 when any
// must-be-zero figure is not zero. CHAOS_SHORT=1 runs the CI variant's parameters instead.
import { elasticsearchInstall } from '../support/elasticsearch.js';
import { failures, formatReport, LONG_RUN, runChaos, SHORT_RUN } from './scenario.js';

// The Elasticsearch install the private node runs from: fetched once if absent (mvn).
const install = elasticsearchInstall(true);
if ('missing' in install) {
  process.stderr.write(`npm run chaos needs an Elasticsearch install: ${install.missing}\n`);
  process.exit(2);
}

const params = process.env.CHAOS_SHORT === '1' ? SHORT_RUN : LONG_RUN;
const report = await runChaos(params);
process.stdout.write(`${formatReport(report)}\n`);
const failed = failures(report);
if (failed.length > 0) {
  process.stdout.write(`\nFAILED:\n${failed.map((f) => `- ${f}`).join('\n')}\n`);
} else {
  process.stdout.write('\nevery must-be-zero figure is zero\n');
}
// Every process the run started is stopped by now; a keep-alive socket or timer must not hold the exit.
process.exit(failed.length > 0 ? 1 : 0);
