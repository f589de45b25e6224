// Fuzzing, the small count run by `npm test`: generated requests across every
// endpoint of the route table against the API as production runs it. The large count is
// `npm run fuzz -- --runs 100000` (test/fuzz/run.ts); figures in docs/journal/bench.md.
import { expect } from 'chai';
import { closeFuzzAgent, describeMemory, fuzz, startFuzzServer, type FuzzServer } from './harness.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
/**
 * Looser than the large run's bounds (test/fuzz/run.ts): over 1,000 requests the second quarter
 * is still close to the warm-up. Heap after a full collection, last quarter vs second (medians):
 * a leak of 16 KB a request (a kept response, a body) fails it.
 */
const HEAP_GROWTH_LIMIT_MB = 8;
const RSS_GROWTH_LIMIT_MB = 64;

describe('fuzzing: generated requests across every endpoint (fast-check)', function () {
  this.timeout(120_000);
  let server: FuzzServer;

  before(async function () {
    server = await startFuzzServer();
  });
  after(async function () {
    closeFuzzAgent();
    await server?.stop();
  });

  it(`${RUNS} requests: never a 5xx, always the envelope and the document, the server alive, memory flat, no key in the log`, async function () {
    const report = await fuzz(server, RUNS);
    if (report.failure !== null) expect.fail(`a rule broken (seed ${report.seed}):\n${report.failure}`);
    expect(report.runs).to.equal(RUNS);
    expect(report.alive, 'the server answers /healthz after the run').to.equal(true);
    // The valid key, written into paths in every case and encoding, never reaches the log.
    expect(report.keyPaths, 'requests with the key in their path').to.be.above(0);
    expect(report.keyLines, 'log lines holding the key').to.deep.equal([]);
    expect(report.heapGrowthMb, `samples in the second and last quarters\n${describeMemory(report)}`).to.be.a('number');
    expect(report.heapGrowthMb, describeMemory(report)).to.be.below(HEAP_GROWTH_LIMIT_MB);
    expect(report.rssGrowthMb, describeMemory(report)).to.be.below(RSS_GROWTH_LIMIT_MB);
    // The generator reaches past the happy path: successes, 304s, refusals and validation errors all occur.
    const seen = Object.keys(report.statuses).map(Number);
    expect(seen).to.include.members([200, 400, 401, 404, 405]);
  });
});
