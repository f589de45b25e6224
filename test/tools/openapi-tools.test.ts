// The committed openapi.json as third-party tools take it, run for real: Redocly CLI's recommended
// ruleset (0 errors, 0 warnings), and openapi-generator's typescript-fetch client, generated with
// no option, compiled whole (every file it writes, not only those our calls import) with
// `tsc --strict`, then calling a real API on a real port (every answer it gets checked against
// the document by the strict response check of the test client).
// The generator's jar (pinned in openapitools.json) is cached under .cache/openapi-generator.
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { EXAMPLE_GRANT } from '../../src/http/openapi/examples.js';
import { API_PREFIX } from '../../src/http/routeTable.js';
import { fixtureGrants, REPO_ROOT, tempDir, type TestApi } from '../support/api.js';
import { indexOrThrow, startApiOnCatalog, writeNdjson } from '../support/catalog.js';
import { checkedFetch as checkedFetchOf } from '../support/checkedFetch.js';

const run = promisify(execFile);
const bin = (name: string): string => path.join(REPO_ROOT, 'node_modules/.bin', name);
const COMMITTED = path.join(REPO_ROOT, 'openapi.json');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

/** `redocly lint --format=json` on a file, with the repository's redocly.yaml (the recommended ruleset). */
async function lint(file: string): Promise<LintReport> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const result = await run(bin('redocly'), ['lint', file, '--format=json'], {
    cwd: REPO_ROOT,
    env,
    maxBuffer: 32 * 1024 * 1024,
  }).catch((failed: { stdout: string; stderr: string }) => failed);
  return JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as LintReport;
}

/** Every TypeScript file the generator wrote under `dir`, relative to its parent, sorted. */
function generatedSources(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(path.basename(dir), file))
    .sort();
}

