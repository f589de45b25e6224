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
  const run = launch(process.execPath, ['dist/scripts/replay.js', ...args], { cwd: REPO_ROOT, env: process.env });
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
    expect(result.stderr).to.contain(`cannot reach http://127.0.0.1:${port}/external/v1 (ECONNREFUSED)`).and.to.contain('--base-url');
  });

  it('a refused key: it stops at the first case with one line on stderr saying 401 and --key, exit 3', async function () {
    const result = await replay('--base-url', api.url, '--key', 'gk_live_notAKeyOfThisServer0123456789abcdef');
    expect(result.code, result.stderr).to.equal(3);
    expect(result.stdout).to.equal('');
    expect(lines(result.stderr), result.stderr).to.have.length(1);
    expect(result.stderr).to.match(/^replay: stopped at .+: the API refused the key \(401 UNAUTHORIZED\); check --key\n$/);
  });

  it('a valid key: each case passes or fails on its own (two recorded cases, both PASS, exit 0)', async function () {
    const dir = path.join(workDir, 'cases');
    mkdirSync(dir);
    for (const file of readdirSync(CASES).filter((f) => f.endsWith('.json')).sort().slice(0, 2)) copyFileSync(path.join(CASES, file), path.join(dir, file));
    const result = await replay('--base-url', api.url, '--key', api.key, '--cases', dir);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    expect(lines(result.stdout)).to.have.length(3);
    expect(lines(result.stdout)[2]).to.equal('replay: 2 passed, 0 failed');
  });
});
