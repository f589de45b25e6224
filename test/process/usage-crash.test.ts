// No usage record is lost when the API process dies without warning (docs/operations.md, "What a crash
// keeps"): a real API process (node dist/src/main.js) under 8 connections of load is SIGKILLed,
// then started again on the same store, and the statistics it reports must count every answer the
// client received. The month's count is never under what was served, and over it by at most the
// requests in flight at the kill (counted at admission, their answers lost with the process).
// Once on the embedded SQLite store, once on PostgreSQL (a database of the test's own).
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeTinyCatalog } from '../support/catalog.js';
import { createSubscription, startInstance, type FleetInstance } from '../support/fleet.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';

const P = '/external/v1';
const CONNECTIONS = 8;
/** Answers served before the kill (at least; the kill comes once that many are in). */
const SERVED_BEFORE_KILL = 400;

interface Crash {
  served: number;
  failed: number;
  /** currentMonth.calls and statistics after the restart. */
  monthCalls: number;
  totalCalls: number;
  byIdCalls: number;
}

/**
 * Starts an instance, loads it with CONNECTIONS loops of GET /grants/:id, SIGKILLs it once
 * SERVED_BEFORE_KILL answers are in, starts it again on the same store and reads the usage.
 */
async function crashUnderLoad(env: Record<string, string>, workDir: string, dataDir: string): Promise<Crash> {
  const running: FleetInstance[] = [];
  try {
    const first = await startInstance('crash', { env, workDir, dataDir });
    running.push(first);
    const { apiKey } = await createSubscription({ ...env, DATA_DIR: dataDir }, workDir, [
      '--name',
      'crash',
      '--tier',
      'ENTERPRISE',
      '--rate-limit',
      '100000',
    ]);
    let served = 0;
    let failed = 0;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        try {
          const answer = await first.request(`${P}/grants/g-${1 + (served % 3)}`, apiKey);
          if (answer.status !== 200) throw new Error(`unexpected ${answer.status}: ${JSON.stringify(answer.body)}`);
          served += 1;
        } catch (error) {
          if (!killed) throw error;
          failed += 1;
        }
        if (!killed && served >= SERVED_BEFORE_KILL) {
          killed = true;
          first.process.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    expect(await first.process.exited).to.deep.equal({ code: null, signal: 'SIGKILL' });

    const second = await startInstance('restart', { env, workDir, dataDir });
    running.push(second);
    const usage = await second.request(`${P}/subscription/usage`, apiKey);
    expect(usage.status, JSON.stringify(usage.body)).to.equal(200);
    const { currentMonth, statistics } = usage.body.data;
    const byId = (statistics.topEndpoints as { endpoint: string; calls: number }[]).find(
      (e) => e.endpoint === '/grants/:id',
    );
    return {
      served,
      failed,
      monthCalls: currentMonth.calls,
      totalCalls: statistics.totalCalls,
      byIdCalls: byId?.calls ?? 0,
    };
  } finally {
    for (const api of running) api.process.kill();
    await Promise.allSettled(running.map((api) => api.process.exited));
  }
}

function expectNothingLost(crash: Crash): void {
  const detail = JSON.stringify(crash);
  if (process.env.CRASH_DEBUG) console.log(detail);
  // Every answer received has its usage row; rows beyond them are answers lost in flight.
  expect(crash.totalCalls, detail).to.equal(crash.byIdCalls);
  expect(crash.byIdCalls, `usage rows lost: ${detail}`).to.be.at.least(crash.served);
  expect(crash.byIdCalls, detail).to.be.at.most(crash.served + CONNECTIONS);
  // The month's count: never under what was served, over by at most the requests in flight.
  expect(crash.monthCalls, detail).to.be.at.least(crash.served);
  expect(crash.monthCalls, detail).to.be.at.most(crash.served + CONNECTIONS);
  // A usage row is written when the answer is ready, the count at admission: never more rows than counted calls.
  expect(crash.byIdCalls, detail).to.be.at.most(crash.monthCalls);
}

describe('crash: SIGKILL under load loses no usage record', function () {
  this.timeout(120_000);
  let workDir: string;
  let seedFile: string;

  before(function () {
    workDir = mkdtempSync(path.join(tmpdir(), 'grants-crash-'));
    seedFile = writeTinyCatalog(workDir);
  });
  after(function () {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('SQLite (the embedded default): every answer received is in the statistics after a restart; the month count over by at most the in-flight requests', async function () {
    const dataDir = mkdtempSync(path.join(workDir, 'sqlite-'));
    const crash = await crashUnderLoad({ SEED_FILE: seedFile, REDIS_URL: '' }, workDir, dataDir);
    expectNothingLost(crash);
  });

  describeWithPostgres('PostgreSQL', function () {
    let database: TestDatabase | undefined;
    after(async function () {
      await database?.drop();
    });

    it('PostgreSQL: every answer received is in the statistics after a restart; the month count over by at most the in-flight requests', async function () {
      database = await createTestDatabase('crash');
      const dataDir = mkdtempSync(path.join(workDir, 'pg-'));
      const crash = await crashUnderLoad(
        { SEED_FILE: seedFile, REDIS_URL: '', DATABASE_URL: database.url },
        workDir,
        dataDir,
      );
      expectNothingLost(crash);
    });
  });
});
