// The chaos scenario (issue: "npm run chaos"): three API instances on a PostgreSQL, a Redis and an
// Elasticsearch of the run's own, a steady open-loop load of several partners at their rates
// spread round-robin over the live instances, alerts delivering to local receivers while a sync
// changes the catalog every few seconds, and, one after another with recovery between, the faults
// of the issue. It counts, per phase, what was sent and answered, by status, what was cut (no
// answer), any status outside the documented ones, and the time to full recovery; at the end,
// usage records lost, each partner's monthly count against what the load generator saw billed, and
// alert events lost or duplicated. One module for both runs: `npm run chaos` (test/chaos/run.ts,
// the issue's durations) and the CI variant (test/fleet/chaos.test.ts, shorter faults).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runIndexer } from '../../indexer/cli.js';
import { REPO_ROOT } from '../support/api.js';
import { captureCli, grantRecord, writeNdjson, type GrantRecord } from '../support/catalog.js';
import { startPrivateElasticsearch, type PrivateElasticsearch } from '../support/elasticsearch.js';
import { createSubscription, startInstance, type FleetInstance } from '../support/fleet.js';
import { startPrivatePostgres, type PrivatePostgres } from '../support/postgres.js';
import { startPrivateRedis, type PrivateRedis } from '../support/redis.js';
import { startRaces, type RaceTally } from './races.js';

const P = '/external/v1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PartnerSpec {
  name: string;
  tier: 'STARTER' | 'PROFESSIONAL' | 'ENTERPRISE';
  /** Requests per second, open loop (sent on schedule whatever the answers). */
  rate: number;
}

