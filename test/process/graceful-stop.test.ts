// A graceful stop loses no usage row (docs/operations.md, "What a crash or a stop keeps"): a real
// API process (node dist/src/main.js) under concurrent requests gets a SIGTERM mid-load, just after
// searches whose clients left before their answers (still queued for the one search worker). It
// must exit 0 having written the usage row of every request it answered (matched by request id in
// the SQLite file afterwards), answered none with a 5xx, and logged no usage write that failed:
// the requests whose clients left run to their end before the stores and the search workers close.
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURES, fixtureGrants } from '../support/api.js';
import { createSubscription, startInstance, type FleetInstance } from '../support/fleet.js';

const P = '/external/v1';
const CLIENTS = 8;
/** Answers received before the stop begins (at least). */
const ANSWERS_BEFORE_STOP = 200;
/** Searches whose clients leave a moment after sending them, just before the SIGTERM. */
const LEFT_SEARCHES = 16;
/** A search of some weight: with one search worker, the searches of clients gone queue behind it. */
const SEARCH = `${P}/grants?search=research&facets=funderType,fundingType,eligibleProvinces,currency&limit=50`;

interface Load {
  /** Request id → status of every answer received. */
  answered: Map<string, number>;
  /** The first answer of each 5xx status, for the failure message. */
  failures: string[];
}

/**
 * CLIENTS loops of GET /grants/:id (answered on the event loop, never queued behind a search) until
 * the process exits. Once ANSWERS_BEFORE_STOP are in: LEFT_SEARCHES searches whose clients leave
 * after 20 ms (queued in the one search worker, still to run), then the SIGTERM.
 */
async function loadThenStop(api: FleetInstance, apiKey: string, ids: string[]): Promise<Load> {
  const answered = new Map<string, number>();
  const failures: string[] = [];
  const headers = { Authorization: `Bearer ${apiKey}` };
  let stopping = false;
  let exited = false;
  void api.process.exited.then(() => (exited = true));
  const stop = async () => {
    stopping = true;
    const left = Array.from({ length: LEFT_SEARCHES }, () =>
      fetch(api.url + SEARCH, { headers, signal: AbortSignal.timeout(20) }).catch(() => undefined),
    );
    await Promise.all(left);
    api.process.child.kill('SIGTERM');
  };
  const client = async (n: number) => {
    for (let i = 0; !exited; i += 1) {
      try {
        const res = await fetch(`${api.url}${P}/grants/${encodeURIComponent(ids[(n * 31 + i) % ids.length])}`, {
          headers,
        });
        const text = await res.text();
        answered.set(res.headers.get('x-request-id')!, res.status);
        if (res.status >= 500 && failures.length < 5) failures.push(`${res.status} ${text}`);
      } catch (error) {
        // Refused once the stop has begun: the port closed, or an idle connection closed.
        if (!stopping) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (!stopping && answered.size >= ANSWERS_BEFORE_STOP) void stop();
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  return { answered, failures };
}

describe('graceful stop: SIGTERM under load loses no usage row', function () {
  this.timeout(120_000);
  let workDir: string;
  let api: FleetInstance | undefined;

  before(function () {
    workDir = mkdtempSync(path.join(tmpdir(), 'grants-stop-'));
  });
  after(async function () {
    api?.process.kill();
    await api?.process.exited;
    rmSync(workDir, { recursive: true, force: true });
  });

  it('every request answered has its usage row after the stop, none answered 5xx, no usage write failed, exit 0', async function () {
    const dataDir = mkdtempSync(path.join(workDir, 'data-'));
    const env = {
      SEED_FILE: FIXTURES,
      REDIS_URL: '',
      SEARCH_WORKERS: '1',
      SEARCH_TIMEOUT_MS: '60000',
      SEARCH_QUEUE_LIMIT: '1000',
      OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
    };
    api = await startInstance('stop', { env, workDir, dataDir });
    const { apiKey } = await createSubscription({ ...env, DATA_DIR: dataDir }, workDir, [
      '--name',
      'stop',
      '--tier',
      'ENTERPRISE',
      '--rate-limit',
      '100000',
    ]);

    const ids = fixtureGrants().map((g) => g.id);
    const { answered, failures } = await loadThenStop(api, apiKey, ids);
    const exit = await api.process.exited;
    const log = api.process.stdout();
    const detail = JSON.stringify({ answered: answered.size, exit, failures });
    expect(exit, `${detail}\n${log.slice(-3000)}`).to.deep.equal({ code: 0, signal: null });
    expect(log).to.match(/"msg":"stopped"/);
    expect(log, 'a usage write failed during the stop').not.to.match(/usage log writes? (still )?fail/);
    expect(log).not.to.contain('rows kept for retry');
    const statuses = [...answered.values()];
    expect(
      statuses.filter((s) => s >= 500),
      `5xx answers: ${detail}`,
    ).to.deep.equal([]);
    expect(
      statuses.every((s) => s === 200),
      detail,
    ).to.equal(true);

    const db = new Database(path.join(dataDir, 'subscriptions.sqlite'), { readonly: true });
    try {
      const logged = new Set(db.prepare('SELECT request_id FROM usage_log').pluck().all() as string[]);
      const missing = [...answered.keys()].filter((id) => !logged.has(id));
      expect(missing, `answers without a usage row: ${detail}`).to.deep.equal([]);
      // The rows beyond the answers are those of the searches whose clients left: one each at most.
      expect(logged.size, detail).to.be.at.least(answered.size);
      expect(logged.size, detail).to.be.at.most(answered.size + LEFT_SEARCHES);
    } finally {
      db.close();
    }
  });
});
