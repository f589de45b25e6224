// `replay` (scripts/replay.ts) as a real process: it stops at the first unreachable server or 401
// with one line and exit 3, instead of failing every case the same way; cases still pass or fail
// one by one otherwise.
import { expect } from 'chai';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, REPO_ROOT, startTestApi, tempDir, type TestApi } from '../support/api.js';
import { freePort, launch } from '../support/processes.js';

const CASES = path.join(REPO_ROOT, 'fixtures/queries');

async function replay(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return replayWith({}, ...args);
}

/** replay with GRANTS_API_KEY as given (unset unless given). */
async function replayWith(
  extra: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { GRANTS_API_KEY: _unset, ...env } = process.env;
  const run = launch(process.execPath, ['dist/scripts/replay.js', ...args], {
    cwd: REPO_ROOT,
    env: { ...env, ...extra },
  });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('replay against a deployment (real process)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let workDir: string;

  before(async function () {
    api = await startTestApi({ SEED_FILE: FIXTURES });
    workDir = tempDir('grants-replay-');
  });
  after(async function () {
    await api?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it('an unreachable server: one line on stderr naming the address, nothing on stdout, exit 3', async function () {
    const port = await freePort();
    const result = await replay('--base-url', `http://127.0.0.1:${port}`, '--key', 'gk_live_whatever');
    expect(result.code, result.stderr).to.equal(3);
    expect(result.stdout).to.equal('');
    expect(lines(result.stderr), result.stderr).to.have.length(1);
    expect(result.stderr)
      .to.contain(`cannot reach http://127.0.0.1:${port}/external/v1 (ECONNREFUSED)`)
      .and.to.contain('--base-url');
  });

  it('a refused key: it stops at the first case with one line on stderr saying 401 and --key, exit 3', async function () {
    const result = await replay('--base-url', api.url, '--key', 'gk_live_notAKeyOfThisServer0123456789abcdef');
    expect(result.code, result.stderr).to.equal(3);
    expect(result.stdout).to.equal('');
    expect(lines(result.stderr), result.stderr).to.have.length(1);
    expect(result.stderr).to.match(
      /^replay: stopped at .+: the API refused the key \(401 UNAUTHORIZED\); check --key\n$/,
    );
  });

  it('a valid key: each case passes or fails on its own (two recorded cases, both PASS, exit 0)', async function () {
    const dir = path.join(workDir, 'cases');
    mkdirSync(dir);
    for (const file of readdirSync(CASES)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .slice(0, 2))
      copyFileSync(path.join(CASES, file), path.join(dir, file));
    const result = await replay('--base-url', api.url, '--key', api.key, '--cases', dir);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    expect(lines(result.stdout)).to.have.length(3);
    expect(lines(result.stdout)[2]).to.equal('replay: 2 passed, 0 failed');
  });

  it('the key from GRANTS_API_KEY (kept out of the process list): the same run passes; a refused one names GRANTS_API_KEY', async function () {
    const dir = path.join(workDir, 'cases-env');
    mkdirSync(dir);
    for (const file of readdirSync(CASES)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .slice(0, 2))
      copyFileSync(path.join(CASES, file), path.join(dir, file));
    const result = await replayWith({ GRANTS_API_KEY: api.key }, '--base-url', api.url, '--cases', dir);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    expect(lines(result.stdout)[2]).to.equal('replay: 2 passed, 0 failed');
    const refused = await replayWith(
      { GRANTS_API_KEY: 'gk_live_notAKeyOfThisServer0123456789abcdef' },
      '--base-url',
      api.url,
      '--cases',
      dir,
    );
    expect(refused.code).to.equal(3);
    expect(refused.stderr).to.match(/check GRANTS_API_KEY\n$/);
    const none = await replay('--base-url', api.url, '--cases', dir);
    expect(none.code).to.equal(2);
    expect(lines(none.stderr)).to.deep.equal([
      'replay: an API key is required: set GRANTS_API_KEY (or give --key); run with --help for the options.',
    ]);
  });

  it('a cases folder or catalog it cannot use: one sentence naming it and what to do, no usage text, exit 2', async function () {
    const missing = path.join(workDir, 'nope');
    const noCases = await replay('--base-url', api.url, '--key', api.key, '--cases', missing);
    expect(noCases.code).to.equal(2);
    expect(lines(noCases.stderr)).to.deep.equal([
      `replay: the cases folder ${missing} does not exist; give --cases a folder of case files (*.json), ` +
        `such as fixtures/queries.`,
    ]);
    const aFile = await replay('--base-url', api.url, '--key', api.key, '--cases', FIXTURES);
    expect(lines(aFile.stderr)).to.deep.equal([
      `replay: the cases folder ${FIXTURES} is a file, not a folder; give --cases a folder of case files ` +
        `(*.json), such as fixtures/queries.`,
    ]);
    // The bundled cases include some answered at request time, which read the catalog.
    const folderCatalog = await replay('--base-url', api.url, '--key', api.key, '--catalog', workDir);
    expect(folderCatalog.code).to.equal(2);
    expect(lines(folderCatalog.stderr)).to.have.length(1);
    expect(folderCatalog.stderr).to.contain(`the catalog file ${workDir} is a folder, not a file; give --catalog`);
    expect(folderCatalog.stdout).to.equal('');
  });
});
