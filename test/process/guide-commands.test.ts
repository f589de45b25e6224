// The guides cannot rot: every shell block of README.md and docs/*.md runs, in the order of the
// guides, against a real server (node dist/src/main.js, what `npm start` runs once built) on a real
// port with a real data folder, started fresh as a reader's first start. The blocks are run as a
// reader runs them: `localhost:3000` is where this server listens, `gk_live_…` is the demo key
// the server printed, and the shell already holds what the guides set (KEY, API, GRANTS_API_KEY,
// and DATA_DIR for the command-line tools). Each block must exit 0, every request it makes must
// be answered below 400 (unless its `statuses` marker says otherwise, read from the server's own
// request log), and the output block that follows it must match what it printed (JSON: same keys,
// same types, same values unless marked `output: shape`; text: line by line, `…` for any text).
// A block the test cannot run says why in a `not-run` marker.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/api.js';
import { compareShown, guideBlocks, isShell, parseShownJson, textMatches, type Block } from '../support/guides.js';
import { freePort, killTree, launch, type Launched } from '../support/processes.js';

const READY = /"msg":"grants API listening"/;
const SCRATCH_ROOT = path.join(REPO_ROOT, '.cache/guide-commands');
const BLOCK_TIMEOUT_MS = 240_000;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a shell block with bash (errexit, pipefail) in `cwd`; with `until`, stops it once that file exists. */
function runShell(script: string, cwd: string, env: NodeJS.ProcessEnv, until?: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const stop = () => killTree(child.pid!);
    const deadline = setTimeout(() => {
      stderr += `\n(stopped after ${BLOCK_TIMEOUT_MS} ms)`;
      stop();
    }, BLOCK_TIMEOUT_MS);
    const watch =
      until === undefined
        ? undefined
        : setInterval(() => {
            if (existsSync(path.join(cwd, until))) stop();
          }, 200);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      if (watch !== undefined) clearInterval(watch);
      // A block stopped once its file appeared did what it was run for.
      resolve({ code: until !== undefined && existsSync(path.join(cwd, until)) ? 0 : code, stdout, stderr });
    });
  });
}

/** The statuses a `statuses` marker allows ("401 (why)", "any (why)"). */
function allowedStatuses(block: Block): 'any' | number[] {
  const marker = block.markers.statuses;
  if (marker === undefined) return [];
  if (/^any\b/.test(marker)) return 'any';
  return [...marker.matchAll(/\b[1-5]\d\d\b/g)].map((m) => Number(m[0]));
}

interface RequestLine {
  method: string;
  path: string;
  status: number;
}

function requestLines(stdout: string): RequestLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as RequestLine);
}

/** What a block shows and the problems of the real output against it. */
function outputProblems(output: Block, printed: string, substitute: (text: string) => string): string[] {
  const shown = substitute(output.text);
  if (output.lang === 'json') {
    let real: unknown;
    try {
      real = JSON.parse(printed);
    } catch {
      return [`the command did not print one JSON value: ${printed.slice(0, 300)}`];
    }
    return compareShown(parseShownJson(shown), real, output.markers.output?.startsWith('shape') ? 'shape' : 'values');
  }
  return textMatches(shown, printed)
    ? []
    : [`the printed text does not match the block:\n--- shown:\n${shown}\n--- printed:\n${printed}`];
}

