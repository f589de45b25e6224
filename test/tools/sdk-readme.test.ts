// Every TypeScript example of the SDK's README (clients/typescript/README.md), run as a partner
// would run it: the SDK built by its own package script, each ```ts block compiled under
// `tsc --strict` against the built package (`@grants-api/client`) and then run, in the README's
// order, against a real API on the bundled fixture catalog (its clock at the time of the
// document's examples, so that `open: true` finds the same grants whenever the test runs).
// The names an example takes as given (the client, your storage functions, the request of a
// webhook) come from PRELUDE below; an example that throws, or finds nothing where it reads a
// result, fails the test.
import { expect } from 'chai';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXAMPLE_META } from '../../src/http/openapi/examples.js';
import { REPO_ROOT, startTestApi, type TestApi } from '../support/api.js';
import { parseBlocks, type Block } from '../support/guides.js';
import { loadSdk, run } from '../support/sdk.js';

const README = 'clients/typescript/README.md';

/**
 * What the README's examples assume exists, as a partner's program would provide it: `client`
 * (on the test's API, from GRANTS_API_URL and GRANTS_API_KEY), `createGrantsClient`, `baseUrl` and `apiKey`, storage
 * functions that keep what they are given in memory (`save`, `upsert`, `remove`, `storeKey`,
 * `storeSecret`, `loadPosition`, `savePosition`), `notify` and `log`, and a webhook request
 * (`rawBody`, `req`, `res`, `secret`): a grant.matched event signed with `secret` as the API signs
 * its deliveries (Standard Webhooks: HMAC-SHA256 of `id.timestamp.body`).
 */
const PRELUDE = `import { createHmac, randomBytes } from 'node:crypto';
import { createGrantsClient, type ChangeEntry, type Grant } from '@grants-api/client';

export { createGrantsClient };

export const baseUrl = process.env.GRANTS_API_URL!;
export const apiKey = process.env.GRANTS_API_KEY!;
export const client = createGrantsClient({ baseUrl, apiKey });

export const saved: { id: string }[] = [];
export const save = (grant: { id: string }): void => void saved.push(grant);
export const copy = new Map<string, Grant>();
export const upsert = async (grant: ChangeEntry['grant']): Promise<void> =>
  void (grant !== null && copy.set(grant.id, grant));
export const remove = async (id: string): Promise<void> => void copy.delete(id);
let position: string | null = null;
export const loadPosition = (): string | null => position;
export const savePosition = (next: string): void => void (position = next);
export const stored = new Map<string, string>();
export const storeKey = (key: string): void => void stored.set('key', key);
export const storeSecret = (id: string, alertSecret: string): void => void stored.set(id, alertSecret);
export const notified: unknown[] = [];
export const notify = (what: unknown): void => void notified.push(what);
export const log = (what: unknown): void => void notified.push(what);

export const secret = 'whsec_' + randomBytes(24).toString('base64');
const id = 'msg_readme';
const timestamp = String(Math.floor(Date.now() / 1000));
export const rawBody = JSON.stringify({
  type: 'grant.matched',
  timestamp: new Date().toISOString(),
  data: { alert: { id: 'alt_readme', name: 'README' }, grant: { id: 'grt_readme' }, reason: null, change: null },
});
const signature = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
  .update(id + '.' + timestamp + '.' + rawBody)
  .digest('base64');
export const req = {
  headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': 'v1,' + signature },
};
export const res = { statusCode: 0, ended: false, end(): void { this.ended = true; } };
`;

/** The names PRELUDE exports. */
const PRELUDE_NAMES = [...PRELUDE.matchAll(/^export (?:const (\w+)|\{ (\w+) \})/gm)].map((m) => m[1] ?? m[2]);

/** The names a block declares or imports itself (so it does not take them from the prelude). */
function ownNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(/\b(?:const|let|var)\s+(?:\{([^}]*)\}|(\w+))/g)) {
    if (m[2] !== undefined) names.add(m[2]);
    else for (const part of m[1].split(',')) names.add(part.split(':').pop()!.trim());
  }
  for (const m of code.matchAll(/^import\s*\{([^}]*)\}/gm))
    for (const part of m[1].split(','))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
      );
  return names;
}

/** One example as a module: the prelude's names it uses and does not declare, then the block. */
function exampleModule(block: Block): string {
  const own = ownNames(block.text);
  const taken = PRELUDE_NAMES.filter((name) => !own.has(name) && new RegExp(`\\b${name}\\b`).test(block.text));
  return (
    `${taken.length > 0 ? `import { ${taken.join(', ')} } from './prelude.js';\n` : ''}${block.text}\nexport ` + `{};\n`
  );
}

describe(`TypeScript SDK: every example of ${README} runs against the bundled catalog`, function () {
  this.timeout(300_000);
  const work = path.join(REPO_ROOT, '.cache/sdk-readme');
  const blocks = parseBlocks(readFileSync(path.join(REPO_ROOT, README), 'utf8'), README).filter(
    (block) => block.lang === 'ts',
  );
  let api: TestApi;
  const env = { url: process.env.GRANTS_API_URL, key: process.env.GRANTS_API_KEY };

  before(async function () {
    await loadSdk(); // builds clients/typescript/dist, which @grants-api/client resolves to
    api = await startTestApi({}, { clock: () => new Date(EXAMPLE_META.timestamp) });
    process.env.GRANTS_API_URL = api.url;
    process.env.GRANTS_API_KEY = api.key;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    // Inside the repository, so that `@grants-api/client` resolves to the workspace package.
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(work, 'prelude.ts'), PRELUDE);
    for (const [i, block] of blocks.entries())
      writeFileSync(path.join(work, `example${i + 1}.ts`), exampleModule(block));
    writeFileSync(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: true,
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: ['node'],
          outDir: 'out',
        },
        include: ['*.ts'],
      }),
    );
  });
  after(async function () {
    await api?.stop();
    for (const [name, value] of [
      ['GRANTS_API_URL', env.url],
      ['GRANTS_API_KEY', env.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('has the examples to run (the README has TypeScript blocks)', function () {
    expect(blocks.length).to.be.at.least(8);
  });

  it('compiles every example under tsc --strict against the built package', async function () {
    const tsc = await run(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', work],
      work,
    );
    expect(tsc.out + tsc.err, 'tsc --strict on the examples').to.equal('');
  });

  it('runs every example, in order, without an error', async function () {
    const failed: string[] = [];
    for (const [i, block] of blocks.entries()) {
      try {
        await import(pathToFileURL(path.join(work, 'out', `example${i + 1}.js`)).href);
      } catch (error) {
        failed.push(`${block.file}:${block.line}: ${(error as Error).message}`);
      }
    }
    expect(failed).to.deep.equal([]);
    const prelude = (await import(pathToFileURL(path.join(work, 'out', 'prelude.js')).href)) as {
      saved: unknown[];
      copy: Map<string, unknown>;
      res: { statusCode: number };
      notified: unknown[];
    };
    // What the examples did: cursor paging saved grants, the changes feed filled a copy, the webhook was verified.
    expect(prelude.saved.length, 'iterate saved grants').to.be.above(0);
    expect(prelude.copy.size, 'sync copied grants').to.be.above(0);
    expect(prelude.res.statusCode, 'the webhook example verified the delivery').to.equal(204);
  });
});
