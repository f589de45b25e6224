// The store's promises under concurrency, over real HTTP with two API processes sharing one
// store: the same scenario runs on SQLite (test/http/store-races.test.ts) and on PostgreSQL
// (test/postgres/store-races.test.ts). Processes, not two instances in the test's own: on SQLite
// the store answers synchronously, so one process never runs two requests' store calls at once.
// Each race is run many times: a race lost once in a while is a broken promise.
//   - two unrestricted keys revoking each other at once never both succeed: one key always works;
//   - simultaneous POST /alerts stop at the subscription's alert limit, exactly;
//   - an answer kept for an Idempotency-Key holds no signing secret in clear, replays it from its
//     sealed copy, and no longer once the alert is deleted.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { runAdmin } from '../../src/cli/admin.js';
import { REPO_ROOT, tempDir } from './api.js';
import { API_PREFIX as P, captureCli, writeTinyCatalog } from './catalog.js';
import { call, json, type Answer, type ScenarioBackend } from './keyScenario.js';
import { apiProcessArgs, freePort, launch } from './processes.js';

export interface RaceBackend extends ScenarioBackend {
  /** Every row of the idempotency table, as the store holds it. */
  idempotencyRows(env: Record<string, string>): Promise<Record<string, unknown>[]>;
}

export const REVOCATION_ROUNDS = 50;
export const CREATION_ROUNDS = 5;
/** POST /alerts sent at once in each round, against a limit of 5. */
export const SIMULTANEOUS_CREATIONS = 12;

const ALERT = { name: 'race', query: { search: 'energy' }, url: 'https://93.184.215.14/hooks' };

interface Instance {
  url: string;
  stop(): Promise<void>;
}