describe('openapi.json in third-party tools', function () {
  this.timeout(180_000);

  describe('Redocly CLI, recommended ruleset', function () {
    it('passes with 0 errors and 0 warnings', async function () {
      const report = await lint(COMMITTED);
      expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).to.deep.equal([]);
      expect(report.totals).to.include({ errors: 0, warnings: 0 });
    });

    it('reports a document that breaks its rules (the check can fail)', async function () {
      const broken = JSON.parse(readFileSync(COMMITTED, 'utf8'));
      delete broken.info.license;
      delete broken.paths['/grants'].get.operationId;
      const dir = tempDir('openapi-lint-');
      try {
        const file = path.join(dir, 'openapi.json');
        writeFileSync(file, JSON.stringify(broken));
        const report = await lint(file);
        expect(report.problems.map((p) => p.ruleId)).to.include.members(['info-license', 'operation-operationId']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('openapi-generator typescript-fetch', function () {
    let api: TestApi | undefined;
    let dataDir: string;
    const removed = fixtureGrants()[0];
    const clientDir = path.join(REPO_ROOT, '.cache/openapi-client');

    before(async function () {
      try {
        execFileSync('java', ['-version'], { stdio: 'ignore' });
      } catch {
        if (process.env.CI === 'true') throw new Error('java is needed to run openapi-generator');
        this.skip();
      }
      // A catalog of fixture grants, then a sync that removes one: the feed holds a tombstone.
      dataDir = tempDir('openapi-client-');
      const grants = [EXAMPLE_GRANT, ...fixtureGrants().slice(0, 9)];
      await indexOrThrow(dataDir, ['reindex', '--source', writeNdjson(dataDir, 'all.ndjson', grants)]);
      await indexOrThrow(dataDir, [
        'sync',
        '--prune',
        '--source',
        writeNdjson(
          dataDir,
          'less.ndjson',
          grants.filter((g) => g.id !== removed.id),
        ),
      ]);
      api = await startApiOnCatalog(dataDir);
    });
    after(async function () {
      await api?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('generates a client whose every file compiles under tsc --strict, and calls search, one grant, filters, changes, export, usage and limits', async function () {
      rmSync(clientDir, { recursive: true, force: true });
      mkdirSync(clientDir, { recursive: true });
      // The generator as a partner runs it: the committed document, no options, no type mappings.
      await run(
        bin('openapi-generator-cli'),
        ['generate', '-i', COMMITTED, '-g', 'typescript-fetch', '-o', path.join(clientDir, 'client')],
        {
          cwd: REPO_ROOT,
          maxBuffer: 32 * 1024 * 1024,
        },
      );
      writeFileSync(path.join(clientDir, 'calls.ts'), CALLS);
      // CommonJS output in a folder with no package.json of its own: Node reads it as CommonJS.
      writeFileSync(path.join(clientDir, 'package.json'), '{ "type": "commonjs" }\n');
      // The whole package: a file no call imports (an API class of a tag we do not call) must compile too.
      const generated = generatedSources(path.join(clientDir, 'client'));
      expect(generated, 'the generated files').to.include.members([
        'client/index.ts',
        'client/runtime.ts',
        'client/apis/GrantsApi.ts',
        'client/apis/WebhooksApi.ts',
      ]);
      const tsc = await run(
        bin('tsc'),
        [
          '--strict',
          '--target',
          'es2022',
          '--module',
          'commonjs',
          '--lib',
          'es2022,dom',
          '--outDir',
          'out',
          'calls.ts',
          ...generated,
        ],
        {
          cwd: clientDir,
        },
      ).catch((failed: { stdout: string }) => failed);
      expect(tsc.stdout, 'tsc --strict on the whole generated client').to.equal('');

      // Every request the generated client sends, and its answer, goes through the strict checks of the test client.
      const checkedFetch = checkedFetchOf();
      const calls = createRequire(import.meta.url)(path.join(clientDir, 'out/calls.js')) as {
        run: (basePath: string, key: string, fetchApi: typeof fetch) => Promise<any>;
      };
      const result = await calls.run(api!.url + API_PREFIX, api!.key, checkedFetch);

      expect(result.search.total).to.be.above(0);
      expect(result.search.ids).to.include(EXAMPLE_GRANT.id);
      for (const grant of result.search.grants)
        expect(Object.keys(grant).filter((k) => grant[k] !== undefined)).to.have.members(['id', 'title', 'deadline']);
      expect(result.search.currencies).to.deep.equal(['CAD']);
      expect(result.grant).to.deep.equal({
        id: EXAMPLE_GRANT.id,
        title: EXAMPLE_GRANT.title,
        deadline: EXAMPLE_GRANT.deadline,
        amountMax: EXAMPLE_GRANT.amountMax,
      });
      expect(result.filters.provinces).to.include('ONTARIO');
      expect(result.changes.tombstones).to.deep.equal([
        { id: removed.id, deleted: true, grant: null, changedAtIsDate: true },
      ]);
      expect(result.changes.live).to.equal(9);
      expect(result.changes.liveIds).to.include(EXAMPLE_GRANT.id);
      expect(result.export.lines).to.equal(result.export.count);
      expect(result.export.firstLine).to.have.property('id');
      expect(result.usage.calls).to.be.a('number');
      expect(result.usage.days).to.equal(7);
      expect(result.limits.tier).to.equal('ENTERPRISE');
      expect(result.limits.export).to.equal(true);
    });
  });
});

/** The partner's program, in TypeScript against the generated types (compiled with the client under --strict). */
const CALLS = `import {
  Configuration,
  GrantsApi,
  SubscriptionApi,
  ExportGrantsFormatEnum,
  SearchGrantsEligibleProvincesEnum,
  SearchGrantsFacetsEnum,
  SearchGrantsFieldsEnum,
  type ChangeEntry,
} from './client';

export async function run(basePath: string, key: string, fetchApi: typeof fetch) {
  const config = new Configuration({ basePath, accessToken: key, fetchApi });
  const grants = new GrantsApi(config);
  const subscription = new SubscriptionApi(config);

  const search = await grants.searchGrants({
    eligibleProvinces: new Set([SearchGrantsEligibleProvincesEnum.Quebec, SearchGrantsEligibleProvincesEnum.Ontario]),
    facets: new Set([SearchGrantsFacetsEnum.SdgAlignment, SearchGrantsFacetsEnum.Currency]),
    fields: new Set([SearchGrantsFieldsEnum.Id, SearchGrantsFieldsEnum.Title, SearchGrantsFieldsEnum.Deadline]),
    limit: 50,
  });
  const one = await grants.getGrant({ id: '${EXAMPLE_GRANT.id}' });
  const filters = await grants.getGrantFilters();
  const changes = await grants.getGrantChanges({ since: '0', limit: 1000 });
  const entries: ChangeEntry[] = changes.data;
  const exported = await grants.exportGrantsRaw({
    format: ExportGrantsFormatEnum.Ndjson,
    eligibleProvinces: new Set([SearchGrantsEligibleProvincesEnum.Ontario]),
  });
  const text: string = await exported.value();
  const usage = await subscription.getUsage({ days: 7 });
  const limits = await subscription.getLimits();

  return {
    search: {
      total: search.pagination.total,
      ids: search.data.map((grant) => grant.id),
      grants: search.data.map((grant) => ({ ...grant })),
      currencies: (search.facets?.currency ?? []).map((facet) => facet.value),
    },
    grant: {
      id: one.data.id,
      title: one.data.title,
      deadline: one.data.deadline?.toISOString() ?? null,
      amountMax: one.data.amountMax,
    },
    filters: { provinces: filters.data.eligibleProvinces },
    changes: {
      live: entries.filter((entry) => !entry.deleted).length,
      liveIds: entries.filter((entry) => !entry.deleted).map((entry) => entry.id),
      tombstones: entries
        .filter((entry) => entry.deleted)
        .map((entry) => ({
          id: entry.id,
          deleted: entry.deleted,
          grant: entry.grant,
          changedAtIsDate: entry.changedAt instanceof Date,
        })),
    },
    export: {
      count: Number(exported.raw.headers.get('X-Export-Count')),
      lines: text.split('\\n').filter((line) => line !== '').length,
      firstLine: JSON.parse(text.split('\\n')[0]) as unknown,
    },
    usage: { calls: usage.data.currentMonth.calls, days: usage.data.statistics.daily.length },
    limits: { tier: limits.data.subscription.tier, export: limits.data.features.grants._export },
  };
}
`;
