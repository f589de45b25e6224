// Starting the real server process (node dist/src/main.js): a start that fails creates nothing and
// says so in one sentence; the demo key goes to the terminal, never into the log; a demo key that
// was never shown is announced with the command that makes a new one.
import { expect } from 'chai';
import Koa from 'koa';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log.js';
import { listen } from '../../src/server.js';
import { openSubscriptionsDb, subscriptionsPath } from '../../src/subscriptions/sqlite/database.js';
import { DemoSubscription } from '../../src/subscriptions/sqlite/demo.js';
import { SqliteSteps } from '../../src/subscriptions/sqlite/steps.js';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { API_PREFIX as P, writeTinyCatalog } from '../support/catalog.js';
import { freePort, holdPort, killTree, launch, type Launched } from '../support/processes.js';
import { checkedExchange } from '../support/checkedFetch.js';

const READY = /"msg":"grants API listening"/;
const KEY = /^ {2}(gk_live_[A-Za-z0-9_-]{32,})$/m;

/** The lines of a text, without the empty ones. */
const linesOf = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');

/** A start-up failure as the issue asks for it: one line, plain words, no JSON and no stack. */
function expectOnePlainSentence(stderr: string): string {
  const lines = linesOf(stderr);
  expect(lines, stderr).to.have.length(1);
  const [line] = lines;
  expect(line, 'no JSON').not.to.match(/^\s*[{[]/);
  expect(line, 'no stack').not.to.match(/\bat .*:\d+:\d+/);
  expect(line).to.match(/^grants API cannot start: .+; .+\.$/);
  return line;
}

describe('start-up of the server process', function () {
  this.timeout(60_000);
  let workDir: string;
  let seedFile: string;
  let running: Launched[] = [];

  before(function () {
    workDir = tempDir('grants-startup-');
    seedFile = writeTinyCatalog(workDir, ['s-1', 's-2', 's-3']);
  });
  afterEach(function () {
    for (const proc of running) killTree(proc.pid);
    running = [];
  });
  after(function () {
    rmSync(workDir, { recursive: true, force: true });
  });

  function start(env: Record<string, string>): Launched {
    const server = launch(process.execPath, ['dist/src/main.js'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        SEED_FILE: seedFile,
        LOG_LEVEL: 'info',
        REDIS_URL: '',
        DEMO_API_KEY: '',
        ...env,
      },
    });
    running.push(server);
    return server;
  }

  async function stop(server: Launched): Promise<void> {
    server.child.kill('SIGTERM');
    expect(await server.exited).to.deep.equal({ code: 0, signal: null });
  }

  // The request and its answer checked against the OpenAPI document.
  const get = (port: number, pathAndQuery: string, key: string) =>
    checkedExchange(`http://127.0.0.1:${port}${pathAndQuery}`, { headers: { Authorization: `Bearer ${key}` } });

  it('between binding the port and serving the app, every request is a 503 SERVICE_UNAVAILABLE in the envelope with Retry-After: 1', async function () {
    const server = await listen(0, '127.0.0.1', createLogger('silent'));
    try {
      const res = await fetch(`${server.url}${P}/grants`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      const body = (await res.json()) as any;
      expect(body.success).to.equal(false);
      expect(body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(body.meta.requestId).to.equal(res.headers.get('x-request-id'));
      const app = new Koa();
      app.use((ctx) => {
        ctx.body = { served: true };
      });
      server.serve(app);
      const served = await fetch(`${server.url}${P}/grants`);
      expect(served.status).to.equal(200);
      expect(await served.json()).to.deep.equal({ served: true });
    } finally {
      await server.stop(0);
    }
  });

  it('port taken: one sentence on stderr naming the port and PORT, exit 1, nothing created; the next start shows the demo key', async function () {
    const dataDir = path.join(workDir, 'taken');
    const taken = await holdPort();
    let failed: Launched;
    try {
      failed = start({ DATA_DIR: dataDir, PORT: String(taken.port) });
      expect((await failed.exited).code).to.equal(1);
    } finally {
      await taken.release();
    }
    const sentence = expectOnePlainSentence(failed.stderr());
    expect(sentence).to.contain(`port ${taken.port}`).and.to.contain('already in use').and.to.contain('PORT');
    expect(existsSync(dataDir) ? readdirSync(dataDir) : [], 'DATA_DIR after the failed start').to.deep.equal([]);

    const server = start({ DATA_DIR: dataDir, PORT: String(taken.port) });
    await server.waitFor('stdout', READY, 30_000);
    const key = (await server.waitFor('stderr', KEY, 5_000))[1];
    expect((await get(taken.port, `${P}/grants`, key)).status).to.equal(200);
    await stop(server);
  });

  it('an invalid configuration: one sentence listing every problem, exit 2', async function () {
    const server = start({ DATA_DIR: path.join(workDir, 'config'), PORT: 'abc', LOG_LEVEL: 'loud' });
    expect((await server.exited).code).to.equal(2);
    const sentence = expectOnePlainSentence(server.stderr());
    expect(sentence).to.contain('PORT must be an integer').and.to.contain('LOG_LEVEL must be one of');
    expect(existsSync(path.join(workDir, 'config'))).to.equal(false);
  });

  it('a DATA_DIR that cannot be a folder: one sentence naming DATA_DIR, exit 1', async function () {
    const file = path.join(workDir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const port = await freePort();
    const server = start({ DATA_DIR: path.join(file, 'data'), PORT: String(port) });
    expect((await server.exited).code).to.equal(1);
    const sentence = expectOnePlainSentence(server.stderr());
    expect(sentence)
      .to.contain(`DATA_DIR ${path.join(file, 'data')} cannot be used`)
      .and.to.contain('set DATA_DIR');
    expect(server.stdout(), 'no log line carries a stack at the default level').not.to.contain('stack');
  });

  it('a SEED_FILE that does not exist: one sentence naming SEED_FILE and SEED_CATALOG, exit 1', async function () {
    const missing = path.join(workDir, 'missing.ndjson');
    const server = start({
      DATA_DIR: path.join(workDir, 'seedless'),
      PORT: String(await freePort()),
      SEED_FILE: missing,
    });
    expect((await server.exited).code).to.equal(1);
    const sentence = expectOnePlainSentence(server.stderr());
    expect(sentence)
      .to.contain(`SEED_FILE ${missing} cannot be read (no such file)`)
      .and.to.contain('SEED_CATALOG=false');
  });

  it('an invalid SYNONYMS_FILE: one sentence naming the file and the line, exit 1, nothing created', async function () {
    const file = path.join(workDir, 'synonyms.txt');
    writeFileSync(file, '# grants\nnonprofit, non-profit\n\nR&D => research => development\n');
    const dataDir = path.join(workDir, 'synonyms');
    const server = start({ DATA_DIR: dataDir, PORT: String(await freePort()), SYNONYMS_FILE: file });
    expect((await server.exited).code).to.equal(1);
    const sentence = expectOnePlainSentence(server.stderr());
    expect(sentence)
      .to.contain(`SYNONYMS_FILE ${file} line 4: a rule has at most one "=>"`)
      .and.to.contain('set SYNONYMS_FILE');
    expect(existsSync(path.join(dataDir, 'catalog.sqlite'))).to.equal(false);
    const missing = start({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SYNONYMS_FILE: path.join(workDir, 'none.txt'),
    });
    expect((await missing.exited).code).to.equal(1);
    expect(expectOnePlainSentence(missing.stderr())).to.contain('cannot be read (no such file)');
  });

  it('a start with WEBHOOK_ALLOW_HTTP or WEBHOOK_ALLOW_PRIVATE logs a warning naming each; a start without logs none', async function () {
    const warningsOf = (stdout: string): string[] =>
      linesOf(stdout)
        .map((line) => JSON.parse(line) as { level: string | number; msg: string })
        .filter((line) => line.level === 'warn' || line.level === 40)
        .map((line) => line.msg);
    const port = await freePort();
    const relaxed = start({
      DATA_DIR: path.join(workDir, 'relaxed'),
      PORT: String(port),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    await relaxed.waitFor('stdout', READY, 30_000);
    await stop(relaxed);
    const said = warningsOf(relaxed.stdout());
    expect(
      said.some((msg) => msg.startsWith('WEBHOOK_ALLOW_HTTP=true')),
      said.join(' | '),
    ).to.equal(true);
    expect(
      said.some((msg) => msg.startsWith('WEBHOOK_ALLOW_PRIVATE=true')),
      said.join(' | '),
    ).to.equal(true);
    const strict = start({ DATA_DIR: path.join(workDir, 'strict'), PORT: String(port) });
    await strict.waitFor('stdout', READY, 30_000);
    await stop(strict);
    expect(warningsOf(strict.stdout()).filter((msg) => msg.includes('WEBHOOK_ALLOW'))).to.deep.equal([]);
  });

  it('the demo key goes to stderr on the first start, never into the log lines; a restart prints nothing of it', async function () {
    const dataDir = path.join(workDir, 'banner');
    const port = await freePort();
    const first = start({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'debug' });
    await first.waitFor('stdout', READY, 30_000);
    const key = (await first.waitFor('stderr', KEY, 5_000))[1];
    expect(first.stderr()).to.match(/demo PROFESSIONAL subscription was created \(sub_[A-Za-z0-9_-]+\)/);
    expect(first.stderr()).to.contain(
      `curl -H 'Authorization: Bearer ${key}' 'http://127.0.0.1:${port}/external/v1/grants?`,
    );
    expect((await get(port, `${P}/grants/s-1`, key)).status).to.equal(200);
    // The quick start's export line works with the demo key.
    expect((await get(port, `${P}/grants/export?format=csv`, key)).status).to.equal(200);
    await stop(first);
    // Every stdout line is a log line (JSON), at the most talkative level, and none carries the key.
    const logLines = linesOf(first.stdout());
    expect(logLines.length).to.be.greaterThan(2);
    for (const line of logLines) {
      expect(() => JSON.parse(line), line).not.to.throw();
      expect(line).not.to.contain(key);
    }

    const second = start({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'debug' });
    await second.waitFor('stdout', READY, 30_000);
    expect((await get(port, `${P}/grants/s-1`, key)).status).to.equal(200);
    await stop(second);
    expect(second.stderr(), 'the second start says nothing on the terminal').to.equal('');
  });

  it('a demo subscription whose key was never shown: each start prints the exact grants-admin command, which works; then it stops', async function () {
    const dataDir = path.join(workDir, 'unseen');
    // What a first start leaves when it dies between creating the demo subscription and showing its key.
    mkdirSync(dataDir, { recursive: true });
    const db = openSubscriptionsDb(subscriptionsPath(dataDir));
    const demo = new DemoSubscription(new SqliteSteps(db)).createIfNone(null);
    db.close();
    expect(demo).not.to.equal(null);

    const port = await freePort();
    const server = start({ DATA_DIR: dataDir, PORT: String(port) });
    await server.waitFor('stdout', READY, 30_000);
    const hint = await server.waitFor(
      'stderr',
      /to get one, run: (DATA_DIR=(\S+) npx grants-admin key create (sub_\S+))\n/,
      5_000,
    );
    expect(linesOf(server.stderr()), 'one line').to.have.length(1);
    expect(hint[2]).to.equal(dataDir);
    expect(hint[3]).to.equal(demo!.subscriptionId);
    expect(server.stderr()).not.to.contain(demo!.apiKey);

    // The printed command, run as printed, from the checkout.
    const admin = launch('sh', ['-c', hint[1]], { cwd: REPO_ROOT, env: process.env });
    running.push(admin);
    expect((await admin.exited).code, admin.stderr()).to.equal(0);
    const newKey = /gk_live_[A-Za-z0-9_-]{32,}/.exec(admin.stdout())?.[0];
    expect(newKey, admin.stdout()).to.be.a('string');
    expect((await get(port, `${P}/subscription/limits`, newKey!)).status).to.equal(200);
    await stop(server);

    const again = start({ DATA_DIR: dataDir, PORT: String(port) });
    await again.waitFor('stdout', READY, 30_000);
    await stop(again);
    expect(again.stderr(), 'a key was made since: no more hint').to.equal('');
  });
});