export interface ChaosParams {
  /** How long each outage or hang lasts. */
  faultMs: number;
  /** The burst: how long, and by how much every partner's rate is multiplied. */
  burstMs: number;
  burstFactor: number;
  /** Slow-loris connections held open (spread over the instances), and for how long. */
  slowLoris: number;
  slowLorisMs: number;
  /** Load with no fault at the start, and load after each recovery before the next fault. */
  baselineMs: number;
  settleMs: number;
  /**
   * The longest wait for a recovery, counted from when what the fault stopped is back (the
   * restarted service answering, the restarted instance listening), and for the alerts to drain
   * at the end.
   */
  recoveryTimeoutMs: number;
  drainTimeoutMs: number;
  /** A catalog sync (new and changed grants) every so often. */
  syncEveryMs: number;
  partners: PartnerSpec[];
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

/** The issue's run: 15 s faults, a 10 s burst at 10x, 500 slow-loris connections. */
export const LONG_RUN: ChaosParams = {
  faultMs: 15_000,
  burstMs: 10_000,
  burstFactor: 10,
  slowLoris: 500,
  slowLorisMs: 15_000,
  baselineMs: 10_000,
  settleMs: 5_000,
  recoveryTimeoutMs: 120_000,
  drainTimeoutMs: 120_000,
  syncEveryMs: 3_000,
  partners: [
    { name: 'starter', tier: 'STARTER', rate: 4 },
    { name: 'pro-a', tier: 'PROFESSIONAL', rate: 12 },
    { name: 'pro-b', tier: 'PROFESSIONAL', rate: 8 },
    { name: 'enterprise', tier: 'ENTERPRISE', rate: 20 },
  ],
};

/** The CI variant: the same scenario with shorter faults, a smaller burst and fewer slow-loris connections. */
export const SHORT_RUN: ChaosParams = {
  ...LONG_RUN,
  faultMs: 4_500,
  burstMs: 4_000,
  burstFactor: 5,
  slowLoris: 100,
  slowLorisMs: 4_500,
  baselineMs: 3_000,
  settleMs: 1_500,
  recoveryTimeoutMs: 90_000,
  drainTimeoutMs: 90_000,
  syncEveryMs: 2_500,
};

export interface PhaseRow {
  phase: string;
  sent: number;
  answered: number;
  byStatus: Record<string, number>;
  /** Sent but never answered: the connection was reset or closed (an instance killed under it). */
  cut: number;
  /** Any 5xx but 503, or any status the OpenAPI document does not list for the route. */
  undocumented: number;
  undocumentedDetail: string[];
  /**
   * From the end of the fault until every instance is ready and a probe on each is answered 200; null for the baseline.
   */
  recoveryMs: number | null;
  note: string;
}

export interface PartnerCount {
  partner: string;
  /** Answers the generator saw billed: a billable route, admitted (rate-limit headers), not a 429. */
  billedSeen: number;
  /** The month's count in PostgreSQL. */
  monthly: number;
  /** Requests of this partner cut at the kill (part of the bound on the over-count). */
  cutAtKill: number;
  /**
   * Billable requests answered 503 without the rate-limit headers: refused at admission because
   * the store did not answer in time; the count may still land (the rest of the bound).
   */
  refusedAtAdmission: number;
  /** Every request of this partner cut during the run. */
  cutTotal: number;
}

export interface ChaosReport {
  startedAt: string;
  machine: string;
  params: Omit<ChaosParams, 'log'>;
  rows: PhaseRow[];
  /** Answered requests that passed authentication (rate-limit headers) with no row in usage_log. */
  usageRecordsLost: number;
  usageRowsChecked: number;
  partners: PartnerCount[];
  underCount: number;
  overCountBeyondBound: number;
  alerts: {
    outbox: number;
    delivered: number;
    received: number;
    uniqueReceived: number;
    /** Same webhook-id received more than once (allowed: receivers de-duplicate on it). */
    redelivered: number;
    expected: number;
    lost: number;
    lostDetail: string[];
    duplicated: number;
    duplicatedDetail: string[];
  };
  /**
   * Two keys revoking each other and simultaneous alert creations, round after round through the faults (./races.ts).
   */
  races: RaceTally;
  /** Instances that exited when nothing killed them. */
  unexpectedExits: string[];
  /** The instances' warnings and errors (pino level 40 and up), by phase and message. */
  instanceLog: { phase: string; level: number; msg: string; count: number }[];
  /** Where every instance's whole output (stdout and stderr) was kept; null when it could not be written. */
  logDir: string | null;
  durationMs: number;
}

/** The must-be-zero figures that are not: empty when the run passed. */
export function failures(report: ChaosReport): string[] {
  const out: string[] = [];
  const undocumented = report.rows.reduce((n, r) => n + r.undocumented, 0);
  if (undocumented > 0)
    out.push(
      `${undocumented} answers with an undocumented status (${report.rows
        .flatMap((r) => r.undocumentedDetail.map((d) => `${r.phase}: ${d}`))
        .slice(0, 10)
        .join('; ')})`,
    );
  if (report.usageRecordsLost > 0) out.push(`${report.usageRecordsLost} usage records lost`);
  if (report.underCount > 0) out.push(`monthly counts under what was served by ${report.underCount}`);
  if (report.overCountBeyondBound > 0)
    out.push(
      `monthly counts over the bound (requests cut at the kill or refused at admission) by ` +
        `${report.overCountBeyondBound}`,
    );
  if (report.alerts.lost > 0)
    out.push(`${report.alerts.lost} alert events lost (${report.alerts.lostDetail.slice(0, 10).join('; ')})`);
  if (report.alerts.duplicated > 0)
    out.push(
      `${report.alerts.duplicated} alert events duplicated under another webhook-id ` +
        `(${report.alerts.duplicatedDetail.slice(0, 10).join('; ')})`,
    );
  if (report.races.bothRevoked > 0)
    out.push(`${report.races.bothRevoked} rounds in which two keys revoking each other both succeeded`);
  if (report.races.lockedOut) out.push('a subscription was locked out: none of its keys works');
  if (report.races.overLimit > 0) out.push(`the alert limit was passed ${report.races.overLimit} times`);
  if (report.unexpectedExits.length > 0) out.push(`instances exited unasked: ${report.unexpectedExits.join('; ')}`);
  const unrecovered = report.rows.filter((r) => r.recoveryMs === -1).map((r) => r.phase);
  if (unrecovered.length > 0) out.push(`no full recovery after: ${unrecovered.join(', ')}`);
  return out;
}

const seconds = (ms: number | null): string => (ms === null ? '–' : ms < 0 ? 'never' : (ms / 1000).toFixed(1));

/** The report as markdown: the phase table, then the end-of-run accounting. */
export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  lines.push(
    `Chaos run of ${report.startedAt} on ${report.machine}; faults ${report.params.faultMs / 1000} s, burst ` +
      `${report.params.burstFactor}x for ${report.params.burstMs / 1000} s, ${report.params.slowLoris} ` +
      `slow-loris connections; load ` +
      `${report.params.partners.map((p) => `${p.name} (${p.tier}) ${p.rate}/s`).join(', ')}; ` +
      `${(report.durationMs / 1000).toFixed(0)} s in all.`,
  );
  lines.push('');
  lines.push('| phase | sent | answered | 200 | 429 | 503 | other | cut | undocumented | recovery (s) |');
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
  for (const r of report.rows) {
    const other = Object.entries(r.byStatus)
      .filter(([s]) => !['200', '429', '503'].includes(s))
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    lines.push(
      `| ${r.phase} | ${r.sent} | ${r.answered} | ${r.byStatus['200'] ?? 0} | ${r.byStatus['429'] ?? 0} | ` +
        `${r.byStatus['503'] ?? 0} | ${other || '0'} | ${r.cut} | ${r.undocumented} | ` +
        `${seconds(r.recoveryMs)} |`,
    );
  }
  lines.push('');
  lines.push(
    '| partner | billed answers seen | monthly count | over-count | bound (cut at the kill + 503 at admission) |',
  );
  lines.push('| --- | ---: | ---: | ---: | ---: |');
  for (const p of report.partners)
    lines.push(
      `| ${p.partner} | ${p.billedSeen} | ${p.monthly} | ${p.monthly - p.billedSeen} | ${p.cutAtKill} + ` +
        `${p.refusedAtAdmission} |`,
    );
  lines.push('');
  const a = report.alerts;
  lines.push('| must be zero | value |');
  lines.push('| --- | ---: |');
  lines.push(`| undocumented statuses | ${report.rows.reduce((n, r) => n + r.undocumented, 0)} |`);
  lines.push(`| usage records lost (of ${report.usageRowsChecked} answers checked) | ${report.usageRecordsLost} |`);
  lines.push(`| monthly under-count | ${report.underCount} |`);
  lines.push(`| monthly over-count beyond the bound | ${report.overCountBeyondBound} |`);
  lines.push(`| alert events lost (of ${a.expected} expected, ${a.outbox} outbox messages) | ${a.lost} |`);
  lines.push(
    `| alert events duplicated under another webhook-id (${a.received} received, ${a.redelivered} ` +
      `redelivered under the same id) | ${a.duplicated} |`,
  );
  const r = report.races;
  lines.push(
    `| two keys revoking each other both succeeding (of ${r.revocationRounds} rounds answered) | ${r.bothRevoked} |`,
  );
  lines.push(`| subscriptions locked out (no key works) | ${r.lockedOut ? 1 : 0} |`);
  lines.push(
    `| alert limit passed (${r.creationRounds} rounds of 8 simultaneous creations against a limit of 5, ` +
      `${r.created} created) | ${r.overLimit} |`,
  );
  lines.push(`| instances exiting unasked | ${report.unexpectedExits.length} |`);
  const notes = report.rows.filter((r) => r.note !== '').map((r) => `- ${r.phase}: ${r.note}`);
  if (notes.length > 0) lines.push('', ...notes);
  if (report.instanceLog.length > 0) {
    lines.push('', 'Warnings and errors the instances logged:');
    for (const e of report.instanceLog)
      lines.push(`- ${e.phase}: ${e.level >= 50 ? 'error' : 'warn'} "${e.msg}" x${e.count}`);
  }
  if (report.logDir !== null) lines.push('', `The instances' logs: ${report.logDir}`);
  return lines.join('\n');
}

