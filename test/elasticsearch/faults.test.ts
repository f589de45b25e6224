// Elasticsearch faults as partners and operators meet them: a missing alias at start-up (the
// real process, its log), a hung node (SIGSTOP) and a killed node (SIGKILL, then restarted with
// its data kept). Grant endpoints answer 503 SERVICE_UNAVAILABLE with Retry-After within the
// timeout, never hang and never 500, and the API serves again by itself once the node is back.
// The node is always resumed and, if need be, restarted before the suite ends.
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runIndexer } from '../../indexer/cli.js';
import { FIXTURES, REPO_ROOT, startTestApi, type TestApi, type TestResponse } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, uniqueAlias } from '../support/elasticsearch.js';
import { checkedExchange } from '../support/checkedFetch.js';

const G = '/external/v1/grants';
const SERVICES = path.join(REPO_ROOT, 'scripts/services.sh');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isElasticsearch = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('org.elasticsearch');
  } catch {
    return false;
  }
};

/** The pid of the running node: the pid file services.sh recorded, else pgrep. */
function elasticsearchPid(): number {
  const candidates: string[] = [];
  const state = path.join(REPO_ROOT, '.cache/elasticsearch/running');
  if (existsSync(state)) {
    const pidfile = /^pidfile=(.*)$/m.exec(readFileSync(state, 'utf8'))?.[1];
    if (pidfile !== undefined) candidates.push(pidfile);
  }
  for (const base of [path.join(REPO_ROOT, '.cache/elasticsearch'), '/var/cache/grants-api-elasticsearch']) {
    candidates.push(path.join(base, '9.5.4/run/elasticsearch.pid'));
  }
  for (const file of candidates) {
    const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN;
    if (Number.isInteger(pid) && pid > 0 && isElasticsearch(pid)) return pid;
  }
  const found = execFileSync('pgrep', ['-f', 'org.elasticsearch.bootstrap'], { encoding: 'utf8' })
    .split('\n')
    .map(Number)
    .filter((pid) => pid > 0 && isElasticsearch(pid));
  if (found.length !== 1) throw new Error(`expected one Elasticsearch process, found ${found.length}`);
  return found[0];
}

async function elasticsearchHealthy(): Promise<boolean> {
  try {
    const res = await fetch(`${ES_URL}/_cluster/health`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json()) as { status?: string };
    return body.status === 'green' || body.status === 'yellow';
  } catch {
    return false;
  }
}

/**
 * The services.sh of the checkout whose installation runs the node (its working directory is
 * `<checkout>/.cache/elasticsearch/<version>/elasticsearch-<version>`): restarting with another
 * checkout's script would start another installation with other (empty) data. A node from the
 * machine-wide fallback cache, or one not found, is restarted with this checkout's script.
 */
function servicesScriptOf(pid: number): string {
  try {
    for (let dir = readlinkSync(`/proc/${pid}/cwd`); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const script = path.join(dir, 'scripts/services.sh');
      if (existsSync(script)) return script;
    }
  } catch {
    // no such process: fall through
  }
  return SERVICES;
}

/** The script that started the node the tests use (found before they stop or kill it). */
let nodeServices = SERVICES;

/** `ES_KEEP_DATA=1 bash scripts/services.sh start elasticsearch`; resolves with its exit code and output. */
function startElasticsearch(script: string = nodeServices): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, 'start', 'elasticsearch'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ES_KEEP_DATA: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), 170_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

/** Whatever a test did to the node: resume it, and restart it (data kept) if it still does not answer. */
async function ensureElasticsearchUp(): Promise<void> {
  if (await elasticsearchHealthy()) return;
  try {
    process.kill(elasticsearchPid(), 'SIGCONT');
  } catch {
    // not running (or not found): restarted below
  }
  for (let i = 0; i < 10; i += 1) {
    if (await elasticsearchHealthy()) return;
    await sleep(500);
  }
  const { code, log } = await startElasticsearch();
  if (code !== 0 || !(await elasticsearchHealthy())) throw new Error(`could not bring Elasticsearch back:\n${log}`);
}

