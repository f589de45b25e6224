// `npm start` as the README runs it, with real processes: stopping npm stops the server, and a
// start on an unchanged tree does not compile again (scripts/build-if-changed.mjs).
import { expect } from 'chai';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { writeTinyCatalog } from '../support/catalog.js';
import {
  descendants,
  freePort,
  isRunning,
  killTree,
  launch,
  portIsFree,
  waitFor,
  type Launched,
} from '../support/processes.js';

const READY = /"msg":"grants API listening"/;
const BUILD_SCRIPT = path.join(REPO_ROOT, 'scripts/build-if-changed.mjs');

describe('npm start (real processes)', function () {
  this.timeout(240_000);
  let workDir: string;
  let seedFile: string;
  let running: Launched[] = [];
  /** Processes of a tree seen while it ran: killed after the test if one outlived its launcher. */
  let seen: number[] = [];

  before(function () {
    if (process.platform !== 'linux') this.skip(); // the process tree is read from /proc
    workDir = tempDir('grants-npm-start-');
    seedFile = writeTinyCatalog(workDir, ['n-1', 'n-2']);
  });
  afterEach(function () {
    for (const proc of running) killTree(proc.pid);
    for (const pid of seen.filter(isRunning)) process.kill(pid, 'SIGKILL');
    running = [];
    seen = [];
  });
  after(function () {
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  async function npmStart(port: number): Promise<Launched> {
    const dataDir = path.join(workDir, `data-${port}`);
    const npm = launch('npm', ['start'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        SEED_FILE: seedFile,
        LOG_LEVEL: 'info',
        REDIS_URL: '',
        DEMO_API_KEY: '',
      },
    });
    running.push(npm);
    await npm.waitFor('stdout', READY, 180_000);
    return npm;
  }

  it('SIGTERM to the npm process stops the server with it: it shuts down gracefully, no process of the tree is left, the port is free', async function () {
    const port = await freePort();
    const npm = await npmStart(port);
    const tree = descendants(npm.pid);
    seen.push(...tree);
    expect(tree, 'npm runs the server as a child').to.have.length.at.least(1);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).to.equal(200);

    process.kill(npm.pid, 'SIGTERM');
    await npm.exited;
    const gone = await waitFor(() => tree.every((pid) => !isRunning(pid)), 15_000);
    const left = tree
      .filter(isRunning)
      .map((pid) => `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    expect(gone, `still running after npm stopped: ${left.join('; ')}`).to.equal(true);
    expect(await portIsFree(port), `port ${port} is free again`).to.equal(true);
    expect(npm.stdout(), 'the server shut down gracefully').to.match(/"msg":"stopped"/);
  });

  it('a start on an unchanged tree does not run the compiler: dist/ is left as it was', async function () {
    // Bring the build up to date first (a no-op when npm test has just built).
    const prepare = launch(process.execPath, [BUILD_SCRIPT], { cwd: REPO_ROOT, env: process.env });
    running.push(prepare);
    expect((await prepare.exited).code, prepare.stderr()).to.equal(0);
    const outputs = ['dist/src/main.js', 'dist/src/app.js', 'dist/.build-stamp'].map((f) => path.join(REPO_ROOT, f));
    const before = outputs.map((f) => statSync(f).mtimeMs);

    const started = Date.now();
    const npm = await npmStart(await freePort());
    const readyMs = Date.now() - started;
    expect(npm.stderr()).not.to.contain('build: compiling');
    expect(
      outputs.map((f) => statSync(f).mtimeMs),
      'dist/ untouched',
    ).to.deep.equal(before);
    process.kill(npm.pid, 'SIGTERM');
    await npm.exited;
    // A figure for the report, not a timed assertion: the machine may be busy.
    if (process.env.START_TIMING) console.log(`      npm start on an unchanged tree: ready in ${readyMs} ms`);
  });

  describe('scripts/build-if-changed.mjs on a small project of its own', function () {
    let project: string;
    const LONG_AGO = new Date('2020-01-01T00:00:00Z');

    /** Puts every file and folder of the project's sources and config in the past. */
    function settle(): void {
      for (const p of ['src/a.ts', 'src', 'tsconfig.json', 'package.json', 'package-lock.json']) {
        try {
          utimesSync(path.join(project, p), LONG_AGO, LONG_AGO);
        } catch {
          // a file the step removed
        }
      }
    }

    async function build(): Promise<{ code: number | null; compiled: boolean; output: string }> {
      const run = launch(process.execPath, ['scripts/build-if-changed.mjs'], { cwd: project, env: process.env });
      running.push(run);
      const { code } = await run.exited;
      return { code, compiled: run.stderr().includes('build: compiling'), output: run.stdout() + run.stderr() };
    }

    before(function () {
      project = path.join(workDir, 'project');
      mkdirSync(path.join(project, 'src'), { recursive: true });
      mkdirSync(path.join(project, 'scripts'));
      copyFileSync(BUILD_SCRIPT, path.join(project, 'scripts/build-if-changed.mjs'));
      symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(project, 'node_modules'));
      writeFileSync(
        path.join(project, 'tsconfig.json'),
        // No @types and no library checks: the compiler's own start-up is the cost here.
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            strict: true,
            types: [],
            skipLibCheck: true,
            outDir: 'dist',
            rootDir: '.',
          },
          include: ['src'],
        }),
      );
      writeFileSync(path.join(project, 'package.json'), '{"name":"p","version":"1.0.0","type":"module"}\n');
      writeFileSync(path.join(project, 'package-lock.json'), '{}\n');
      writeFileSync(path.join(project, 'src/a.ts'), 'export const a: number = 1;\n');
      settle();
    });

    it('compiles when nothing was built, then not again until a source changes', async function () {
      const first = await build();
      expect(first, first.output).to.include({ code: 0, compiled: true });
      const output = path.join(project, 'dist/src/a.js');
      expect(readFileSync(output, 'utf8')).to.contain('a = 1');
      const builtAt = statSync(output).mtimeMs;

      const second = await build();
      expect(second, second.output).to.include({ code: 0, compiled: false });
      expect(statSync(output).mtimeMs).to.equal(builtAt);

      writeFileSync(path.join(project, 'src/a.ts'), 'export const a: number = 2;\n');
      const edited = await build();
      expect(edited, edited.output).to.include({ code: 0, compiled: true });
      expect(readFileSync(output, 'utf8')).to.contain('a = 2');
      settle();
      expect(await build(), 'after the edit was built').to.include({ code: 0, compiled: false });
    });

    it('a file added or deleted counts as a change', async function () {
      settle();
      expect(await build()).to.include({ code: 0, compiled: false });
      writeFileSync(path.join(project, 'src/b.ts'), 'export const b = 1;\n');
      utimesSync(path.join(project, 'src/b.ts'), LONG_AGO, LONG_AGO); // only the folder's time moves
      expect(await build(), 'added').to.include({ code: 0, compiled: true });
      settle();
      unlinkSync(path.join(project, 'src/b.ts'));
      expect(await build(), 'deleted').to.include({ code: 0, compiled: true });
    });

    it('a source moved or deleted leaves no compiled file behind (mocha would still run a moved test at its old place)', async function () {
      mkdirSync(path.join(project, 'src/old'), { recursive: true });
      writeFileSync(path.join(project, 'src/old/c.ts'), 'export const c = 1;\n');
      expect(await build(), 'added').to.include({ code: 0, compiled: true });
      expect(existsSync(path.join(project, 'dist/src/old/c.js'))).to.equal(true);
      mkdirSync(path.join(project, 'src/new'), { recursive: true });
      renameSync(path.join(project, 'src/old/c.ts'), path.join(project, 'src/new/c.ts'));
      expect(await build(), 'moved').to.include({ code: 0, compiled: true });
      expect(existsSync(path.join(project, 'dist/src/new/c.js'))).to.equal(true);
      expect(existsSync(path.join(project, 'dist/src/old/c.js'))).to.equal(false);
      expect(existsSync(path.join(project, 'dist/src/a.js')), 'a compiled file whose source is there stays').to.equal(
        true,
      );
      rmSync(path.join(project, 'src/new'), { recursive: true });
      rmSync(path.join(project, 'src/old'), { recursive: true });
      expect(await build(), 'deleted').to.include({ code: 0, compiled: true });
      expect(existsSync(path.join(project, 'dist/src/new/c.js'))).to.equal(false);
      settle();
    });

    it('compares contents, not times: every input touched, or package-lock.json rewritten (as npm install does after prepare), compiles nothing', async function () {
      settle();
      expect(await build()).to.include({ code: 0, compiled: false });
      const now = new Date();
      for (const p of ['src/a.ts', 'src', 'tsconfig.json', 'package.json']) utimesSync(path.join(project, p), now, now);
      expect(await build(), 'touched, same contents').to.include({ code: 0, compiled: false });
      writeFileSync(path.join(project, 'package-lock.json'), '{\n  "name": "p",\n  "lockfileVersion": 3\n}\n');
      expect(await build(), 'package-lock.json rewritten').to.include({ code: 0, compiled: false });
      writeFileSync(
        path.join(project, 'tsconfig.json'),
        readFileSync(path.join(project, 'tsconfig.json'), 'utf8').replace('"strict":true', '"strict":false'),
      );
      expect(await build(), 'tsconfig.json changed').to.include({ code: 0, compiled: true });
      utimesSync(path.join(project, 'src/a.ts'), LONG_AGO, LONG_AGO);
      writeFileSync(path.join(project, 'src/a.ts'), 'export const a: number = 4;\n');
      utimesSync(path.join(project, 'src/a.ts'), LONG_AGO, LONG_AGO);
      expect(await build(), 'a source changed, its time in the past').to.include({ code: 0, compiled: true });
    });

    it('a failed build records nothing: the next run compiles again; deleting dist/ means compiling again', async function () {
      writeFileSync(path.join(project, 'src/a.ts'), 'export const a: number = "not a number";\n');
      const failed = await build();
      expect(failed.code, failed.output).not.to.equal(0);
      settle();
      const again = await build();
      expect(again, 'still failing, so compiled again').to.include({ compiled: true });
      expect(again.code).not.to.equal(0);

      writeFileSync(path.join(project, 'src/a.ts'), 'export const a: number = 3;\n');
      settle();
      expect(await build(), 'fixed').to.include({ code: 0, compiled: true });
      expect(await build(), 'up to date').to.include({ code: 0, compiled: false });
      rmSync(path.join(project, 'dist'), { recursive: true });
      expect(await build(), 'dist/ deleted').to.include({ code: 0, compiled: true });
      expect(readFileSync(path.join(project, 'dist/src/a.js'), 'utf8')).to.contain('a = 3');
    });
  });
});