// ---- The routes of the load and their documented statuses ------------------------------------

interface Route {
  template: string;
  billable: boolean;
  path: (i: number) => string;
  weight: number;
}

function documentedStatuses(): Map<string, Set<number>> {
  const doc = JSON.parse(readFileSync(path.join(REPO_ROOT, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  const out = new Map<string, Set<number>>();
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || op === null || op.responses === undefined) continue;
      out.set(`${method.toUpperCase()} ${template}`, new Set(Object.keys(op.responses).map(Number)));
    }
  }
  return out;
}

const SEED_IDS = Array.from({ length: 40 }, (_, i) => `g-${i + 1}`);
const SEARCHES = [
  'search=program',
  'funderType=FOUNDATION',
  'search=funder&page=2',
  'fundingType=GRANT',
  'currency=CAD&sort=-updatedAt',
];

const ROUTES: Route[] = [
  { template: '/grants', billable: true, path: (i) => `/grants?${SEARCHES[i % SEARCHES.length]}`, weight: 3 },
  { template: '/grants/{id}', billable: true, path: (i) => `/grants/${SEED_IDS[i % SEED_IDS.length]}`, weight: 4 },
  { template: '/grants/filters', billable: true, path: () => '/grants/filters', weight: 1 },
  { template: '/subscription/usage', billable: false, path: () => '/subscription/usage', weight: 2 },
];
const ROUTE_CYCLE: Route[] = ROUTES.flatMap((r) => Array.from({ length: r.weight }, () => r));

// ---- The load balancer and the tracked client -------------------------------------------------

interface Outcome {
  phase: string;
  partner: string;
  instance: string;
  route: string;
  billableRoute: boolean;
  status: number | null;
  error: string | null;
  requestId: string | null;
  /** Passed authentication and the limits: the answer carries the rate-limit headers. */
  admitted: boolean;
}

class Balancer {
  readonly live: Map<string, FleetInstance> = new Map();
  readonly agents = new Map<string, http.Agent>();
  private next = 0;

  add(instance: FleetInstance): void {
    this.live.set(instance.name, instance);
    if (!this.agents.has(instance.name))
      this.agents.set(instance.name, new http.Agent({ keepAlive: true, maxSockets: 128, timeout: 3000 }));
  }

  remove(name: string): void {
    this.live.delete(name);
  }

  pick(): FleetInstance | null {
    const live = [...this.live.values()];
    if (live.length === 0) return null;
    this.next = (this.next + 1) % live.length;
    return live[this.next];
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }
}

interface Exchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a node:http keep-alive agent; rejects when no answer comes (reset, refused, 60 s). */
function exchange(
  agent: http.Agent,
  baseUrl: string,
  pathAndQuery: string,
  key: string,
  init: { method?: string; body?: string } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl + pathAndQuery);
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
    if (init.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(init.body));
    }
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: init.method ?? 'GET',
        agent,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('no answer within 60 s')), 60_000);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(init.body);
  });
}

// ---- Webhook receivers --------------------------------------------------------------------------

interface Received {
  webhookId: string;
  alertId: string;
  type: string;
  grantId: string | null;
  title: string | null;
  position: string | null;
}