/** A request timed by the caller. */
async function timed(api: TestApi, pathAndQuery: string): Promise<TestResponse & { ms: number }> {
  const t0 = performance.now();
  const res = await api.request(pathAndQuery);
  return { ...res, ms: performance.now() - t0 };
}

function expectUnavailable(res: TestResponse & { ms: number }, what: string, withinMs: number): void {
  expect(res.status, `${what}: ${res.text}`).to.equal(503);
  expect(res.body?.success, what).to.equal(false);
  expect(res.body?.error?.code, what).to.equal('SERVICE_UNAVAILABLE');
  expect(res.headers.get('retry-after'), `${what}: Retry-After`).to.match(/^[1-9]\d*$/);
  expect(res.ms, `${what}: answered in ${Math.round(res.ms)} ms`).to.be.below(withinMs);
}

/** Polls until the API answers 200 on a path; returns the milliseconds it took. */
async function until200(api: TestApi, pathAndQuery: string, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  let last = '';
  while (Date.now() - t0 < timeoutMs) {
    const res = await api.request(pathAndQuery);
    if (res.status === 200) return Date.now() - t0;
    expect(res.status, `while recovering: ${res.text}`).to.equal(503);
    last = res.text;
    await sleep(200);
  }
  throw new Error(`the API did not serve ${pathAndQuery} within ${timeoutMs} ms (last: ${last})`);
}

// ------------------------------------------------------------------------------------------------

interface MainProcess {
  child: ChildProcess;
  /** Parsed JSON log lines on stdout so far. */
  logs: Record<string, unknown>[];
  url: string;
  key: string;
  get(pathAndQuery: string): Promise<TestResponse>;
  stop(): Promise<void>;
}

