// The SDK as a package: its generated types match openapi.json, `npm pack` makes a tarball of the
// built files, and a fresh project that installs the tarball imports it and type-checks a
// partner's code against it (wrong parameters refused by the compiler).
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/api.js';
import { run, SDK_DIR } from '../support/sdk.js';

const sdkPackage = JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
  exports: Record<string, { types: string; import: string } | string>;
};

/** The partner code type-checked against the installed tarball. */
const CONSUMER = `
import { createGrantsClient, GrantsApiError, verifyWebhook, type ChangeEntry, type Grant } from '@grants-api/client';

const client = createGrantsClient({ baseUrl: 'https://grants.example.com', apiKey: 'key', retry: { maxAttempts: 3 } });

export async function use(body: string, headers: Record<string, string>): Promise<string[]> {
  const page = await client.grants.search({ search: 'energy', eligibleProvinces: ['ONTARIO'], limit: 5 });
  const ids: string[] = page.data.map((g) => g.id ?? '');
  const total: number = page.pagination.total;
  // @ts-expect-error: not a province
  await client.grants.search({ eligibleProvinces: ['ATLANTIS'] });
  // @ts-expect-error: no such parameter
  await client.grants.search({ colour: 'red' });
  for await (const grant of client.grants.iterate({ fundingType: ['GRANT'] })) ids.push(grant.id ?? '');
  const one: Grant = (await client.grants.get('g-1')).data;
  const { nextSince } = await client.changes.sync('0', (entry: ChangeEntry) => {
    if (entry.deleted) {
      const removed: null = entry.grant;
      void removed;
    } else {
      const latest: Grant = entry.grant;
      void latest;
    }
  });
  const alert = await client.alerts.create({
    name: 'n',
    query: { eligibleProvinces: ['QUEBEC'] },
    url: 'https://example.com/hook',
  });
  // @ts-expect-error: an alert query takes GET /grants's filters only
  await client.alerts.create({ name: 'n', query: { eligibleProvinces: ['ATLANTIS'] }, url: 'https://example.com/hook' });
  const event = verifyWebhook(body, headers, alert.data.secret);
  const tier: 'STARTER' | 'PROFESSIONAL' | 'ENTERPRISE' = (await client.subscription.limits()).data.subscription.tier;
  try {
    await client.grants.get('missing');
  } catch (error) {
    if (error instanceof GrantsApiError && error.code === 'NOT_FOUND')
      ids.push(error.requestId ?? '', ...error.details.map((d) => d.parameter));
  }
  const raw = await client.raw.GET('/grants/{id}', { params: { path: { id: 'g-1' } } });
  const csv = await client.raw.GET('/grants/export', { params: { query: { format: 'csv' } }, parseAs: 'text' });
  ids.push(csv.data ?? '');
  return [...ids, String(total), one.id, nextSince, event.type, tier, raw.data?.data.id ?? ''];
}
`;

describe('TypeScript SDK: the package', function () {
  this.timeout(300_000);
  let work: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'grants-sdk-pack-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('src/schema.ts is what openapi-typescript generates from openapi.json today (run `npm run generate` in clients/typescript)', async () => {
    const generate = sdkPackage.scripts.generate;
    expect(generate).to.match(/^openapi-typescript \.\.\/\.\.\/openapi\.json .*--output src\/schema\.ts$/);
    const require = createRequire(path.join(SDK_DIR, 'package.json'));
    const cliPackage = require.resolve('openapi-typescript/package.json');
    const bin = (JSON.parse(readFileSync(cliPackage, 'utf8')) as { bin: Record<string, string> }).bin[
      'openapi-typescript'
    ];
    const fresh = path.join(work, 'schema.ts');
    const args = generate
      .split(' ')
      .slice(1)
      .map((arg) => (arg === 'src/schema.ts' ? fresh : arg));
    const generated = await run(process.execPath, [path.join(path.dirname(cliPackage), bin), ...args], SDK_DIR);
    expect(generated.code, generated.err).to.equal(0);
    const committed = readFileSync(path.join(SDK_DIR, 'src/schema.ts'), 'utf8');
    expect(
      committed === readFileSync(fresh, 'utf8'),
      'clients/typescript/src/schema.ts is out of date with openapi.json: run `npm run generate` in clients/typescript',
    ).to.equal(true);
    expect(committed).to.contain('"/grants/changes"').and.to.contain('export interface webhooks');
    // The generator read the same document the API serves.
    expect(JSON.parse(readFileSync(path.join(REPO_ROOT, 'openapi.json'), 'utf8')).openapi).to.match(/^3\.1\./);
  });

  it('npm pack builds it and packs the built files (no sources, no build info), which a fresh project installs, imports and type-checks against', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], SDK_DIR);
    expect(packed.code, packed.err).to.equal(0);
    const report = JSON.parse(packed.out.slice(packed.out.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = report[0].files.map((f) => f.path);
    for (const file of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/schema.d.ts',
      'dist/client.js',
      'dist/retry.js',
      'dist/webhooks.js',
    ]) {
      expect(files, file).to.include(file);
    }
    const entry = sdkPackage.exports['.'] as { types: string; import: string };
    expect(files).to.include.members([entry.types, entry.import].map((p) => p.replace(/^\.\//, '')));
    expect(files.filter((f) => f.startsWith('src/') || f.includes('tsbuildinfo') || f.endsWith('.tgz'))).to.deep.equal(
      [],
    );
    const tarball = path.join(work, report[0].filename);
    const listing = await run('tar', ['-tzf', tarball], work);
    expect(listing.out.split('\n')).to.include.members([
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/package.json',
    ]);

    // A partner's project: install the tarball (its dependencies from the npm cache when there, else
    // the registry: an install from a lockfile caches tarballs, not the metadata a range needs), import it, type-check
    // code using it.
    const consumer = path.join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const installed = await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', tarball],
      consumer,
    );
    expect(installed.code, installed.err).to.equal(0);
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@grants-api/client'); console.log(Object.keys(m).sort().join(','))",
      ],
      consumer,
    );
    expect(imported.code, imported.err).to.equal(0);
    expect(imported.out.trim().split(',')).to.include.members([
      'createGrantsClient',
      'GrantsApiError',
      'verifyWebhook',
      'WebhookVerificationError',
    ]);
    writeFileSync(path.join(consumer, 'use.ts'), CONSUMER);
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', consumer], consumer);
    expect(checked.code, checked.out + checked.err).to.equal(0);
    // The compiler does refuse a misuse: the same code with an @ts-expect-error removed fails.
    writeFileSync(path.join(consumer, 'use.ts'), CONSUMER.replace('// @ts-expect-error: not a province\n', ''));
    const refused = await run(process.execPath, [tsc, '-p', consumer], consumer);
    expect(refused.code).to.not.equal(0);
    expect(refused.out).to.contain('ATLANTIS');
  });
});
