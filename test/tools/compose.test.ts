// compose.yaml (the fleet layout) verified without Docker, which this machine does not have:
// 1. The file itself: it parses; the services built from this repository set only variables the
//    code reads (loadConfig, the one reader of the environment), with values it accepts, and that
//    the configuration table of docs/operations.md documents; their commands name scripts, subcommands and
//    files that exist and that the Dockerfile copies into the image (with every folder tsconfig.json
//    compiles); the replicas wait for what they need, API_INSTANCES counts them, and their health
//    check asks their own port.
// 2. The layout run as local processes: each service's own environment and command, with the
//    compose hostnames (elasticsearch, redis, postgres) replaced by the shared test services (a
//    database made for this suite, an alias and a Redis key prefix of its own): migrate, then the
//    indexer, then api-1 and api-2 (a DATA_DIR each, as two containers have), both ready and
//    passing the compose health check; a key made with grants-admin works on both, their
//    /subscription/usage agree, and a revoked key is refused by both within a second.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { FIXTURES, REPO_ROOT } from '../support/api.js';
import { ES_URL, uniqueAlias } from '../support/elasticsearch.js';
import {
  burstAcross,
  createSubscription,
  describeWithFleetServices,
  fleetAdmin,
  refusalTimes,
  startInstance,
  tearDownFleet,
  usageFromEach,
  waitForSharedLimits,
  type FleetInstance,
} from '../support/fleet.js';
import { createTestDatabase, psql, type TestDatabase } from '../support/postgres.js';
import { launch, waitFor, type Exit } from '../support/processes.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
}

const compose = parse(readFileSync(path.join(REPO_ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
/** The services built from this repository (the others are stock images: Elasticsearch, Redis, PostgreSQL). */
const ours = Object.entries(services).filter(([, s]) => s.build !== undefined);
/** The API replicas: built here, running the image's CMD (no command of their own). */
const replicas = ours.filter(([, s]) => s.command === undefined);

const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
/** What the build stage copies from the repository (first path of each COPY without --from). */
const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
const imageCmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];

/** Every environment variable loadConfig reads (it reads each one it knows, set or not). */
function variablesTheCodeReads(): Set<string> {
  const read = new Set<string>();
  loadConfig(
    new Proxy({} as Record<string, string | undefined>, {
      get: (_, name) => (typeof name === 'string' && read.add(name), undefined),
    }),
  );
  return read;
}

/** The variables of the configuration table (docs/operations.md, "Configuration"). */
function documentedVariables(): Set<string> {
  const guide = readFileSync(path.join(REPO_ROOT, 'docs/operations.md'), 'utf8');
  const start = guide.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('docs/operations.md has no "## Configuration" section');
  const section = guide.slice(start, guide.indexOf('\n## ', start + 1));
  return new Set([...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]));
}

/** Whether the image holds a repository path: it or a folder above it is copied by the Dockerfile. */
const inImage = (file: string): boolean =>
  copied.some((source) => file === source || file.startsWith(`${source.replace(/\/$/, '')}/`));

/**
 * A service's environment on this machine: every value naming a compose service by its hostname
 * (http://elasticsearch:9200, redis://redis:6379, postgres://…@postgres:5432/grants) is replaced by
 * the stand-in for that service; anything else is kept as compose sets it. A hostname without a
 * stand-in is an error, not silently kept.
 */
function onThisMachine(environment: Record<string, string>, standIns: Record<string, string>): Record<string, string> {
  const local: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    let host: string | null;
    try {
      host = new URL(value).hostname;
    } catch {
      host = null;
    }
    if (host !== null && host in services) {
      if (!(host in standIns))
        throw new Error(`${name} names the compose service "${host}", which has no local stand-in`);
      local[name] = standIns[host];
    } else {
      local[name] = String(value);
    }
  }
  return local;
}