/** Starts `node dist/src/main.js` on a free port; resolves once it logs that it listens. */
function startMain(env: Record<string, string>): Promise<MainProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'es-faults-main-'));
  const key = `faults_${'k'.repeat(40)}`;
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js')], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO_API_KEY: key,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let buffered = '';
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API did not start within 60 s; stderr: ${stderr}`)), 60_000);
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('exit', (code) => reject(new Error(`the API exited with ${code} at start-up: ${stderr}`)));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buffered += d;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'grants API listening') {
          clearTimeout(timer);
          const url = String(entry.url).replace(/\/external\/v1\/grants$/, '');
          resolve({
            child,
            logs,
            url,
            key,
            async get(pathAndQuery) {
              // The request and its answer (503s of the outage included) checked against the OpenAPI document.
              return checkedExchange(url + pathAndQuery, { headers: { Authorization: `Bearer ${key}` } });
            },
            async stop() {
              if (!exited) child.kill('SIGTERM');
              await Promise.race([exit, sleep(15_000)]);
              if (!exited) child.kill('SIGKILL');
              rmSync(dataDir, { recursive: true, force: true });
            },
          });
        }
      }
    });
  });
}

describeWithElasticsearch('Elasticsearch faults', function () {
  this.timeout(200_000);

  describe('start-up on a missing alias (the real process)', () => {
    const aliases: string[] = [];
    const running: MainProcess[] = [];
    let dir: string;

    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'es-faults-'));
    });
    after(async () => {
      for (const main of running) await main.stop();
      for (const alias of aliases) await dropAlias(alias);
      rmSync(dir, { recursive: true, force: true });
    });

    it('with SEED_CATALOG=false: starts, logs to run grants-indexer reindex, answers 503 without internals, then serves once indexed', async () => {
      const alias = uniqueAlias();
      aliases.push(alias);
      const main = await startMain({
        SEARCH_ENGINE: 'elasticsearch',
        ELASTICSEARCH_URL: ES_URL as string,
        ELASTICSEARCH_INDEX: alias,
        SEED_CATALOG: 'false',
      });
      running.push(main);

      const hint = main.logs.find((l) => typeof l.msg === 'string' && l.msg.includes('grants-indexer reindex'));
      expect(hint, JSON.stringify(main.logs)).to.not.equal(undefined);
      expect(hint?.level).to.be.oneOf(['warn', 'error']);
      expect(hint?.msg).to.include(`"${alias}"`);
      expect(
        main.logs.some((l) => l.msg === 'fixtures indexed'),
        'nothing was seeded',
      ).to.equal(false);

      for (const p of [`${G}?limit=5`, `${G}?search=water`, `${G}/grt_718eda04`, `${G}/filters`]) {
        const t0 = performance.now();
        const res = await main.get(p);
        expectUnavailable({ ...res, ms: performance.now() - t0 }, p, 2000);
        // The partner learns nothing of the engine, the alias or the operator's remedy.
        expect(res.body.error.message, p).to.not.match(
          /elastic|alias|index|reindex|exception|not_found|grants-indexer|\bat\s/i,
        );
        expect(res.text, p).to.not.include(alias);
        expect(res.text, p).to.not.match(/index_not_found|stack/i);
      }
      expect(await startedNoNewIndex(alias)).to.equal(true);

      // The operator runs the indexer: the same process serves, without a restart.
      const source = path.join(dir, 'one.ndjson');
      writeFileSync(
        source,
        `${JSON.stringify({
          id: 'late-1',
          title: 'Late arrival',
          funder: 'Ops',
          funderType: 'FOUNDATION',
          fundingType: 'GRANT',
          currency: 'CAD',
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        })}\n`,
      );
      const code = await runIndexer(
        ['reindex', '--source', source],
        {
          ...process.env,
          SEARCH_ENGINE: 'elasticsearch',
          ELASTICSEARCH_URL: ES_URL as string,
          ELASTICSEARCH_INDEX: alias,
        },
        { out: () => {}, err: () => {} },
      );
      expect(code).to.equal(0);
      const res = await main.get(`${G}?limit=5`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.pagination.total).to.equal(1);
      expect(res.body.data[0].id).to.equal('late-1');
    });

    it('with SEED_CATALOG on (the default): the missing alias is created and seeded from the fixtures', async () => {
      const alias = uniqueAlias();
      aliases.push(alias);
      const main = await startMain({
        SEARCH_ENGINE: 'elasticsearch',
        ELASTICSEARCH_URL: ES_URL as string,
        ELASTICSEARCH_INDEX: alias,
      });
      running.push(main);
      const fixtureCount = readFileSync(FIXTURES, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length;
      const seeded = main.logs.find((l) => l.msg === 'fixtures indexed');
      expect(seeded, JSON.stringify(main.logs)).to.include({ indexed: fixtureCount, rejected: 0 });
      const res = await main.get(`${G}?limit=1`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.pagination.total).to.equal(fixtureCount);
      const aliasRes = await fetch(`${ES_URL}/_alias/${alias}`);
      const targets = Object.keys((await aliasRes.json()) as object);
      expect(targets).to.have.length(1);
      expect(targets[0]).to.match(new RegExp(`^${alias}-\\d{8}t\\d{9}-[0-9a-f]{4}$`));
    });
  });

  describe('a hung node, then a killed node', () => {
    const alias = uniqueAlias();
    let api: TestApi | undefined;
    let sample: { total: number; ids: string[]; one: unknown; filters: unknown };
    let stoppedPid: number | null = null;

    before(async function () {
      if (!(await elasticsearchHealthy())) await ensureElasticsearchUp();
      // Seeded from the fixtures (SEED_CATALOG defaults to on).
      api = await startTestApi({
        SEARCH_ENGINE: 'elasticsearch',
        ELASTICSEARCH_URL: ES_URL as string,
        ELASTICSEARCH_INDEX: alias,
        ELASTICSEARCH_TIMEOUT_MS: '1000',
      });
      const page = await api.request(`${G}?limit=100`);
      expect(page.status, page.text).to.equal(200);
      const ids = page.body.data.map((g: { id: string }) => g.id);
      const one = await api.request(`${G}/${ids[0]}`);
      const filters = await api.request(`${G}/filters`);
      sample = { total: page.body.pagination.total, ids, one: one.body.data, filters: filters.body.data };
      expect(sample.total).to.be.greaterThan(100);
    });

    afterEach(async () => {
      // Never leave the node stopped, whatever happened.
      if (stoppedPid !== null) {
        try {
          process.kill(stoppedPid, 'SIGCONT');
        } catch {
          // gone
        }
        stoppedPid = null;
      }
    });

    after(async () => {
      await api?.stop();
      await ensureElasticsearchUp();
      await dropAlias(alias);
    });

    it('hung (SIGSTOP): grant endpoints answer 503 with Retry-After within ~2 s, /readyz 503; after SIGCONT it serves again by itself', async () => {
      const live = api as TestApi;
      const pid = elasticsearchPid();
      nodeServices = servicesScriptOf(pid);
      process.kill(pid, 'SIGSTOP');
      stoppedPid = pid;
      try {
        for (const p of [`${G}?limit=5`, `${G}?search=quebec`, `${G}/${sample.ids[0]}`, `${G}/filters`]) {
          expectUnavailable(await timed(live, p), p, 2000);
        }
        // Several at once, each still within the timeout.
        const burst = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => timed(live, `${G}?limit=1&page=${i + 1}`)));
        burst.forEach((res, i) => expectUnavailable(res, `concurrent request ${i}`, 2000));
        const ready = await timed(live, '/readyz');
        expect(ready.status, ready.text).to.equal(503);
        expect(ready.ms).to.be.below(2000);
        expect(ready.headers.get('retry-after')).to.match(/^\d+$/);
        // Liveness does not depend on the engine.
        expect((await timed(live, '/healthz')).status).to.equal(200);
      } finally {
        process.kill(pid, 'SIGCONT');
        stoppedPid = null;
      }
      const took = await until200(live, `${G}?limit=100`, 10_000);
      expect(took, 'recovered within a few seconds').to.be.below(5000);
      const page = await live.request(`${G}?limit=100`);
      expect(page.body.pagination.total).to.equal(sample.total);
      expect(page.body.data.map((g: { id: string }) => g.id)).to.deep.equal(sample.ids);
      expect((await live.request('/readyz')).status).to.equal(200);
    });

    it('killed (SIGKILL): 503 at once; restarted with its data, the same API serves the same catalog again', async function () {
      this.timeout(200_000);
      const live = api as TestApi;
      const pid = elasticsearchPid();
      nodeServices = servicesScriptOf(pid);
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 50 && isElasticsearch(pid); i += 1) await sleep(100);
      expect(isElasticsearch(pid), 'the node is gone').to.equal(false);

      for (const p of [`${G}?limit=5`, `${G}?search=quebec`, `${G}/${sample.ids[0]}`, `${G}/filters`]) {
        // Connection refused: no need to wait for the timeout.
        expectUnavailable(await timed(live, p), p, 1000);
      }
      const ready = await timed(live, '/readyz');
      expect(ready.status).to.equal(503);

      const restart = await startElasticsearch();
      expect(restart.code, restart.log).to.equal(0);
      expect(await elasticsearchHealthy()).to.equal(true);

      await until200(live, `${G}?limit=100`, 60_000);
      const page = await live.request(`${G}?limit=100`);
      expect(page.body.pagination.total).to.equal(sample.total);
      expect(page.body.data.map((g: { id: string }) => g.id)).to.deep.equal(sample.ids);
      expect((await live.request(`${G}/${sample.ids[0]}`)).body.data).to.deep.equal(sample.one);
      expect((await live.request(`${G}/filters`)).body.data).to.deep.equal(sample.filters);
      expect((await live.request('/readyz')).status).to.equal(200);
    });
  });
});

/** True when the alias has no index at all (a start-up without seeding creates none). */
async function startedNoNewIndex(alias: string): Promise<boolean> {
  const res = await fetch(`${ES_URL}/_cat/indices/${alias}-*?format=json`);
  return ((await res.json()) as unknown[]).length === 0;
}
