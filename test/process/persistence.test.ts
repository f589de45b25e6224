// Usage counts and the usage log survive restarts and a SIGTERM under load; the first start
// prints the demo key (src/main.ts).
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runAdmin } from '../../src/cli/admin.js';
import { REPO_ROOT, startTestApi, tempDir } from '../support/api.js';
import { API_PREFIX as P, writeTinyCatalog } from '../support/catalog.js';
import { freePort } from '../support/processes.js';
import { checkedExchange } from '../support/checkedFetch.js';

const GRANT_IDS = ['p-1', 'p-2', 'p-3', 'p-4'];

const subscriptionsFile = (dataDir: string) => path.join(dataDir, 'subscriptions.sqlite');

describe('persistence: restarts, graceful stop, SIGTERM under load', function () {
  this.timeout(30_000);
  let workDir: string;
  let seedFile: string;

  before(function () {
    workDir = tempDir('grants-persist-');
    seedFile = writeTinyCatalog(workDir, GRANT_IDS);
  });
  after(function () {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('currentMonth.calls and the statistics survive a restart on the same DATA_DIR', async function () {
    const dataDir = mkdtempSync(path.join(workDir, 'restart-'));
    const first = await startTestApi({ DATA_DIR: dataDir, SEED_FILE: seedFile });
    const key = first.key;
    try {
      for (const p of ['/grants', '/grants/p-1', '/grants/filters', '/grants/nope', '/grants?limit=-1'])
        await first.request(`${P}${p}`, { invalidRequest: p.endsWith('limit=-1') });
      await first.request(`${P}/subscription/limits`);
      const before = await first.request(`${P}/subscription/usage`);
      expect(before.body.data.currentMonth.calls).to.equal(5);
      expect(before.body.data.statistics.totalCalls).to.equal(6);
    } finally {
      await first.stop();
    }
    const second = await startTestApi({ DATA_DIR: dataDir, SEED_FILE: seedFile });
    try {
      const after = await second.request(`${P}/subscription/usage`, { key });
      expect(after.status, after.text).to.equal(200);
      expect(after.body.data.currentMonth.calls).to.equal(5);
      // The 6 calls before and the usage call answered just before the stop.
      expect(after.body.data.statistics.totalCalls).to.equal(7);
      const limits = await second.request(`${P}/subscription/limits`, { key });
      expect(limits.body.data.limits.monthly.current).to.equal(5);
      expect((await second.request(`${P}/grants`, { key })).status).to.equal(200);
      const again = await second.request(`${P}/subscription/limits`, { key });
      expect(again.body.data.limits.monthly.current).to.equal(6);
    } finally {
      await second.stop();
    }
  });

  it('a graceful stop flushes every buffered usage row', async function () {
    const dataDir = mkdtempSync(path.join(workDir, 'flush-'));
    const api = await startTestApi({ DATA_DIR: dataDir, SEED_FILE: seedFile });
    const subscriptionId = api.subscriptionId;
    const statuses: number[] = [];
    try {
      // Faster than the flush interval: most rows are still buffered when stop() is called.
      const paths = ['/grants', '/grants/p-2', '/grants/filters', '/subscription/limits', '/grants/none', '/nope'];
      for (let round = 0; round < 5; round += 1) {
        const batch = await Promise.all(paths.map((p) => api.request(`${P}${p}`, { invalidRequest: p === '/nope' })));
        statuses.push(...batch.map((r) => r.status));
      }
    } finally {
      await api.stop();
    }
    expect(statuses).to.have.length(30);
    const db = new Database(subscriptionsFile(dataDir), { readonly: true });
    try {
      const rows = db
        .prepare(
          'SELECT status, count(*) AS n FROM usage_log WHERE subscription_id = ? GROUP BY status ORDER BY status',
        )
        .all(subscriptionId);
      expect(rows).to.deep.equal([
        { status: 200, n: 20 },
        { status: 404, n: 10 },
      ]);
      const billable = db
        .prepare('SELECT count(*) FROM usage_log WHERE subscription_id = ? AND billable = 1')
        .pluck()
        .get(subscriptionId);
      expect(billable).to.equal(20);
      const monthly = db
        .prepare('SELECT sum(calls) FROM monthly_usage WHERE subscription_id = ?')
        .pluck()
        .get(subscriptionId);
      expect(monthly).to.equal(20);
    } finally {
      db.close();
    }
  });

  it('two API instances on one DATA_DIR share the monthly allowance exactly: 2 × 25 concurrent calls, 20 left → 20 served', async function () {
    const dataDir = mkdtempSync(path.join(workDir, 'shared-'));
    const a = await startTestApi({ DATA_DIR: dataDir, SEED_FILE: seedFile });
    const b = await startTestApi({ DATA_DIR: dataDir, SEED_FILE: seedFile });
    try {
      a.deps.subscriptions.setLimits(a.subscriptionId, { monthlyLimit: 25 });
      for (let i = 0; i < 5; i += 1) expect((await a.request(`${P}/grants`)).status).to.equal(200);
      const responses = await Promise.all([
        ...Array.from({ length: 25 }, () => a.request(`${P}/grants/p-1`, { key: a.key })),
        ...Array.from({ length: 25 }, () => b.request(`${P}/grants/p-1`, { key: a.key })),
      ]);
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(20);
      expect(statuses.filter((s) => s === 429)).to.have.length(30);
      for (const res of responses.filter((r) => r.status === 429))
        expect(res.body.error.code).to.equal('QUOTA_EXCEEDED');
      for (const api of [a, b]) {
        const limits = await api.request(`${P}/subscription/limits`, { key: a.key });
        expect(limits.body.data.limits.monthly).to.include({ limit: 25, current: 25, remaining: 0 });
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  describe('the real server process', function () {
    const DEMO_KEY = 'gk_live_persistDemoKey0123456789abcdefAB';
    let child: ChildProcess | undefined;

    afterEach(function () {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      child = undefined;
    });

    it('SIGTERM under load: exit 0; every answered request is in usage_log; monthly calls = billable 200s; the first start printed the demo key and a curl line on stderr', async function () {
      expect(DEMO_KEY).to.have.length(40);
      const dataDir = mkdtempSync(path.join(workDir, 'sigterm-'));
      const port = await freePort();
      let stdout = '';
      let stderr = '';
      const proc = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          // This test is about the SQLite record; a shared Redis would carry the per-second
          // window over from the first process to the second (as it should) and refuse its check.
          REDIS_URL: '',
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          DEMO_API_KEY: DEMO_KEY,
          SEED_FILE: seedFile,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        proc.once('exit', (code, signal) => resolve({ code, signal })),
      );
      proc.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));

      // Ready when the curl line is printed on the terminal (stderr; it follows listen()).
      const started = Date.now();
      while (!/curl .*\n/.test(stderr)) {
        if (proc.exitCode !== null) throw new Error(`server exited early (${proc.exitCode}): ${stderr}${stdout}`);
        if (Date.now() - started > 15_000) throw new Error(`server did not start: ${stderr}${stdout}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const lines = stderr.split('\n');
      expect(
        lines.map((l) => l.trim()),
        stderr,
      ).to.include(DEMO_KEY);
      const curl = lines.find((l) => l.includes('curl '));
      expect(curl).to.contain(`Authorization: Bearer ${DEMO_KEY}`);
      expect(curl).to.contain(`:${port}/external/v1/grants`);
      const demoId = /demo PROFESSIONAL subscription was created \((sub_[A-Za-z0-9_-]+)\)/.exec(stderr)?.[1];
      expect(demoId, stderr).to.be.a('string');
      // A higher rate (set with grants-admin on the live database) so most requests are served
      // and some are still refused: both kinds must be logged.
      const quiet = { out: () => {}, err: () => {} };
      expect(
        await runAdmin(
          ['subscription', 'set-limits', demoId!, '--rate-limit', '80'],
          { ...process.env, DATA_DIR: dataDir },
          quiet,
        ),
      ).to.equal(0);

      const base = `http://127.0.0.1:${port}`;
      const billablePaths = ['/grants', '/grants/p-1', '/grants/filters', '/grants?limit=5'];
      const freePaths = ['/subscription/usage', '/subscription/limits'];
      const plan = Array.from({ length: 300 }, (_, i) =>
        i % 3 === 2 ? freePaths[i % 2] : billablePaths[i % billablePaths.length],
      );
      let next = 0;
      let answered = 0;
      let billable200 = 0;
      let failed = 0;
      let signalled = false;
      const statuses: Record<number, number> = {};
      const worker = async () => {
        while (next < plan.length) {
          const p = plan[next++];
          try {
            // The request and its answer checked against the OpenAPI document, 503s of the shutdown included.
            const res = await checkedExchange(`${base}${P}${p}`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } });
            answered += 1;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            if (res.status === 200 && !p.startsWith('/subscription')) billable200 += 1;
          } catch (error) {
            // A connection the stopping server refused or cut (fetch's TypeError); a failed check fails the test.
            if (!(error instanceof TypeError)) throw error;
            failed += 1;
          }
          if (!signalled && answered >= 100) {
            signalled = true;
            proc.kill('SIGTERM');
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(signalled).to.equal(true);
      const exit = await exited;
      expect(exit, stderr).to.deep.equal({ code: 0, signal: null });
      expect(answered + failed).to.equal(300);
      expect(answered).to.be.at.least(100);

      const db = new Database(subscriptionsFile(dataDir), { readonly: true });
      try {
        const logged = db.prepare('SELECT count(*) FROM usage_log').pluck().get();
        const calls = db.prepare('SELECT sum(calls) FROM monthly_usage').pluck().get();
        const loggedBillable = db.prepare('SELECT count(*) FROM usage_log WHERE billable = 1').pluck().get();
        const detail = `answered ${answered}, failed ${failed}, statuses ${JSON.stringify(statuses)}`;
        if (process.env.PERSIST_DEBUG) console.log(detail, logged, calls);
        expect(logged, detail).to.equal(answered);
        expect(calls, detail).to.equal(billable200);
        expect(loggedBillable, detail).to.equal(billable200);
        expect(db.prepare('SELECT count(*) FROM subscriptions').pluck().get()).to.equal(1);
        expect(db.prepare('SELECT key_hash FROM api_keys').pluck().all()).to.deep.equal([
          createHash('sha256').update(DEMO_KEY).digest('hex'),
        ]);
      } finally {
        db.close();
      }
      // The demo key itself is stored nowhere in the database files.
      for (const file of readdirSync(dataDir).filter((f) => f.startsWith('subscriptions.sqlite'))) {
        expect(readFileSync(path.join(dataDir, file)).includes(DEMO_KEY), file).to.equal(false);
      }

      // A second start on the same DATA_DIR creates no demo subscription and prints no key.
      let stdout2 = '';
      let stderr2 = '';
      const port2 = await freePort();
      const again = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          REDIS_URL: '',
          DATA_DIR: dataDir,
          PORT: String(port2),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          DEMO_API_KEY: DEMO_KEY,
          SEED_FILE: seedFile,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = again;
      const exited2 = new Promise<number | null>((resolve) => again.once('exit', (code) => resolve(code)));
      again.stdout!.on('data', (chunk: Buffer) => (stdout2 += chunk.toString('utf8')));
      again.stderr!.on('data', (chunk: Buffer) => (stderr2 += chunk.toString('utf8')));
      const started2 = Date.now();
      while (!stdout2.includes('grants API listening')) {
        if (again.exitCode !== null) throw new Error(`second start exited early: ${stdout2}`);
        if (Date.now() - started2 > 15_000) throw new Error(`second start did not listen: ${stdout2}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const { body } = await checkedExchange(`http://127.0.0.1:${port2}${P}/subscription/limits`, {
        headers: { Authorization: `Bearer ${DEMO_KEY}` },
      });
      expect(body.data.subscription.tier).to.equal('PROFESSIONAL');
      expect(body.data.limits.monthly.current).to.equal(billable200);
      again.kill('SIGTERM');
      expect(await exited2).to.equal(0);
      expect(stdout2 + stderr2).not.to.contain(DEMO_KEY);
      expect(stdout2 + stderr2).not.to.contain('curl ');
    });
  });
});
