// The layering check that `npm test` runs before mocha (package.json "check:layers",
// .dependency-cruiser.cjs) fails on the violations it exists for: it is run here, as the script
// runs it, on small trees of the repository's shape with violations planted, and on a clean one.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, tempDir } from '../support/api.js';

const CHECK = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts['check:layers'];

/** A tree with the repository's config files and the given TypeScript sources. */
function tree(files: Record<string, string>): string {
  const dir = tempDir('grants-layering-');
  copyFileSync(path.join(REPO_ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(path.join(REPO_ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** Runs the check:layers script's command in `dir`, with the repository's dependency-cruiser. */
function check(dir: string): Promise<{ code: number | null; output: string }> {
  const [command, ...args] = CHECK.split(' ');
  const child = spawn(path.join(REPO_ROOT, 'node_modules/.bin', command), args, {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * The check's report as "rule: from → to" lines; a cycle as "no-circular: a → b → a", from the
 * first module in alphabetical order (the report may start it anywhere).
 */
function violations(output: string): string[] {
  return [...output.matchAll(/error ([a-z-]+): ((?:\S+ →\s+)+\S+)/g)]
    .map(([, rule, chain]) => {
      let modules = chain.split(/ →\s+/);
      if (rule === 'no-circular') {
        const cycle = modules.slice(0, -1);
        const start = cycle.indexOf([...cycle].sort()[0]);
        modules = [...cycle.slice(start), ...cycle.slice(0, start), cycle[start]];
      }
      return `${rule}: ${modules.join(' → ')}`;
    })
    .sort();
}

const CLEAN = {
  'src/failures.ts': 'export class NotFoundError extends Error {}\n',
  'src/grants/query.ts':
    "import { NotFoundError } from '../failures.js';\nexport const fail = () => new NotFoundError('x');\n",
  'src/subscriptions/tiers.ts': "export type Feature = 'grants.read';\n",
  'src/http/routeTable.ts':
    "import type { Feature } from '../subscriptions/tiers.js';\nexport const feature: Feature = 'grants.read';\n",
  'src/http/errors.ts':
    "import { NotFoundError } from '../failures.js';\nexport const isNotFound = (e: unknown) => e " +
    'instanceof NotFoundError;\n',
  'src/cli/admin.ts':
    "import type { Feature } from '../subscriptions/tiers.js';\nexport const features: Feature[] = [];\n",
  'src/app.ts':
    "import { isNotFound } from './http/errors.js';\nimport { fail } from './grants/query.js';\nexport " +
    'const app = () => isNotFound(fail());\n',
  'indexer/cli.ts': "import { fail } from '../src/grants/query.js';\nexport const run = fail;\n",
  'indexer/seed.ts': "import { run } from './cli.js';\nexport const seed = run;\n",
  'src/main.ts':
    "import { app } from './app.js';\nimport { seed } from '../indexer/seed.js';\nexport const main = () => " +
    '[app(), seed()];\n',
};

describe('unit: the layering check (npm run check:layers)', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is a command npm test runs before mocha', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(CHECK).to.match(/^depcruise --config \.dependency-cruiser\.cjs /);
    expect(scripts.test).to.match(/npm run check:layers( --silent)? && (npm run lint( --silent)? && )?mocha/);
  });

  it('passes a tree whose imports all point from the edge to the core', async () => {
    const dir = tree(CLEAN);
    dirs.push(dir);
    const { code, output } = await check(dir);
    expect(violations(output), output).to.deep.equal([]);
    expect(code, output).to.equal(0);
  });

  it('fails, naming each one, on a core -> edge import, an import cycle (type-only too), an edge sibling import and the API importing a CLI', async () => {
    const dir = tree({
      ...CLEAN,
      // The core reaching for the HTTP layer, as the engines once imported ServiceUnavailableError.
      'src/search/engine.ts': "import { isNotFound } from '../http/errors.js';\nexport const engine = isNotFound;\n",
      // The core reaching for the process wiring.
      'src/subscriptions/port.ts': "import { app } from '../app.js';\nexport const port = app;\n",
      // A cycle through type-only imports.
      'src/http/envelope.ts':
        "import type { Detail } from './state.js';\nexport interface Body { details: Detail[] }\n",
      'src/http/state.ts': "import type { Body } from './envelope.js';\nexport interface Detail { body?: Body }\n",
      // A CLI importing from the HTTP layer, as grants-admin once imported Feature.
      'src/cli/keys.ts': "import { feature } from '../http/routeTable.js';\nexport const keys = feature;\n",
      // The API importing a CLI.
      'src/server.ts': "import { features } from './cli/admin.js';\nexport const server = features;\n",
    });
    dirs.push(dir);
    const { code, output } = await check(dir);
    expect(code, output).to.not.equal(0);
    expect(violations(output), output).to.deep.equal([
      'api-not-to-cli: src/server.ts → src/cli/admin.ts',
      'cli-and-http-apart: src/cli/keys.ts → src/http/routeTable.ts',
      'core-not-to-edge: src/search/engine.ts → src/http/errors.ts',
      'core-not-to-edge: src/subscriptions/port.ts → src/app.ts',
      'no-circular: src/http/envelope.ts → src/http/state.ts → src/http/envelope.ts',
    ]);
  });

  it('fails, naming each one, on src/ importing the indexer (but for the entry running its seeding) and on the indexer importing the API', async () => {
    const dir = tree({
      ...CLEAN,
      // The core and the API's wiring reaching into the indexer.
      'src/grants/schema.ts': "import { seed } from '../../indexer/seed.js';\nexport const schema = seed;\n",
      'src/deps.ts': "import { run } from '../indexer/cli.js';\nexport const deps = run;\n",
      // The entry importing more of the indexer than its seeding.
      'src/main.ts':
        "import { seed } from '../indexer/seed.js';\nimport { run } from '../indexer/cli.js';\nexport const " +
        'main = () => [seed(), run()];\n',
      // The indexer reaching for the HTTP layer and for grants-admin.
      'indexer/source.ts':
        "import { feature } from '../src/http/routeTable.js';\nimport { features } from " +
        "'../src/cli/admin.js';\nexport const source = [feature, features];\n",
    });
    dirs.push(dir);
    const { code, output } = await check(dir);
    expect(code, output).to.not.equal(0);
    expect(violations(output), output).to.deep.equal([
      'core-not-to-edge: src/grants/schema.ts → indexer/seed.ts',
      'indexer-not-to-api: indexer/source.ts → src/cli/admin.ts',
      'indexer-not-to-api: indexer/source.ts → src/http/routeTable.ts',
      'main-only-seeds: src/main.ts → indexer/cli.ts',
      'src-not-to-indexer: src/deps.ts → indexer/cli.ts',
      'src-not-to-indexer: src/grants/schema.ts → indexer/seed.ts',
    ]);
  });

  it('fails, naming each one, on an import against the roles of src/http/ or across the adapters of src/subscriptions/, and passes the imports they allow', async () => {
    const dir = tree({
      ...CLEAN,
      // Allowed: an adapter's own modules, the store chooser opening adapters, a handler using a parameter parser and
      // the dispatch's types.
      'src/subscriptions/port.ts': 'export interface Store { kind: string }\n',
      'src/subscriptions/sqlite/database.ts': 'export const file = (dir: string) => `${dir}/subscriptions.sqlite`;\n',
      'src/subscriptions/sqlite/store.ts':
        "import type { Store } from '../port.js';\nimport { file } from './database.js';\nexport const open " +
        '= (dir: string): Store => ({ kind: file(dir) });\n',
      'src/subscriptions/postgres/store.ts':
        "import type { Store } from '../port.js';\nexport const openPg = (): Store => ({ kind: 'postgres' });\n",
      'src/subscriptions/openStore.ts':
        "import { open } from './sqlite/store.js';\nimport { openPg } from './postgres/store.js';\nexport " +
        "const openStore = (url: string | null) => (url === null ? open('.') : openPg());\n",
      'src/http/parameters/queryParams.ts':
        "import { feature } from '../routeTable.js';\nexport const parse = () => feature;\n",
      'src/http/middleware/routing.ts':
        "import { isNotFound } from '../errors.js';\nexport type Handlers = Record<string, () => " +
        'unknown>;\nexport const dispatch = (h: Handlers) => (isNotFound(null) ? null : h);\n',
      'src/http/handlers/grants.ts':
        "import { parse } from '../parameters/queryParams.js';\nimport type { Handlers } from " +
        "'../middleware/routing.js';\nexport const grants: Handlers = { list: parse };\n",
      'src/http/pages/landing.ts':
        "import { feature } from '../routeTable.js';\nexport const landing = () => feature;\n",
      // Violations: the HTTP layer reaching an adapter; middleware importing a handler; a parameter
      // module importing middleware; a handler importing a page; the shared top importing a role;
      // one adapter importing another; the port side importing an adapter.
      'src/http/handlers/usage.ts':
        "import { open } from '../../subscriptions/sqlite/store.js';\nimport { landing } from " +
        "'../pages/landing.js';\nexport const usage = () => [open('.'), landing()];\n",
      'src/http/middleware/limits.ts':
        "import { grants } from '../handlers/grants.js';\nexport const limits = grants;\n",
      'src/http/parameters/alertBody.ts':
        "import { dispatch } from '../middleware/routing.js';\nexport const body = dispatch;\n",
      'src/http/envelope.ts': "import { landing } from './pages/landing.js';\nexport const envelope = landing;\n",
      'src/subscriptions/postgres/usageStore.ts':
        "import { file } from '../sqlite/database.js';\nexport const usage = file;\n",
      'src/subscriptions/demo.ts': "import { file } from './sqlite/database.js';\nexport const demo = file;\n",
    });
    dirs.push(dir);
    const { code, output } = await check(dir);
    expect(code, output).to.not.equal(0);
    expect(violations(output), output).to.deep.equal([
      'handlers-not-to-pages: src/http/handlers/usage.ts → src/http/pages/landing.ts',
      'http-not-to-adapters: src/http/handlers/usage.ts → src/subscriptions/sqlite/store.ts',
      'http-top-to-no-role: src/http/envelope.ts → src/http/pages/landing.ts',
      'middleware-not-to-answers: src/http/middleware/limits.ts → src/http/handlers/grants.ts',
      'parameters-stand-alone: src/http/parameters/alertBody.ts → src/http/middleware/routing.ts',
      'store-adapters-apart: src/subscriptions/postgres/usageStore.ts → src/subscriptions/sqlite/database.ts',
      'store-port-side-not-to-adapters: src/subscriptions/demo.ts → src/subscriptions/sqlite/database.ts',
    ]);
  });

  it("fails on an import against the embedded engine's inner layering (index < query < collect < runtime; threads in runtime/ only)", async () => {
    const dir = tree({
      ...CLEAN,
      // The index reaching for the plan (the query side).
      'src/search/sqlite/index/columns.ts':
        "import { LIMIT } from '../query/plan.js';\nexport const columns = LIMIT;\n",
      'src/search/sqlite/query/plan.ts': 'export const LIMIT = 256;\n',
      // The query side reaching for a page.
      'src/search/sqlite/query/filters.ts':
        "import { page } from '../collect/offsetPage.js';\nexport const filters = page;\n",
      // collect/ doing I/O and knowing threads.
      'src/search/sqlite/collect/offsetPage.ts':
        "import { isMainThread } from 'node:worker_threads';\nimport { file } from " +
        "'../storage/catalogFile.js';\nexport const page = isMainThread ? file : '';\n",
      // storage/ reaching for the runtime.
      'src/search/sqlite/storage/catalogFile.ts':
        "import { engine } from '../runtime/engine.js';\nexport const file = engine;\n",
      // The runtime may know threads and everything below it.
      'src/search/sqlite/runtime/engine.ts':
        "import { Worker } from 'node:worker_threads';\nimport { LIMIT } from '../query/plan.js';\nexport " +
        'const engine = `${typeof Worker}${LIMIT}`;\n',
    });
    dirs.push(dir);
    const { code, output } = await check(dir);
    expect(code, output).to.not.equal(0);
    expect(violations(output), output).to.deep.equal([
      'engine-collect-pure: src/search/sqlite/collect/offsetPage.ts → src/search/sqlite/storage/catalogFile.ts',
      'engine-index-below-query: src/search/sqlite/index/columns.ts → src/search/sqlite/query/plan.ts',
      'engine-query-below-collect: src/search/sqlite/query/filters.ts → src/search/sqlite/collect/offsetPage.ts',
      'engine-storage-below-runtime: src/search/sqlite/storage/catalogFile.ts → src/search/sqlite/runtime/engine.ts',
      'engine-threads-in-runtime: src/search/sqlite/collect/offsetPage.ts → worker_threads',
    ]);
  });

  it('fails on an import it cannot resolve (a check that cannot see an import cannot judge it)', async () => {
    const dir = tree({
      ...CLEAN,
      'src/grants/schema.ts': "import { nothing } from './missing.js';\nexport const schema = nothing;\n",
    });
    dirs.push(dir);
    const { code, output } = await check(dir);
    expect(code, output).to.not.equal(0);
    expect(violations(output), output).to.deep.equal(['resolvable: src/grants/schema.ts → ./missing.js']);
  });
});