async function startReceiver(into: Received[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          type: string;
          data: {
            alert: { id: string };
            grant?: { id: string; title?: string };
            change?: { position?: string } | null;
          };
        };
        into.push({
          webhookId: String(req.headers['webhook-id'] ?? ''),
          alertId: event.data.alert.id,
          type: event.type,
          grantId: event.data.grant?.id ?? null,
          title: event.data.grant?.title ?? null,
          position: event.data.change?.position ?? null,
        });
      } catch {
        into.push({
          webhookId: String(req.headers['webhook-id'] ?? ''),
          alertId: '?',
          type: 'unparsable',
          grantId: null,
          title: null,
          position: null,
        });
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- Slow loris ---------------------------------------------------------------------------------

/**
 * Opens `count` connections spread over the instances, each sending a request's headers a few bytes at a time and never
 * finishing them.
 */
function slowLoris(
  instances: FleetInstance[],
  count: number,
): { opened(): number; closedByServer(): number; stop(): void } {
  const sockets: net.Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  let opened = 0;
  let closedByServer = 0;
  let stopping = false;
  for (let i = 0; i < count; i += 1) {
    const url = new URL(instances[i % instances.length].url);
    const socket = net.createConnection({ host: url.hostname, port: Number(url.port) });
    sockets.push(socket);
    socket.on('connect', () => {
      opened += 1;
      socket.write(`GET ${P}/grants?search=slow HTTP/1.1\r\nHost: ${url.host}\r\n`);
      let n = 0;
      const timer = setInterval(() => {
        n += 1;
        if (!socket.destroyed) socket.write(`X-Slow-${n}: ${n}\r\n`);
      }, 1000);
      timers.push(timer);
    });
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.on('close', () => {
      if (!stopping) closedByServer += 1;
    });
  }
  return {
    opened: () => opened,
    closedByServer: () => closedByServer,
    stop() {
      stopping = true;
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}

// ---- The run ------------------------------------------------------------------------------------

interface Services {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  es: PrivateElasticsearch;
}

/** Runs the whole scenario and returns its report; every process it started is stopped before it returns. */
export async function runChaos(params: ChaosParams): Promise<ChaosReport> {
  const log = params.log ?? ((line: string) => process.stderr.write(`[chaos] ${line}\n`));
  const t0 = Date.now();
  const startedAt = new Date().toISOString();
  const workDir = mkdtempSync(path.join(tmpdir(), 'grants-chaos-'));
  const documented = documentedStatuses();
  const outcomes: Outcome[] = [];
  const received: Received[] = [];
  const fleet: FleetInstance[] = [];
  const launched: FleetInstance[] = [];
  const phaseStarts: { name: string; at: number }[] = [];
  const expectedExit = new Set<number>();
  const unexpectedExits: string[] = [];
  const balancer = new Balancer();
  const receivers: { url: string; close(): Promise<void> }[] = [];
  let services: Partial<Services> = {};
  let phase = 'setup';
  const inFlight = new Map<string, Set<Outcome>>();
  let stopLoad = true;
  let loadLoop: Promise<void> = Promise.resolve();
  let syncLoop: Promise<void> = Promise.resolve();
  let stopSync = true;
  let races: ReturnType<typeof startRaces> | null = null;
  // Every instance's output, kept after the run (the work directory is not) for whoever reads a failure.
  let logDir: string | null | undefined;
  const keepLogs = (): string | null => {
    if (logDir === undefined) logDir = writeInstanceLogs(startedAt, launched);
    return logDir;
  };

  try {
    log('starting a private PostgreSQL, Redis and Elasticsearch');
    const [pgServer, redis, es] = await Promise.all([
      startPrivatePostgres(),
      startPrivateRedis(),
      startPrivateElasticsearch(),
    ]);
    services = { pg: pgServer, redis, es };
    const databaseUrl = await pgServer.createDatabase('chaos');
    const records: GrantRecord[] = SEED_IDS.map((id, i) =>
      grantRecord(id, { funderType: i % 2 === 0 ? 'FEDERAL_GRANT' : 'FOUNDATION' }),
    );
    const seedFile = writeNdjson(workDir, 'seed.ndjson', records);
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'chaos:',
      API_INSTANCES: '3',
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: es.url,
      ELASTICSEARCH_INDEX: 'chaos-grants',
      SEED_FILE: seedFile,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ALERTS_POLL_MS: '200',
      WEBHOOK_CONCURRENCY: '4',
      SHUTDOWN_TIMEOUT_MS: '5000',
    };

    const watch = (instance: FleetInstance) => {
      void instance.process.exited.then((exit) => {
        if (!expectedExit.has(instance.process.pid)) {
          unexpectedExits.push(
            `${instance.name} (pid ${instance.process.pid}) exited ${JSON.stringify(exit)} in phase ` +
              `${phase}: ${instance.process.stderr().slice(-1500)}`,
          );
          balancer.remove(instance.name);
        }
      });
    };
    const launchInstance = async (name: string, dataDir?: string): Promise<FleetInstance> => {
      const instance = await startInstance(name, { env, workDir, dataDir });
      launched.push(instance);
      watch(instance);
      return instance;
    };
    log('starting three API instances');
    fleet.push(await launchInstance('api-1'));
    fleet.push(...(await Promise.all(['api-2', 'api-3'].map((name) => launchInstance(name)))));
    for (const instance of fleet) balancer.add(instance);

    // The racers (./races.ts) send no steady load: a rate of their own that a round cannot reach.
    const racers: PartnerSpec[] = [
      { name: 'key-racer', tier: 'PROFESSIONAL', rate: 0 },
      { name: 'alert-racer', tier: 'STARTER', rate: 0 },
    ];
    const partners = await Promise.all(
      [...params.partners, { name: 'probe', tier: 'ENTERPRISE' as const, rate: 0 }, ...racers].map(async (spec) => ({
        spec,
        ...(await createSubscription(env, workDir, [
          '--name',
          spec.name,
          '--tier',
          spec.tier,
          ...(racers.includes(spec) ? ['--rate-limit', '1000'] : []),
        ])),
      })),
    );
    const probe = partners.find((p) => p.spec.name === 'probe')!;

    /** One tracked request: its outcome is kept under the phase it was sent in. */
    const send = async (
      partner: (typeof partners)[number],
      route: Route,
      pathAndQuery: string,
      instance: FleetInstance | null,
      init: { method?: string; body?: string } = {},
    ): Promise<Exchange | null> => {
      const target = instance ?? balancer.pick();
      if (target === null) return null;
      const outcome: Outcome = {
        phase,
        partner: partner.spec.name,
        instance: target.name,
        route: `${init.method ?? 'GET'} ${route.template}`,
        billableRoute: route.billable,
        status: null,
        error: null,
        requestId: null,
        admitted: false,
      };
      outcomes.push(outcome);
      const set = inFlight.get(target.name) ?? new Set<Outcome>();
      inFlight.set(target.name, set);
      set.add(outcome);
      try {
        const answer = await exchange(
          balancer.agents.get(target.name)!,
          target.url,
          P + pathAndQuery,
          partner.apiKey,
          init,
        );
        outcome.status = answer.status;
        outcome.requestId = (answer.headers['x-request-id'] as string | undefined) ?? null;
        outcome.admitted = answer.headers['x-ratelimit-limit'] !== undefined;
        return answer;
      } catch (error) {
        outcome.error = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return null;
      } finally {
        set.delete(outcome);
      }
    };

    // Alerts: two per partner (everything; the FOUNDATION grants), each partner's to a receiver of its own.
    log('creating alerts');
    const alertsRoute: Route = { template: '/alerts', billable: true, path: () => '/alerts', weight: 0 };
    const alerts: { id: string; partner: string; foundationOnly: boolean }[] = [];
    for (const partner of partners.filter((p) => p.spec.rate > 0)) {
      const receiver = await startReceiver(received);
      receivers.push(receiver);
      for (const foundationOnly of [false, true]) {
        const body = JSON.stringify({
          name: foundationOnly ? 'foundations' : 'everything',
          query: foundationOnly ? { funderType: ['FOUNDATION'] } : {},
          url: receiver.url,
          events: ['grant.matched', 'grant.updated', 'grant.unmatched'],
        });
        const answer = await send(partner, alertsRoute, '/alerts', fleet[0], { method: 'POST', body });
        if (answer?.status !== 201) throw new Error(`creating an alert failed: ${answer?.status} ${answer?.body}`);
        alerts.push({
          id: (JSON.parse(answer.body) as { data: { id: string } }).data.id,
          partner: partner.spec.name,
          foundationOnly,
        });
      }
    }

    // The catalog changes: each round adds four grants (FEDERAL_GRANT and FOUNDATION in turn) and retitles two added
    // earlier.
    const added: { id: string; foundation: boolean }[] = [];
    const titles = new Map<string, string>();
    let round = 0;
    let syncsOk = 0;
    let syncsFailed = 0;
    const syncOnce = async (): Promise<boolean> => {
      const file = writeNdjson(workDir, `sync-${round}.ndjson`, records);
      try {
        const run = await captureCli((io) =>
          runIndexer(
            ['sync', '--source', file],
            { ...process.env, ...env, DATA_DIR: workDir, LOG_LEVEL: 'silent', ELASTICSEARCH_TIMEOUT_MS: '2000' },
            io,
          ),
        );
        if (run.code === 0) syncsOk += 1;
        else syncsFailed += 1;
        return run.code === 0;
      } catch {
        syncsFailed += 1;
        return false;
      } finally {
        rmSync(file, { force: true });
      }
    };
    const changeRound = () => {
      round += 1;
      for (let i = 0; i < 4; i += 1) {
        const id = `c${round}-${i}`;
        const foundation = i % 2 === 1;
        added.push({ id, foundation });
        const title = `Program ${id}`;
        titles.set(id, title);
        records.push(grantRecord(id, { funderType: foundation ? 'FOUNDATION' : 'FEDERAL_GRANT' }));
      }
      const older = added.slice(0, Math.max(0, added.length - 4));
      for (let k = 0; k < 2 && older.length > 0; k += 1) {
        const pick = older[(round * 7 + k * 3) % older.length];
        const title = `Program ${pick.id} (rev ${round})`;
        titles.set(pick.id, title);
        const at = records.findIndex((r) => r.id === pick.id);
        records[at] = grantRecord(pick.id, {
          funderType: pick.foundation ? 'FOUNDATION' : 'FEDERAL_GRANT',
          title,
          updatedAt: new Date().toISOString(),
        });
      }
    };
    stopSync = false;
    syncLoop = (async () => {
      while (!stopSync) {
        changeRound();
        await syncOnce();
        const wait = Date.now() + params.syncEveryMs;
        while (!stopSync && Date.now() < wait) await sleep(100);
      }
    })();

    // The open-loop load: each partner's requests on schedule, at its rate times the current factor.
    let factor = 1;
    stopLoad = false;
    const loadPartners = partners.filter((p) => p.spec.rate > 0);
    loadLoop = (async () => {
      const owed = new Map<string, number>(loadPartners.map((p) => [p.spec.name, 0]));
      const counter = new Map<string, number>(loadPartners.map((p) => [p.spec.name, 0]));
      let last = Date.now();
      while (!stopLoad) {
        await sleep(10);
        const now = Date.now();
        const dt = now - last;
        last = now;
        for (const partner of loadPartners) {
          let due = owed.get(partner.spec.name)! + (dt * partner.spec.rate * factor) / 1000;
          while (due >= 1) {
            due -= 1;
            const i = counter.get(partner.spec.name)!;
            counter.set(partner.spec.name, i + 1);
            const route = ROUTE_CYCLE[i % ROUTE_CYCLE.length];
            void send(partner, route, route.path(i), null);
          }
          owed.set(partner.spec.name, due);
        }
      }
    })();

    // The races, from now until the load stops.
    races = startRaces(
      (partner, route, pathAndQuery, init) => send(partner, route, pathAndQuery, null, init),
      partners.find((p) => p.spec.name === 'key-racer')!,
      partners.find((p) => p.spec.name === 'alert-racer')!,
      receivers[0].url,
      250,
    );
    const alertRacerId = partners.find((p) => p.spec.name === 'alert-racer')!.subscriptionId;

    const rows: PhaseRow[] = [];
    const notes = new Map<string, string>();
    const readyz = async (instance: FleetInstance): Promise<boolean> => {
      try {
        const res = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        return res.status === 200;
      } catch {
        return false;
      }
    };
    const probeRoute = ROUTES[1];
    /**
     * Waits until every instance is in the balancer, ready, and answers a probe with 200; ms from
     * `since`, or -1 when that has not happened recoveryTimeoutMs after `back`.
     */
    const recovered = async (since: number, back: number): Promise<number> => {
      const deadline = back + params.recoveryTimeoutMs;
      while (Date.now() < deadline) {
        if (balancer.live.size === fleet.length) {
          const ready = await Promise.all(fleet.map(readyz));
          if (ready.every(Boolean)) {
            const answers = await Promise.all(
              fleet.map((instance) => send(probe, probeRoute, probeRoute.path(0), instance)),
            );
            if (answers.every((a) => a?.status === 200)) return Date.now() - since;
          }
        }
        await sleep(200);
      }
      return -1;
    };
    /**
     * A fault returns when it ended (the recovery is timed from then) and when what it stopped was
     * back: the restarted service answering, or the restarted instance listening; the end itself
     * for a fault that restarts nothing. The wait for the recovery counts from `back`: a restart
     * has its own bound (an instance's listening line within 60 s, a node's start within
     * startPrivateElasticsearch's), and a node slow to start on a loaded machine is not taken for
     * an API that does not recover.
     */
    type Fault = () => Promise<{ end: number; back: number }>;
    const runPhase = async (name: string, fault: Fault | null, holdMs: number): Promise<void> => {
      phase = name;
      phaseStarts.push({ name, at: Date.now() });
      log(`phase ${name}`);
      let recoveryMs: number | null = null;
      if (fault === null) await sleep(holdMs);
      else {
        const { end, back } = await fault();
        recoveryMs = await recovered(end, back);
        log(`  recovered in ${seconds(recoveryMs)} s`);
        await sleep(holdMs);
      }
      rows.push({
        phase: name,
        sent: 0,
        answered: 0,
        byStatus: {},
        cut: 0,
        undocumented: 0,
        undocumentedDetail: [],
        recoveryMs,
        note: notes.get(name) ?? '',
      });
    };

    const { pg: pgs, redis: rds, es: ess } = services as Services;
    let cutAtKill = new Map<string, number>();

    await runPhase('baseline', null, params.baselineMs);

    await runPhase(
      '1. SIGKILL of an API instance, restart',
      async () => {
        // The matcher's lease holder, so the alerts are taken over too.
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        const holder = String(
          (await client.query('SELECT holder FROM alert_matcher WHERE id = 1')).rows[0]?.holder ?? '',
        );
        await client.end();
        const victim = fleet.find((f) => holder.includes(`-${f.process.pid}-`)) ?? fleet[1];
        balancer.remove(victim.name);
        const cutNow = [...(inFlight.get(victim.name) ?? [])];
        cutAtKill = new Map();
        for (const o of cutNow) cutAtKill.set(o.partner, (cutAtKill.get(o.partner) ?? 0) + 1);
        expectedExit.add(victim.process.pid);
        victim.process.child.kill('SIGKILL');
        await victim.process.exited;
        const killedAt = Date.now();
        notes.set(
          '1. SIGKILL of an API instance, restart',
          `killed ${victim.name}${holder.includes(`-${victim.process.pid}-`) ? ' (the alert matcher)' : ''} ` +
            `with ${cutNow.length} requests in flight; restarted on its DATA_DIR`,
        );
        const restarted = await launchInstance(victim.name, victim.dataDir);
        fleet[fleet.indexOf(victim)] = restarted;
        balancer.add(restarted);
        return { end: killedAt, back: Date.now() };
      },
      params.settleMs,
    );

    const outage =
      (stop: () => Promise<void> | void, start: () => Promise<void> | void): Fault =>
      async () => {
        await stop();
        await sleep(params.faultMs);
        const end = Date.now();
        await start();
        const back = Date.now();
        notes.set(phase, `the service answered again ${((back - end) / 1000).toFixed(1)} s after the fault ended`);
        return { end, back };
      };
    await runPhase(
      '2. PostgreSQL stopped',
      outage(
        () => pgs.stop('SIGINT'),
        () => pgs.start(),
      ),
      params.settleMs,
    );
    await runPhase(
      '3. PostgreSQL hung (SIGSTOP)',
      outage(
        () => pgs.pause(),
        () => pgs.resume(),
      ),
      params.settleMs,
    );
    await runPhase(
      '4. Redis stopped',
      outage(
        () => rds.stop('SIGKILL'),
        () => rds.restart(),
      ),
      params.settleMs,
    );
    await runPhase(
      '5a. Elasticsearch stopped',
      outage(
        () => ess.stop('SIGTERM'),
        () => ess.start(),
      ),
      params.settleMs,
    );
    await runPhase(
      '5b. Elasticsearch hung (SIGSTOP)',
      outage(
        () => ess.pause(),
        () => ess.resume(),
      ),
      params.settleMs,
    );
    await runPhase(
      `6. burst ${params.burstFactor}x`,
      async () => {
        factor = params.burstFactor;
        await sleep(params.burstMs);
        factor = 1;
        const end = Date.now();
        return { end, back: end };
      },
      params.settleMs,
    );
    await runPhase(
      `7. ${params.slowLoris} slow-loris connections`,
      async () => {
        const loris = slowLoris(fleet, params.slowLoris);
        await sleep(params.slowLorisMs);
        notes.set(
          `7. ${params.slowLoris} slow-loris connections`,
          `${loris.opened()} opened, ${loris.closedByServer()} closed by the server within ` +
            `${params.slowLorisMs / 1000} s`,
        );
        loris.stop();
        const end = Date.now();
        return { end, back: end };
      },
      params.settleMs,
    );
    rows[rows.length - 1].note = notes.get(rows[rows.length - 1].phase) ?? '';

    // The end: the load stops, the last answers come in, a final sync, the alerts drain.
    phase = 'end';
    phaseStarts.push({ name: 'end', at: Date.now() });
    stopLoad = true;
    await loadLoop;
    const raceTally = await races.stop(async () => {
      const counter = new pg.Client({ connectionString: databaseUrl });
      await counter.connect();
      try {
        return Number(
          (await counter.query('SELECT count(*) AS n FROM alerts WHERE subscription_id = $1', [alertRacerId])).rows[0]
            .n,
        );
      } finally {
        await counter.end();
      }
    });
    await sleep(100);
    const pendingDeadline = Date.now() + 70_000;
    while ([...inFlight.values()].some((s) => s.size > 0) && Date.now() < pendingDeadline) await sleep(100);
    stopSync = true;
    await syncLoop;
    const finalSync = await syncOnce();
    log(`load stopped; ${syncsOk} syncs made, ${syncsFailed} failed; final sync ${finalSync ? 'ok' : 'FAILED'}`);
    for (const row of rows) if (row.note === '') row.note = notes.get(row.phase) ?? '';

    // Expected events: every added grant matched by the partner's "everything" alert, the FOUNDATION ones by the other
    // too; and the last title of each grant told.
    const expected: { alertId: string; grantId: string; title: string }[] = [];
    for (const alert of alerts)
      for (const grant of added)
        if (!alert.foundationOnly || grant.foundation)
          expected.push({ alertId: alert.id, grantId: grant.id, title: titles.get(grant.id)! });
    const told = () => {
      const seen = new Set<string>();
      for (const r of received) if (r.grantId !== null) seen.add(`${r.alertId}|${r.grantId}|${r.title}`);
      return seen;
    };
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const pendingMessages = async () =>
      Number((await client.query("SELECT count(*) AS n FROM alert_messages WHERE status = 'PENDING'")).rows[0].n);
    const drainDeadline = Date.now() + params.drainTimeoutMs;
    for (;;) {
      const seen = told();
      const missing = expected.filter((e) => !seen.has(`${e.alertId}|${e.grantId}|${e.title}`)).length;
      if ((missing === 0 && (await pendingMessages()) === 0) || Date.now() > drainDeadline) break;
      await sleep(500);
    }
    await sleep(1000);

    // Usage: the rows of every admitted answer (waiting rows are written once the store answers: wait for them).
    const admitted = outcomes.filter((o) => o.status !== null && o.admitted && o.requestId !== null);
    const loggedIds = async () =>
      new Set(
        (await client.query('SELECT request_id FROM usage_log')).rows.map((r: { request_id: string }) => r.request_id),
      );
    let logged = await loggedIds();
    const usageDeadline = Date.now() + 30_000;
    while (admitted.some((o) => !logged.has(o.requestId!)) && Date.now() < usageDeadline) {
      await sleep(500);
      logged = await loggedIds();
    }
    const usageRecordsLost = admitted.filter((o) => !logged.has(o.requestId!)).length;

    const month = new Date().toISOString().slice(0, 7);
    const partnerCounts: PartnerCount[] = [];
    const monthlyOf = async (subscriptionId: string) =>
      Number(
        (
          await client.query(
            'SELECT coalesce(sum(calls), 0) AS n FROM monthly_usage WHERE subscription_id = $1 AND month = $2',
            [subscriptionId, month],
          )
        ).rows[0].n,
      );
    for (const partner of partners) {
      const mine = outcomes.filter((o) => o.partner === partner.spec.name);
      const billedSeen = mine.filter(
        (o) => o.billableRoute && o.admitted && o.status !== null && o.status !== 429,
      ).length;
      // The record catches up with what waited in memory: give it the same time as the usage rows.
      let monthly = await monthlyOf(partner.subscriptionId);
      const countDeadline = Date.now() + 15_000;
      while (monthly < billedSeen && Date.now() < countDeadline) {
        await sleep(500);
        monthly = await monthlyOf(partner.subscriptionId);
      }
      const refusedAtAdmission = mine.filter((o) => o.billableRoute && o.status === 503 && !o.admitted).length;
      partnerCounts.push({
        partner: partner.spec.name,
        billedSeen,
        monthly,
        cutAtKill: cutAtKill.get(partner.spec.name) ?? 0,
        refusedAtAdmission,
        cutTotal: mine.filter((o) => o.status === null).length,
      });
    }
    const underCount = partnerCounts.reduce((n, p) => n + Math.max(0, p.billedSeen - p.monthly), 0);
    const overCountBeyondBound = partnerCounts.reduce(
      (n, p) => n + Math.max(0, p.monthly - p.billedSeen - p.cutAtKill - p.refusedAtAdmission),
      0,
    );

    // Alerts: every outbox message delivered and received; every expected event received; no event under two
    // webhook-ids.
    const outbox = (
      await client.query(
        'SELECT id, alert_id, grant_id, type, status, attempts, last_status, last_error FROM alert_messages',
      )
    ).rows as {
      id: string;
      alert_id: string;
      grant_id: string | null;
      type: string;
      status: string;
      attempts: number;
      last_status: number | null;
      last_error: string | null;
    }[];
    await client.end();
    const receivedIds = new Set(received.map((r) => r.webhookId));
    const lostDetail: string[] = [];
    for (const m of outbox) {
      if (m.status !== 'DELIVERED')
        lostDetail.push(
          `${m.id} (${m.type} ${m.grant_id}) ${m.status} after ${m.attempts} attempts, last ` +
            `${m.last_status ?? ''} ${m.last_error ?? ''}`,
        );
      else if (!receivedIds.has(m.id))
        lostDetail.push(`${m.id} (${m.type} ${m.grant_id}) DELIVERED but never received`);
    }
    const seen = told();
    for (const e of expected)
      if (!seen.has(`${e.alertId}|${e.grantId}|${e.title}`))
        lostDetail.push(`${e.alertId}: ${e.grantId} as "${e.title}" never told`);
    const byEvent = new Map<string, Set<string>>();
    for (const r of received) {
      const key = `${r.alertId}|${r.grantId}|${r.type}|${r.position}`;
      byEvent.set(key, (byEvent.get(key) ?? new Set()).add(r.webhookId));
    }
    const duplicatedDetail = [...byEvent.entries()]
      .filter(([, ids]) => ids.size > 1)
      .map(([key, ids]) => `${key} under ${[...ids].join(', ')}`);

    // The instances' own warnings and errors, by phase.
    const logCounts = new Map<string, { phase: string; level: number; msg: string; count: number }>();
    /** What each answer the API could not handle (INTERNAL_ERROR) was, by request id: the error it logged. */
    const unhandled = new Map<string, string>();
    for (const instance of launched) {
      for (const line of instance.process.stdout().split('\n')) {
        if (!line.startsWith('{')) continue;
        let entry: {
          level?: number | string;
          msg?: string;
          time?: number | string;
          requestId?: unknown;
          err?: unknown;
        };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        const level = typeof entry.level === 'number' ? entry.level : (LEVELS[String(entry.level)] ?? 0);
        if (level < 40) continue;
        const at = typeof entry.time === 'number' ? entry.time : Date.parse(String(entry.time));
        const during = [...phaseStarts].reverse().find((p) => p.at <= at)?.name ?? 'setup';
        const key = `${during}|${level}|${entry.msg}`;
        if (entry.msg === 'unhandled error' && typeof entry.requestId === 'string')
          unhandled.set(entry.requestId, loggedError(entry.err));
        const known = logCounts.get(key) ?? { phase: during, level, msg: String(entry.msg), count: 0 };
        known.count += 1;
        logCounts.set(key, known);
      }
    }

    // The phase rows from the outcomes.
    for (const row of rows) {
      const mine = outcomes.filter((o) => o.phase === row.phase);
      row.sent = mine.length;
      for (const o of mine) {
        if (o.status === null) {
          row.cut += 1;
          continue;
        }
        row.answered += 1;
        row.byStatus[String(o.status)] = (row.byStatus[String(o.status)] ?? 0) + 1;
        const listed = documented.get(o.route)?.has(o.status) === true;
        if ((o.status >= 500 && o.status !== 503) || !listed) {
          row.undocumented += 1;
          if (row.undocumentedDetail.length < 20) {
            const cause = o.requestId === null ? undefined : unhandled.get(o.requestId);
            const logged =
              o.status < 500 ? '' : cause === undefined ? ': the instance logged no error for it' : `: ${cause}`;
            row.undocumentedDetail.push(`${o.status} on ${o.route} from ${o.instance} (${o.requestId})${logged}`);
          }
        }
      }
      const refusals = new Map<string, number>();
      for (const o of mine) if (o.status === 503) refusals.set(o.route, (refusals.get(o.route) ?? 0) + 1);
      if (refusals.size > 0)
        row.note =
          `${row.note}${row.note ? '; ' : ''}503 on ` +
          `${[...refusals].map(([route, n]) => `${route} ${n}`).join(', ')}`;
      const errors = new Map<string, number>();
      for (const o of mine) if (o.error !== null) errors.set(o.error, (errors.get(o.error) ?? 0) + 1);
      if (errors.size > 0)
        row.note =
          `${row.note}${row.note ? '; ' : ''}no answer: ` + [...errors].map(([e, n]) => `${e} ${n}`).join(', ');
    }
    const setup = outcomes.filter((o) => !rows.some((r) => r.phase === o.phase));
    const setupBad = setup.filter((o) => o.status === null || (o.status >= 500 && o.status !== 503));
    if (setupBad.length > 0)
      rows.push({
        phase: 'set-up and end',
        sent: setup.length,
        answered: setup.filter((o) => o.status !== null).length,
        byStatus: {},
        cut: setup.filter((o) => o.status === null).length,
        undocumented: setupBad.length,
        undocumentedDetail: setupBad.map((o) => `${o.status} ${o.route}`),
        recoveryMs: null,
        note: '',
      });

    return {
      startedAt,
      machine: machineLine(),
      params: { ...params, log: undefined } as Omit<ChaosParams, 'log'>,
      rows,
      usageRecordsLost,
      usageRowsChecked: admitted.length,
      partners: partnerCounts,
      underCount,
      overCountBeyondBound,
      alerts: {
        outbox: outbox.length,
        delivered: outbox.filter((m) => m.status === 'DELIVERED').length,
        received: received.length,
        uniqueReceived: receivedIds.size,
        redelivered: received.length - receivedIds.size,
        expected: expected.length,
        lost: lostDetail.length,
        lostDetail,
        duplicated: duplicatedDetail.length,
        duplicatedDetail,
      },
      races: raceTally,
      unexpectedExits,
      instanceLog: [...logCounts.values()],
      logDir: keepLogs(),
      durationMs: Date.now() - t0,
    };
  } finally {
    stopLoad = true;
    stopSync = true;
    await loadLoop.catch(() => undefined);
    await syncLoop.catch(() => undefined);
    await races?.cancel();
    for (const instance of fleet) {
      expectedExit.add(instance.process.pid);
      instance.process.kill();
    }
    await Promise.allSettled(fleet.map((i) => i.process.exited));
    keepLogs();
    balancer.close();
    for (const receiver of receivers) await receiver.close().catch(() => undefined);
    services.pg?.resume();
    services.es?.resume();
    await Promise.allSettled([services.pg?.dispose(), services.redis?.dispose(), services.es?.dispose()]);
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Runs whose instance logs are kept under .cache/chaos (the oldest beyond these are removed). */
const KEPT_LOG_RUNS = 5;

/**
 * Writes each instance's stdout and stderr to .cache/chaos/<start time>/<name>-<pid>.log; the folder, or null if it
 * could not be written.
 */
function writeInstanceLogs(startedAt: string, instances: readonly FleetInstance[]): string | null {
  const root = path.join(REPO_ROOT, '.cache/chaos');
  const dir = path.join(root, startedAt.replace(/[:.]/g, '-'));
  try {
    mkdirSync(dir, { recursive: true });
    for (const instance of instances) {
      writeFileSync(path.join(dir, `${instance.name}-${instance.process.pid}.log`), instance.process.stdout());
      if (instance.process.stderr() !== '')
        writeFileSync(path.join(dir, `${instance.name}-${instance.process.pid}.stderr.log`), instance.process.stderr());
    }
    const runs = readdirSync(root).sort();
    for (const old of runs.slice(0, Math.max(0, runs.length - KEPT_LOG_RUNS)))
      rmSync(path.join(root, old), { recursive: true, force: true });
    return dir;
  } catch {
    return null;
  }
}

/**
 * An error as the API logged it (pino's err: type, message, stack): its type, message and innermost frame, on one line.
 */
function loggedError(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { type, message, stack } = err as { type?: unknown; message?: unknown; stack?: unknown };
  const frame = typeof stack === 'string' ? /\n\s*at (.+)/.exec(stack)?.[1] : undefined;
  return `${String(type ?? 'Error')}: ${String(message ?? '')}${frame === undefined ? '' : ` (at ${frame})`}`;
}

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

function machineLine(): string {
  let cpu = 'unknown CPU';
  try {
    cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    /* not Linux */
  }
  return `${availableParallelism()} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}