describe('the guides: every command runs against a real server and prints what the guide shows', function () {
  this.timeout(BLOCK_TIMEOUT_MS + 60_000);
  const blocks = guideBlocks();
  const commands = blocks.filter(isShell);
  let server: Launched;
  let port: number;
  let dataDir: string;
  let scratch: string;
  let key: string;
  /** The server's stdout (request log) seen before the running block. */
  let logOffset = 0;

  /** What a reader changes in a command: where the server listens, and the key it printed. */
  const substitute = (text: string) => atPort(text).replaceAll('gk_live_…', key);
  /** What a reader reads differently in an output: where the server listens. */
  const atPort = (text: string) => text.replaceAll('localhost:3000', `127.0.0.1:${port}`);

  before(async function () {
    // The guides' examples use bash, curl and jq: without them the test cannot run (in CI it fails).
    const missing = ['bash', 'curl', 'jq'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
    if (missing.length > 0) {
      const why = `the guides' commands need ${missing.join(', ')} on the PATH`;
      if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(why);
      console.log(`      (skipped: ${why})`);
      this.skip();
    }
    mkdirSync(SCRATCH_ROOT, { recursive: true });
    scratch = mkdtempSync(path.join(SCRATCH_ROOT, 'run-'));
    // A reader runs the guides from a checkout: relative paths such as fixtures/ resolve there.
    symlinkSync(path.join(REPO_ROOT, 'fixtures'), path.join(scratch, 'fixtures'));
    symlinkSync(path.join(REPO_ROOT, 'mappings'), path.join(scratch, 'mappings'));
    dataDir = path.join(scratch, 'data');
    port = await freePort();
    server = launch(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js')], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        DEMO_API_KEY: '',
        DATABASE_URL: '',
        REDIS_URL: '',
        SEARCH_ENGINE: 'sqlite',
        SEED_CATALOG: 'true',
        SEARCH_TIMEOUT_MS: '60000',
        OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
      },
    });
    await server.waitFor('stdout', READY, 180_000);
    // The key, read from the banner as a reader reads it.
    key = (await server.waitFor('stderr', /^\s+(gk_live_\S+)$/m, 10_000))[1];
  });
  after(async function () {
    if (server !== undefined) {
      server.child.kill('SIGTERM');
      await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      server.kill();
    }
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('every shell block either runs here or says why not (a not-run marker with a reason)', function () {
    expect(commands.length).to.be.greaterThan(10);
    for (const block of commands) {
      const reason = block.markers['not-run'];
      if (reason !== undefined)
        expect(
          reason.split(/\s+/).length,
          `${block.file}:${block.line}: a not-run marker gives its reason`,
        ).to.be.at.least(3);
    }
    const run = commands.filter((block) => block.markers['not-run'] === undefined);
    expect(run.length, 'most shell blocks run').to.be.greaterThan(commands.length / 2);
  });

  it('the first start prints the banner the README shows (the demo key, and a request to try it with)', function () {
    const shown = blocks.filter((block) => block.markers.output === 'first start');
    expect(shown, 'one block shows the first start').to.have.length(1);
    expect(
      textMatches(substitute(shown[0].text), server.stderr()),
      `shown:\n${substitute(shown[0].text)}\nprinted:\n${server.stderr()}`,
    ).to.equal(true);
  });

  for (const block of commands.filter((b) => b.markers['not-run'] === undefined)) {
    const title = block.text.split('\n').find((line) => line.trim() !== '' && !line.trim().startsWith('#')) ?? '';
    it(`${block.file}:${block.line}: ${title.slice(0, 90)}`, async function () {
      logOffset = server.stdout().length;
      const env = {
        ...process.env,
        KEY: key,
        GRANTS_API_KEY: key,
        API: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        // The command-line tools read the same settings as the server they manage.
        DATABASE_URL: '',
        SEARCH_ENGINE: 'sqlite',
      };
      const until = block.markers['run-until']?.split(/\s+/)[0];
      const ran = await runShell(substitute(block.text), scratch, env, until);
      const context = `\n--- stdout:\n${ran.stdout.slice(0, 3000)}\n--- stderr:\n${ran.stderr.slice(0, 3000)}`;
      expect(ran.code, `exit code${context}`).to.equal(0);

      // The server writes its request line as it answers: give it a moment to reach the pipe.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const allowed = allowedStatuses(block);
      if (allowed !== 'any') {
        const refused = requestLines(server.stdout().slice(logOffset)).filter(
          (line) => line.status >= 400 && !allowed.includes(line.status),
        );
        expect(
          refused.map((line) => `${line.method} ${line.path}: ${line.status}`),
          `requests answered with an error${context}`,
        ).to.deep.equal([]);
      }
      if (block.output !== undefined && !isShell(block.output)) {
        const problems = outputProblems(block.output, ran.stdout, atPort);
        expect(problems, `${block.output.file}:${block.output.line} against what the command printed`).to.deep.equal(
          [],
        );
      }
    });
  }
});