/** Runs a compose command (["node", script, …]) to its end in the repository, as the image's WORKDIR. */
async function runCommand(
  command: string[],
  env: Record<string, string>,
): Promise<Exit & { out: string; err: string }> {
  expect(command[0]).to.equal('node');
  const proc = launch(process.execPath, command.slice(1), { cwd: REPO_ROOT, env: { PATH: process.env.PATH, ...env } });
  const exit = await proc.exited;
  return { ...exit, out: proc.stdout(), err: proc.stderr() };
}

describe('compose.yaml: the fleet layout', function () {
  this.timeout(60_000);

  it('parses, with Elasticsearch, Redis and PostgreSQL, the one-shot migrate and indexer, and two API replicas', function () {
    expect(Object.keys(services).sort()).to.deep.equal([
      'api-1',
      'api-2',
      'elasticsearch',
      'indexer',
      'migrate',
      'postgres',
      'redis',
    ]);
    expect(replicas.map(([name]) => name)).to.deep.equal(['api-1', 'api-2']);
    expect(ours.map(([name]) => name).sort()).to.deep.equal(['api-1', 'api-2', 'indexer', 'migrate']);
  });

  it('sets only variables the code reads, with values it accepts, and the configuration table documents', function () {
    const read = variablesTheCodeReads();
    const documented = documentedVariables();
    expect(read.size, 'variables loadConfig reads').to.be.greaterThan(20);
    for (const [name, service] of ours) {
      const variables = Object.keys(service.environment ?? {});
      expect(variables, `${name} sets variables`).to.not.be.empty;
      expect(
        variables.filter((v) => !read.has(v)),
        `${name}: variables the code never reads`,
      ).to.deep.equal([]);
      expect(
        variables.filter((v) => !documented.has(v)),
        `${name}: variables missing from the configuration table of docs/operations.md`,
      ).to.deep.equal([]);
      expect(() => loadConfig(service.environment), `${name}: its values pass the start-up validation`).to.not.throw();
    }
  });

  it('runs commands that exist: the bin scripts, their subcommands and files, and the image CMD, all in the image', async function () {
    const bins = Object.values(
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).bin as Record<string, string>,
    );
    for (const [name, service] of ours.filter(([, s]) => s.command !== undefined)) {
      const [node, script, subcommand, ...rest] = service.command!;
      expect(node, name).to.equal('node');
      expect(bins, `${name}: ${script} is one of the package's bin scripts`).to.include(script);
      expect(existsSync(path.join(REPO_ROOT, script)), `${name}: ${script} exists`).to.equal(true);
      expect(inImage(script), `${name}: the Dockerfile copies ${script}`).to.equal(true);
      for (const file of rest.filter((arg) => !arg.startsWith('-') && arg.includes('/'))) {
        expect(existsSync(path.join(REPO_ROOT, file)), `${name}: ${file} exists`).to.equal(true);
        expect(inImage(file), `${name}: the Dockerfile copies ${file}`).to.equal(true);
      }
      const help = await runCommand([node, script, '--help'], {});
      expect(help.code, help.err).to.equal(0);
      expect(help.out, `${name}: "${subcommand}" is a command of ${script}`).to.match(
        new RegExp(`^  ${subcommand}(\\s|$)`, 'm'),
      );
      // The command's own options, checked by the command's parser (--help exits 2 on an unknown option).
      const own = await runCommand([...service.command!, '--help'], {});
      expect(own.code, `${name}: ${service.command!.join(' ')} --help\n${own.err}`).to.equal(0);
    }
    // The replicas run the image CMD: node, its V8 options (test/unit/start-options.test.ts holds them equal to npm
    // start's), the API.
    const script = imageCmd[imageCmd.length - 1];
    expect(imageCmd[0], 'the replicas run the image CMD').to.equal('node');
    expect(script, 'the replicas run the image CMD').to.equal('dist/src/main.js');
    expect(
      imageCmd.slice(1, -1).filter((arg) => !arg.startsWith('--')),
      'only options between node and the API',
    ).to.deep.equal([]);
    expect(existsSync(path.join(REPO_ROOT, script)), `${script} is built`).to.equal(true);
    expect(dockerfile, 'the image is built with npm run build').to.match(/RUN npm ci && npm run build/);
    const compiled = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] })
      .include;
    expect(
      compiled.filter((folder) => !inImage(folder)),
      'folders tsconfig.json compiles that the Dockerfile does not copy',
    ).to.deep.equal([]);
  });

  it('starts the replicas after the services are healthy and the one-shots done; API_INSTANCES counts them; the health check asks their port', function () {
    for (const [name, service] of replicas) {
      expect(service.depends_on, name).to.deep.equal({
        elasticsearch: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        postgres: { condition: 'service_healthy' },
        indexer: { condition: 'service_completed_successfully' },
        migrate: { condition: 'service_completed_successfully' },
      });
      for (const needed of ['elasticsearch', 'redis', 'postgres'])
        expect(services[needed].healthcheck, `${needed} has a health check`).to.not.equal(undefined);
      expect(Number(service.environment?.API_INSTANCES), `${name}: API_INSTANCES`).to.equal(replicas.length);
      const check = service.healthcheck!.test.join(' ');
      expect(check, `${name}: health check on its own port`).to.include(
        `127.0.0.1:${service.environment!.PORT}/readyz`,
      );
      expect(
        service.ports?.[0].endsWith(`:${service.environment!.PORT}`),
        `${name}: the published port is PORT`,
      ).to.equal(true);
    }
    expect(services.migrate.depends_on).to.deep.equal({ postgres: { condition: 'service_healthy' } });
    expect(services.indexer.depends_on).to.deep.equal({ elasticsearch: { condition: 'service_healthy' } });
  });

  describeWithFleetServices('run as local processes on the shared services', function () {
    this.timeout(180_000);

    let workDir: string;
    let database: TestDatabase;
    let alias: string;
    let prefix: string;
    let standIns: Record<string, string>;
    /** grants-admin's environment: the store, as the migrate service names it. */
    let adminEnv: Record<string, string>;
    const fleet: FleetInstance[] = [];
    const fixtureCount = readFileSync(FIXTURES, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '').length;
    const first = JSON.parse(readFileSync(FIXTURES, 'utf8').split('\n')[0]) as { id: string };
    const billable = `/external/v1/grants/${first.id}`;

    /** A service's compose environment on this machine (and the test's own alias). */
    const localEnvOf = (name: string): Record<string, string> => {
      const env = onThisMachine(services[name].environment ?? {}, standIns);
      if ('ELASTICSEARCH_INDEX' in env) env.ELASTICSEARCH_INDEX = alias;
      return env;
    };

    before(async function () {
      workDir = mkdtempSync(path.join(tmpdir(), 'grants-compose-'));
      database = await createTestDatabase('compose');
      alias = uniqueAlias();
      prefix = uniquePrefix();
      standIns = { elasticsearch: ES_URL as string, redis: REDIS_URL as string, postgres: database.url };
      adminEnv = localEnvOf('migrate');
    });

    after(async function () {
      await tearDownFleet({ fleet, database, prefix, alias, workDir });
    });

    it('migrate: its command migrates the fresh database', async function () {
      const run = await runCommand(services.migrate.command!, adminEnv);
      expect(run.code, run.err).to.equal(0);
      const version = /postgres store at schema version (\d+)/.exec(run.out);
      expect(version, run.out).to.not.equal(null);
      expect(await psql(database.url, 'select max(version) from schema_migrations')).to.equal(version![1]);
    });

    it('indexer: its command loads the fixture catalog behind the alias', async function () {
      const run = await runCommand(services.indexer.command!, localEnvOf('indexer'));
      expect(run.code, run.err).to.equal(0);
      expect(run.out).to.include(`reindex: indexed ${fixtureCount}, rejected 0; the new catalog is live`);
    });

    it('api-1 and api-2: each on its own DATA_DIR, ready on the shared services, and passing the compose health check', async function () {
      for (const [name] of replicas) {
        const env = { ...localEnvOf(name), REDIS_KEY_PREFIX: prefix };
        fleet.push(await startInstance(name, { env, workDir }));
      }
      expect(new Set(fleet.map((i) => i.dataDir)).size).to.equal(2);
      expect(await waitForSharedLimits(fleet), 'instances not on the shared limits').to.deep.equal([]);
      for (const [index, [name, service]] of replicas.entries()) {
        const instance = fleet[index];
        const ready = await fetch(`${instance.url}/readyz`);
        const body = (await ready.json()) as {
          status: string;
          engine: string;
          grants: number;
          limits: string;
          store?: { kind?: string; state?: string };
        };
        expect(ready.status, name).to.equal(200);
        expect(body, name).to.deep.include({
          status: 'ready',
          engine: 'elasticsearch',
          grants: fixtureCount,
          limits: 'redis',
        });
        expect(body.store?.kind, `${name}: the store`).to.equal('postgres');
        expect(
          existsSync(path.join(instance.dataDir, 'subscriptions.sqlite')),
          `${name} keeps no subscriptions database`,
        ).to.equal(false);
        // The compose health check, as Docker runs it in the container, asked at this instance's port.
        const [kind, ...argv] = service.healthcheck!.test;
        expect(kind).to.equal('CMD');
        const local = argv.map((arg) =>
          arg.replace(`127.0.0.1:${service.environment!.PORT}`, new URL(instance.url).host),
        );
        const check = await runCommand(local, {});
        expect(check.code, `${name}: health check ${local.join(' ')}\n${check.err}`).to.equal(0);
      }
    });

    it('a key made with grants-admin (DATABASE_URL) works on both, and /subscription/usage agrees on both', async function () {
      expect(fleet, 'the replicas started').to.have.length(2);
      const { apiKey } = await createSubscription(adminEnv, workDir, ['--name', 'compose', '--tier', 'PROFESSIONAL']);
      const sent = await burstAcross(fleet, 10, apiKey, billable);
      expect(sent.counts).to.deep.equal({ ok: 10 });
      const search = await Promise.all(fleet.map((i) => i.request('/external/v1/grants?limit=1', apiKey)));
      for (const answer of search) expect(answer.status).to.equal(200);
      for (const answer of search) expect(answer.body.pagination.total).to.equal(fixtureCount);
      // Each instance writes its usage in batches (within 200 ms): wait until both say 12 calls.
      // The usage reads are logged too, each by the instance that answers it, so the two answers
      // are compared without the /subscription/usage counts (asked at the same moment, each may or
      // may not hold the other's read yet).
      const withoutUsageReads = (data: any) => ({
        currentMonth: data.currentMonth,
        subscription: data.subscription,
        daily: data.statistics.daily.map((d: any) => ({
          date: d.date,
          byEndpoint: { ...d.byEndpoint, '/subscription/usage': undefined },
        })),
      });
      let bodies: string[] = [];
      const agreed = await waitFor(
        async () => {
          const usage = await usageFromEach(fleet, apiKey);
          bodies = usage.map((u) => JSON.stringify(withoutUsageReads(u.body.data)));
          return (
            usage.every((u) => u.status === 200 && u.body.data.currentMonth.calls === 12) && new Set(bodies).size === 1
          );
        },
        5000,
        100,
      );
      expect(agreed, bodies.join('\n')).to.equal(true);
    });

    it('a key revoked through grants-admin is refused by both within a second', async function () {
      expect(fleet, 'the replicas started').to.have.length(2);
      const { apiKey, keyId } = await createSubscription(adminEnv, workDir, [
        '--name',
        'compose-revoked',
        '--tier',
        'STARTER',
      ]);
      for (const instance of fleet) expect((await instance.request(billable, apiKey)).status).to.equal(200);
      const revoke = await fleetAdmin(['key', 'revoke', keyId, '--force'], adminEnv, workDir);
      expect(revoke.code, revoke.err).to.equal(0);
      const refusedBy = await refusalTimes(fleet, apiKey, Date.now(), billable);
      expect([...refusedBy.keys()].sort()).to.deep.equal(['api-1', 'api-2']);
      for (const [name, ms] of refusedBy)
        expect(ms, `${name} refused the key ${ms} ms after the revocation`).to.be.below(1000);
    });
  });
});