/** An API process (node dist/src/main.js, or src/main.ts from source) on the store of `env`. */
async function startProcess(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const server = launch(process.execPath, apiProcessArgs(), {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      SEARCH_WORKERS: '0',
      OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || server.child.exitCode !== null) {
      server.kill();
      throw new Error(`the API process did not start:\n${server.stdout()}\n${server.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async stop() {
      server.child.kill('SIGTERM');
      const stopped = await Promise.race([
        server.exited.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 10_000)),
      ]);
      if (!stopped) server.kill();
    },
  };
}

export function storeRaceScenario(backend: RaceBackend): void {
  let workDir: string;
  let a: Instance;
  let b: Instance;
  let env: Record<string, string>;

  before(async function () {
    this.timeout(120_000);
    workDir = tempDir('grants-races-');
    env = { DATA_DIR: path.join(workDir, 'data'), SEED_FILE: writeTinyCatalog(workDir), ...backend.env() };
    a = await startProcess(env);
    b = await startProcess(env);
  });

  after(async function () {
    await a?.stop();
    await b?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** A subscription of the tier whose rate and allowance no round of a race can reach. */
  async function subscription(tier: string): Promise<{ id: string; key: string; keyId: string }> {
    const run = await captureCli((io) =>
      runAdmin(
        [
          'subscription',
          'create',
          '--name',
          'races',
          '--tier',
          tier,
          '--rate-limit',
          '5000',
          '--monthly-limit',
          '1000000',
          '--json',
        ],
        { ...process.env, ...env },
        io,
      ),
    );
    if (run.code !== 0) throw new Error(`grants-admin exited ${run.code}: ${run.err.join('\n')}`);
    const created = JSON.parse(run.out[0]);
    return { id: created.subscriptionId, key: created.apiKey, keyId: created.keyId };
  }

  it(`two unrestricted keys revoking each other at once: never both, one key always left (${REVOCATION_ROUNDS} rounds, one API process each)`, async function () {
    this.timeout(120_000);
    const sub = await subscription('PROFESSIONAL');
    let survivor = { key: sub.key, id: sub.keyId };
    const outcomes = new Map<string, number>();
    for (let round = 0; round < REVOCATION_ROUNDS; round++) {
      const made = await call(a, `${P}/keys`, survivor.key, json('POST', { name: `second ${round}` }));
      expect(made.status, made.text).to.equal(201);
      const other = { key: made.body.data.apiKey as string, id: made.body.data.id as string };
      const [first, second] = await Promise.all([
        call(a, `${P}/keys/${other.id}`, survivor.key, { method: 'DELETE' }),
        call(b, `${P}/keys/${survivor.id}`, other.key, { method: 'DELETE' }),
      ]);
      const label = `round ${round}: ${first.status} ${first.text} / ${second.status} ${second.text}`;
      for (const answer of [first, second])
        outcomes.set(String(answer.status), (outcomes.get(String(answer.status)) ?? 0) + 1);
      expect(first.status === 200 && second.status === 200, `both keys revoked: ${label}`).to.equal(false);
      // The loser was refused: its key already revoked (401), or the rule (409).
      for (const answer of [first, second]) expect([200, 401, 409], label).to.include(answer.status);
      if (second.status === 200) survivor = other;
      // The survivor works on both instances, and is the subscription's only unrestricted key.
      for (const instance of [a, b]) {
        const listed = await call(instance, `${P}/keys`, survivor.key);
        expect(listed.status, `${label}; then ${listed.text}`).to.equal(200);
      }
    }
    expect(outcomes.get('200'), JSON.stringify([...outcomes])).to.equal(REVOCATION_ROUNDS);
  });

  it(`${SIMULTANEOUS_CREATIONS} simultaneous POST /alerts on a STARTER subscription: exactly 5 created, the rest 403 ALERT_LIMIT_REACHED (${CREATION_ROUNDS} rounds)`, async function () {
    this.timeout(120_000);
    const sub = await subscription('STARTER');
    for (let round = 0; round < CREATION_ROUNDS; round++) {
      const answers: Answer[] = await Promise.all(
        Array.from({ length: SIMULTANEOUS_CREATIONS }, (_, i) =>
          call(i % 2 === 0 ? a : b, `${P}/alerts`, sub.key, json('POST', { ...ALERT, name: `race ${round}.${i}` })),
        ),
      );
      const statuses = answers.map((x) => x.status).sort();
      expect(
        statuses.filter((s) => s === 201),
        `round ${round}: ${statuses.join(' ')}`,
      ).to.have.length(5);
      for (const refused of answers.filter((x) => x.status !== 201)) {
        expect(refused.status, refused.text).to.equal(403);
        expect(refused.body.error.code).to.equal('ALERT_LIMIT_REACHED');
      }
      const limits = await call(b, `${P}/subscription/limits`, sub.key);
      expect(limits.body.data.limits.alerts).to.deep.equal({ max: 5, current: 5 });
      for (const created of answers.filter((x) => x.status === 201)) {
        expect((await call(a, `${P}/alerts/${created.body.data.id}`, sub.key, { method: 'DELETE' })).status).to.equal(
          200,
        );
      }
    }
  });

  it('Idempotency-Key: no whsec_ in the idempotency table; a replay answers the same secret, and a 404 once the alert is deleted', async function () {
    this.timeout(60_000);
    const sub = await subscription('PROFESSIONAL');
    const idem = (key: string) => ({ 'Content-Type': 'application/json', 'Idempotency-Key': key });
    const post = (instance: Instance, url: string, key: string, body: unknown = undefined) =>
      call(instance, url, sub.key, {
        method: 'POST',
        headers: idem(key),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const kept: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await post(a, `${P}/alerts`, `create-${i}`, { ...ALERT, name: `kept ${i}` });
      expect(created.status, created.text).to.equal(201);
      const secret = created.body.data.secret as string;
      expect(secret).to.match(/^whsec_/);
      kept.push(secret);
      // Replayed by the other instance: the same answer, byte for byte, the secret included.
      const again = await post(b, `${P}/alerts`, `create-${i}`, { ...ALERT, name: `kept ${i}` });
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.text).to.equal(created.text);

      const rotated = await post(b, `${P}/alerts/${created.body.data.id}/secret`, `rotate-${i}`);
      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.body.data.secret)
        .to.match(/^whsec_/)
        .and.not.equal(secret);
      kept.push(rotated.body.data.secret);
      const rotatedAgain = await post(a, `${P}/alerts/${created.body.data.id}/secret`, `rotate-${i}`);
      expect(rotatedAgain.headers.get('idempotent-replayed')).to.equal('true');
      expect(rotatedAgain.text).to.equal(rotated.text);
    }
    const rows = (await backend.idempotencyRows(env)).map((row) => JSON.stringify(row));
    expect(rows.length).to.be.at.least(6);
    for (const row of rows) {
      expect(row).to.not.contain('whsec_');
      for (const secret of kept) expect(row).to.not.contain(secret.slice('whsec_'.length));
    }

    // Deleted: a replay of its creation no longer holds its secret.
    const first = await post(a, `${P}/alerts`, 'create-0', { ...ALERT, name: 'kept 0' });
    const id = first.body.data.id as string;
    expect((await call(b, `${P}/alerts/${id}`, sub.key, { method: 'DELETE' })).status).to.equal(200);
    for (const instance of [a, b]) {
      const gone = await post(instance, `${P}/alerts`, 'create-0', { ...ALERT, name: 'kept 0' });
      expect(gone.status, gone.text).to.equal(404);
      expect(gone.body.error.code).to.equal('NOT_FOUND');
      expect(gone.text).to.not.contain('whsec_');
    }
    // Its sealed copies are gone too (the creation's and the rotation's), the others kept.
    const left = await backend.idempotencyRows(env);
    expect(left.filter((row) => row.alert_id === id).map((row) => row.secret)).to.deep.equal([null, null]);
    expect(
      left.filter((row) => row.alert_id !== id && row.alert_id !== null).every((row) => typeof row.secret === 'string'),
    ).to.equal(true);
  });
}
