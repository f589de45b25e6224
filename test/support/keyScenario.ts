// Keys with restrictions, over real HTTP, on either subscriptions store: the same scenario runs on
// SQLite (test/http/key-restrictions.test.ts) and on PostgreSQL (test/postgres/key-restrictions.test.ts).
// Two API instances share the store: A takes the connection's address, B believes X-Forwarded-For
// from loopback (TRUST_PROXY). Subscriptions and restricted keys are made with grants-admin, the
// partner's own keys through /keys; every answer is checked against the OpenAPI document.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createApp } from '../../src/app.js';
import { runAdmin } from '../../src/cli/admin.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { createLogger } from '../../src/log.js';
import { seedCatalogIfEmpty } from '../../indexer/seed.js';
import { startServer } from '../../src/server.js';
import { tempDir } from './api.js';
import { API_PREFIX as P, captureCli, writeTinyCatalog } from './catalog.js';
import { checkResponse } from './openapiCheck.js';

export interface ScenarioBackend {
  /** Extra environment of both instances and grants-admin (DATABASE_URL for PostgreSQL). */
  env(): Record<string, string>;
}

interface Instance {
  url: string;
  deps: Deps;
  stop(): Promise<void>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

const ORIGIN_A = 'https://a.example';
const ORIGIN_B = 'https://b.example';

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    SEARCH_TIMEOUT_MS: '60000',
    OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
    SEARCH_WORKERS: '0',
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const log = createLogger(config.logLevel);
  const deps = await createDeps(config, log);
  await seedCatalogIfEmpty(config, deps.engine, log);
  const running = await startServer(createApp(deps), 0, '127.0.0.1', log, config.http);
  return {
    url: running.url,
    deps,
    async stop() {
      await running.stop(1000);
      await deps.close();
    },
  };
}

export async function call(
  instance: { url: string },
  pathAndQuery: string,
  key: string | null,
  init: RequestInit = {},
): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (key !== null) headers.set('Authorization', `Bearer ${key}`);
  const response = await fetch(instance.url + pathAndQuery, { ...init, headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  const answer = { status: response.status, headers: response.headers, body, text };
  checkResponse(init.method ?? 'GET', pathAndQuery, answer);
  return answer;
}

export const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

function expectStatus(answer: Answer, status: number, label = ''): void {
  expect(answer.status, `${label} ${answer.text}`).to.equal(status);
}

function expectError(answer: Answer, status: number, code: string): void {
  expect(answer.status, answer.text).to.equal(status);
  expect(answer.body.success).to.equal(false);
  expect(answer.body.error.code, answer.text).to.equal(code);
}

export function keyRestrictionScenario(backend: ScenarioBackend): void {
  let workDir: string;
  let a: Instance;
  let b: Instance;
  let env: Record<string, string>;

  before(async function () {
    this.timeout(120_000);
    workDir = tempDir('grants-keys-');
    env = {
      DATA_DIR: path.join(workDir, 'data'),
      SEED_FILE: writeTinyCatalog(workDir),
      CORS_ORIGINS: `${ORIGIN_A},${ORIGIN_B}`,
      ...backend.env(),
    };
    a = await startInstance(env);
    b = await startInstance({ ...env, TRUST_PROXY: 'loopback' });
  });

  after(async function () {
    await a?.stop();
    await b?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** grants-admin on the instances' store; its output lines (throws unless it exits 0). */
  async function admin(...args: string[]): Promise<string[]> {
    const run = await captureCli((io) => runAdmin(args, { ...process.env, ...env }, io));
    if (run.code !== 0) throw new Error(`grants-admin ${args.join(' ')} exited ${run.code}: ${run.err.join('\n')}`);
    return run.out;
  }

  /** A fresh subscription (50 requests a second) and its unrestricted key. */
  async function subscription(): Promise<{ id: string; key: string; keyId: string }> {
    const created = JSON.parse(
      (await admin('subscription', 'create', '--name', 'keys', '--tier', 'PROFESSIONAL', '--json'))[0],
    );
    return { id: created.subscriptionId, key: created.apiKey, keyId: created.keyId };
  }

  /** A key of the subscription with the restrictions given as grants-admin options. */
  async function restrictedKey(subscriptionId: string, ...options: string[]): Promise<{ key: string; keyId: string }> {
    const created = JSON.parse((await admin('key', 'create', subscriptionId, ...options, '--json'))[0]);
    return { key: created.apiKey, keyId: created.keyId };
  }

  describe('scopes', function () {
    it("a call outside the key's scopes is a 403 SCOPE_NOT_ALLOWED naming the scope it needs; an unrestricted key does everything (control)", async function () {
      const sub = await subscription();
      const reader = await restrictedKey(sub.id, '--scopes', 'grants:read,alerts:read');
      expectStatus(await call(a, `${P}/grants/g-1`, reader.key), 200);
      const search = await call(a, `${P}/grants`, reader.key);
      expectError(search, 403, 'SCOPE_NOT_ALLOWED');
      expect(search.body.error.message).to.include('"grants:search"');
      const limits = await call(a, `${P}/subscription/limits`, reader.key);
      expectError(limits, 403, 'SCOPE_NOT_ALLOWED');
      expect(limits.body.error.message).to.include('"subscription:read"');
      expectStatus(await call(a, `${P}/alerts`, reader.key), 200);
      const write = await call(
        a,
        `${P}/alerts`,
        reader.key,
        json('POST', { name: 'x', query: {}, url: 'https://partner.example/hook' }),
      );
      expectError(write, 403, 'SCOPE_NOT_ALLOWED');
      expect(write.body.error.message).to.include('"alerts:write"');
      for (const route of ['/grants', '/grants/g-1', '/subscription/limits', '/alerts']) {
        expectStatus(await call(a, `${P}${route}`, sub.key), 200, route);
      }
    });

    it('an MCP tool obeys the scope of the endpoint it stands for (a tool error SCOPE_NOT_ALLOWED)', async function () {
      const sub = await subscription();
      const reader = await restrictedKey(sub.id, '--scopes', 'grants:read');
      const tool = async (key: string, name: string, args: Record<string, unknown>) => {
        const answer = await call(a, `${P}/mcp`, key, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
        });
        expect(answer.status, answer.text).to.equal(200);
        return answer.body.result;
      };
      const refused = await tool(reader.key, 'search_grants', {});
      expect(refused.isError).to.equal(true);
      const error = JSON.parse(refused.content[0].text).error;
      expect(error.code).to.equal('SCOPE_NOT_ALLOWED');
      expect(error.message).to.include('"grants:search"').and.include('search_grants');
      const got = await tool(reader.key, 'get_grant', { id: 'g-1' });
      expect(got.isError ?? false, JSON.stringify(got)).to.equal(false);
      expect((await tool(sub.key, 'search_grants', {})).isError ?? false).to.equal(false);
    });
  });

  describe('origins', function () {
    it('a browser request from an origin the key does not list is a 403 ORIGIN_NOT_ALLOWED without CORS headers; from a listed one it is served with them', async function () {
      const sub = await subscription();
      const widget = await restrictedKey(sub.id, '--origins', ORIGIN_A);
      const fromA = await call(a, `${P}/grants`, widget.key, { headers: { Origin: ORIGIN_A } });
      expect(fromA.status).to.equal(200);
      expect(fromA.headers.get('access-control-allow-origin')).to.equal(ORIGIN_A);
      const fromB = await call(a, `${P}/grants`, widget.key, { headers: { Origin: ORIGIN_B } });
      expectError(fromB, 403, 'ORIGIN_NOT_ALLOWED');
      expect(fromB.headers.get('access-control-allow-origin')).to.equal(null);
      // Without an Origin header (a server, a script) the origins do not apply: they stop web pages only.
      expectStatus(await call(a, `${P}/grants`, widget.key), 200);
      // The deployment's CORS list still answers for an unrestricted key from either origin (control).
      const control = await call(a, `${P}/grants`, sub.key, { headers: { Origin: ORIGIN_B } });
      expect(control.status).to.equal(200);
      expect(control.headers.get('access-control-allow-origin')).to.equal(ORIGIN_B);
    });
  });

  describe('origins beyond CORS_ORIGINS', function () {
    const ORIGIN_C = `https://c-${Date.now().toString(36)}.example`;
    const preflight = (instance: Instance) =>
      call(instance, `${P}/grants`, null, {
        method: 'OPTIONS',
        headers: {
          Origin: ORIGIN_C,
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
    /** Polls `check` for at most a second (a change reaches every instance within it). */
    async function withinASecond(check: () => Promise<boolean>): Promise<boolean> {
      const started = Date.now();
      do {
        if (await check()) return true;
        await new Promise((resolve) => setTimeout(resolve, 20));
      } while (Date.now() - started < 1000);
      return check();
    }

    it('an origin a key lists passes the preflight and is answered for that key alone, on every instance, until the key goes', async function () {
      this.timeout(20_000);
      const sub = await subscription();
      // Nobody lists it yet, and the deployment does not: no CORS answer.
      expect((await preflight(a)).headers.get('access-control-allow-origin')).to.equal(null);
      const page = await restrictedKey(sub.id, '--origins', ORIGIN_C, '--scopes', 'grants:search');
      for (const instance of [a, b]) {
        expect(
          await withinASecond(
            async () => (await preflight(instance)).headers.get('access-control-allow-origin') === ORIGIN_C,
          ),
        ).to.equal(true);
      }
      const answered = await preflight(a);
      expect(answered.status).to.equal(204);
      expect(answered.headers.get('access-control-allow-headers')).to.match(/Authorization/i);
      const fromPage = await call(a, `${P}/grants`, page.key, { headers: { Origin: ORIGIN_C } });
      expectStatus(fromPage, 200);
      expect(fromPage.headers.get('access-control-allow-origin')).to.equal(ORIGIN_C);
      expect(fromPage.headers.get('access-control-expose-headers')).to.include('X-Request-Id');
      // Another key of the subscription, listing no origin, is answered as CORS_ORIGINS says: not for this page.
      const other = await call(a, `${P}/grants`, sub.key, { headers: { Origin: ORIGIN_C } });
      expectStatus(other, 200);
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      await admin('key', 'revoke', page.keyId);
      for (const instance of [a, b]) {
        expect(
          await withinASecond(
            async () => (await preflight(instance)).headers.get('access-control-allow-origin') === null,
          ),
        ).to.equal(true);
      }
    });
  });

  describe('IP ranges', function () {
    it("a request from outside the key's ranges is a 403 IP_NOT_ALLOWED; X-Forwarded-For counts only behind a proxy TRUST_PROXY names", async function () {
      const sub = await subscription();
      const office = await restrictedKey(sub.id, '--ips', '10.0.0.0/8,2001:db8::/32');
      const local = await restrictedKey(sub.id, '--ips', '127.0.0.0/8');
      // The tests call from 127.0.0.1.
      const refused = await call(a, `${P}/grants`, office.key);
      expectError(refused, 403, 'IP_NOT_ALLOWED');
      expect(refused.body.error.message).to.include('127.0.0.1');
      expectStatus(await call(a, `${P}/grants`, local.key), 200);
      // A: no TRUST_PROXY: the header is ignored, whatever it says.
      expectError(
        await call(a, `${P}/grants`, office.key, { headers: { 'X-Forwarded-For': '10.1.2.3' } }),
        403,
        'IP_NOT_ALLOWED',
      );
      expectStatus(await call(a, `${P}/grants`, local.key, { headers: { 'X-Forwarded-For': '10.1.2.3' } }), 200);
      // B: TRUST_PROXY=loopback: the peer (127.0.0.1) is a trusted proxy, so the client is the address it forwarded.
      expectStatus(await call(b, `${P}/grants`, office.key, { headers: { 'X-Forwarded-For': '10.1.2.3' } }), 200);
      expectStatus(await call(b, `${P}/grants`, office.key, { headers: { 'X-Forwarded-For': '2001:db8::7' } }), 200);
      expectError(
        await call(b, `${P}/grants`, local.key, { headers: { 'X-Forwarded-For': '10.1.2.3' } }),
        403,
        'IP_NOT_ALLOWED',
      );
      // A client cannot slip an address in front of the proxy's: only the hop the trusted proxy added counts.
      expectError(
        await call(b, `${P}/grants`, office.key, { headers: { 'X-Forwarded-For': '10.9.9.9, 192.0.2.1' } }),
        403,
        'IP_NOT_ALLOWED',
      );
      // Without the header B sees the peer itself.
      expectError(await call(b, `${P}/grants`, office.key), 403, 'IP_NOT_ALLOWED');
    });
  });

  describe('expiry', function () {
    it('a key past its expiry is a 401 whose message says it expired; grants-admin key list flags keys close to expiry', async function () {
      this.timeout(20_000);
      const sub = await subscription();
      const soon = new Date(Date.now() + 1500).toISOString();
      const brief = await restrictedKey(sub.id, '--expires', soon);
      const weekly = await restrictedKey(sub.id, '--expires', '3d');
      const yearly = await restrictedKey(sub.id, '--expires', '365d');
      expectStatus(await call(a, `${P}/grants`, brief.key), 200);
      const listed = (await admin('key', 'list', sub.id)).join('\n');
      expect(listed).to.match(new RegExp(`${weekly.keyId}.*EXPIRES SOON`));
      expect(listed).to.not.match(new RegExp(`${yearly.keyId}.*EXPIRES SOON`));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(soon) - Date.now()) + 50));
      const expired = await call(a, `${P}/grants`, brief.key);
      expectError(expired, 401, 'UNAUTHORIZED');
      expect(expired.body.error.message).to.include('expired');
      expect(expired.headers.get('www-authenticate')).to.equal('Bearer realm="grants-api"');
      expectError(await call(b, `${P}/grants`, brief.key), 401, 'UNAUTHORIZED');
      expect((await admin('key', 'list', sub.id)).join('\n')).to.match(new RegExp(`${brief.keyId}.*EXPIRED`));
      expectStatus(await call(a, `${P}/grants`, yearly.key), 200);
    });
  });

  describe('per-key rate', function () {
    it("a key held to 2 requests a second gets 429 RATE_LIMITED while the subscription's other key is still served", async function () {
      const sub = await subscription();
      const slow = await restrictedKey(sub.id, '--rate-limit', '2');
      // Spread over both instances: each spends the key's budget (its own on each instance without
      // Redis, where it can admit 4 of the 8; shared through Redis, 2).
      const burst = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call(i % 2 === 0 ? a : b, `${P}/grants`, slow.key)),
      );
      const statuses = burst.map((r) => r.status);
      expect(statuses.filter((s) => s === 429).length, String(statuses)).to.be.at.least(4);
      const refused = burst.find((r) => r.status === 429)!;
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('2');
      const other = await Promise.all(Array.from({ length: 5 }, () => call(a, `${P}/grants`, sub.key)));
      expect(other.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
      expect(other[0].headers.get('x-ratelimit-limit')).to.equal('50');
    });

    it("a key may not be given a rate above the subscription's", async function () {
      const sub = await subscription();
      const run = await captureCli((io) =>
        runAdmin(['key', 'create', sub.id, '--rate-limit', '51'], { ...process.env, ...env }, io),
      );
      expect(run.code).to.equal(2);
      expect(run.err.join('\n')).to.include("may not exceed the subscription's rate (50 per second)");
      expectError(
        await call(a, `${P}/keys`, sub.key, json('POST', { name: 'fast', rateLimit: 51 })),
        400,
        'VALIDATION_ERROR',
      );
    });
  });

  describe('/subscription/limits', function () {
    it("shows the calling key's restrictions", async function () {
      const sub = await subscription();
      const until = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const key = await restrictedKey(
        sub.id,
        '--scopes',
        'subscription:read,grants:search',
        '--origins',
        ORIGIN_A,
        '--ips',
        '127.0.0.1',
        '--rate-limit',
        '3',
        '--expires',
        until,
      );
      const limits = await call(a, `${P}/subscription/limits`, key.key);
      expect(limits.status, limits.text).to.equal(200);
      expect(limits.body.data.key).to.deep.equal({
        id: key.keyId,
        prefix: key.key.slice(0, 12),
        restrictions: {
          scopes: ['grants:search', 'subscription:read'],
          origins: [ORIGIN_A],
          ips: ['127.0.0.1/32'],
          rateLimit: 3,
        },
        expiresAt: until,
      });
      const plain = await call(a, `${P}/subscription/limits`, sub.key);
      expect(plain.body.data.key).to.deep.equal({
        id: sub.keyId,
        prefix: sub.key.slice(0, 12),
        restrictions: { scopes: null, origins: null, ips: null, rateLimit: null },
        expiresAt: null,
      });
    });
  });

  describe('/keys', function () {
    it("POST /keys creates a key with at most the caller's restrictions, shown once; GET /keys never shows a key", async function () {
      const sub = await subscription();
      const created = await call(
        a,
        `${P}/keys`,
        sub.key,
        json('POST', { name: 'Browser widget', scopes: ['grants:search'], origins: [ORIGIN_A], rateLimit: 5 }),
      );
      expect(created.status, created.text).to.equal(201);
      const key = created.body.data;
      expect(key.apiKey).to.match(/^gk_live_/);
      expect(key).to.include({ name: 'Browser widget', expiresAt: null, lastUsedAt: null, revokedAt: null });
      expect(key.restrictions).to.deep.equal({
        scopes: ['grants:search'],
        origins: [ORIGIN_A],
        ips: null,
        rateLimit: 5,
      });
      expect(key.prefix).to.equal(key.apiKey.slice(0, 12));
      // The new key works, within its scopes.
      expectStatus(await call(a, `${P}/grants`, key.apiKey), 200);
      expectError(await call(a, `${P}/grants/g-1`, key.apiKey), 403, 'SCOPE_NOT_ALLOWED');
      const listed = await call(a, `${P}/keys`, sub.key);
      expect(listed.status).to.equal(200);
      expect(listed.body.data.map((k: { id: string }) => k.id)).to.deep.equal([sub.keyId, key.id]);
      expect(listed.text).to.not.include(key.apiKey).and.not.include(sub.key);
      expect(listed.body.data[1]).to.not.have.property('apiKey');
      // The same from B (the other instance).
      expect((await call(b, `${P}/keys`, sub.key)).body.data.length).to.equal(2);
    });

    it('a key without keys:manage gets 403 SCOPE_NOT_ALLOWED; a key cannot hand on more than it has', async function () {
      const sub = await subscription();
      const reader = await restrictedKey(sub.id, '--scopes', 'grants:search');
      for (const [method, path] of [
        ['GET', '/keys'],
        ['POST', '/keys'],
        ['DELETE', `/keys/${sub.keyId}`],
      ]) {
        const refused = await call(
          a,
          `${P}${path}`,
          reader.key,
          method === 'POST' ? json('POST', { name: 'x' }) : { method },
        );
        expectError(refused, 403, 'SCOPE_NOT_ALLOWED');
        expect(refused.body.error.message).to.include('"keys:manage"');
      }
      const manager = await restrictedKey(
        sub.id,
        '--scopes',
        'keys:manage,grants:search',
        '--ips',
        '127.0.0.0/8',
        '--rate-limit',
        '10',
      );
      const wider = await call(
        a,
        `${P}/keys`,
        manager.key,
        json('POST', { name: 'wider', scopes: ['grants:read'], ips: ['0.0.0.0/0'], rateLimit: 20 }),
      );
      expectError(wider, 403, 'KEY_RESTRICTIONS_EXCEEDED');
      expect(wider.body.error.message).to.include('grants:read').and.include('ips').and.include('rateLimit');
      // Left out, a restriction is the caller's: the new key is never wider.
      const inherited = await call(a, `${P}/keys`, manager.key, json('POST', { name: 'narrow', ips: ['127.0.0.1'] }));
      expect(inherited.status, inherited.text).to.equal(201);
      expect(inherited.body.data.restrictions).to.deep.equal({
        scopes: ['grants:search', 'keys:manage'],
        origins: null,
        ips: ['127.0.0.1/32'],
        rateLimit: 10,
      });
      // A restricted key cannot revoke a mightier one.
      expectError(
        await call(a, `${P}/keys/${sub.keyId}`, manager.key, { method: 'DELETE' }),
        403,
        'KEY_RESTRICTIONS_EXCEEDED',
      );
      // Bad bodies are a 400 listing every problem.
      const bad = await call(
        a,
        `${P}/keys`,
        sub.key,
        json('POST', {
          scopes: ['grants:everything'],
          origins: ['https://a.example/path'],
          ips: ['10.0.0.0/33'],
          expiresAt: '2000-01-01T00:00:00Z',
          extra: 1,
        }),
      );
      expectError(bad, 400, 'VALIDATION_ERROR');
      expect(bad.body.error.details.map((d: { parameter: string }) => d.parameter).sort()).to.deep.equal([
        'expiresAt',
        'extra',
        'ips',
        'name',
        'origins',
        'scopes',
      ]);
    });

    it('DELETE /keys/{id} revokes at once on every instance; the last unrestricted key cannot be revoked this way', async function () {
      this.timeout(20_000);
      const sub = await subscription();
      const last = await call(a, `${P}/keys/${sub.keyId}`, sub.key, { method: 'DELETE' });
      expectError(last, 409, 'LAST_UNRESTRICTED_KEY');
      expectStatus(await call(a, `${P}/grants`, sub.key), 200);
      const second = (await call(a, `${P}/keys`, sub.key, json('POST', { name: 'server key' }))).body.data;
      // Both instances know the first key.
      expectStatus(await call(b, `${P}/grants`, sub.key), 200);
      const revoked = await call(a, `${P}/keys/${sub.keyId}`, second.apiKey, { method: 'DELETE' });
      expect(revoked.status, revoked.text).to.equal(200);
      expect(revoked.body.data).to.deep.equal({ id: sub.keyId, revoked: true });
      const started = Date.now();
      let refusedOnB = false;
      while (Date.now() - started < 1000 && !refusedOnB) {
        refusedOnB = (await call(b, `${P}/grants`, sub.key)).status === 401;
        if (!refusedOnB) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(refusedOnB, 'instance B still served the revoked key after a second').to.equal(true);
      expectError(await call(a, `${P}/grants`, sub.key), 401, 'UNAUTHORIZED');
      // Now the second is the last unrestricted key.
      expectError(
        await call(a, `${P}/keys/${second.id}`, second.apiKey, { method: 'DELETE' }),
        409,
        'LAST_UNRESTRICTED_KEY',
      );
      expectError(await call(a, `${P}/keys/${sub.keyId}`, second.apiKey, { method: 'DELETE' }), 404, 'NOT_FOUND');
      expectError(await call(a, `${P}/keys/key_unknown`, second.apiKey, { method: 'DELETE' }), 404, 'NOT_FOUND');
    });

    it('a key restricted through grants-admin reaches every instance within a second', async function () {
      const sub = await subscription();
      const extra = await restrictedKey(sub.id);
      expectStatus(await call(b, `${P}/grants`, extra.key), 200);
      await admin('key', 'revoke', extra.keyId);
      const started = Date.now();
      let refused = false;
      while (Date.now() - started < 1000 && !refused) {
        refused = (await call(b, `${P}/grants`, extra.key)).status === 401;
        if (!refused) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(refused).to.equal(true);
    });
  });

  describe('audit log', function () {
    it('records every change to a key or a subscription, by the API (the key and its address) and by grants-admin (admin)', async function () {
      const sub = await subscription();
      await admin('subscription', 'set-limits', sub.id, '--rate-limit', '40');
      const restricted = await restrictedKey(sub.id, '--scopes', 'grants:search');
      const viaApi = (await call(a, `${P}/keys`, sub.key, json('POST', { name: 'from the API' }))).body.data;
      expectStatus(
        await call(b, `${P}/keys/${restricted.keyId}`, viaApi.apiKey, {
          method: 'DELETE',
          headers: { 'X-Forwarded-For': '198.51.100.7' },
        }),
        200,
      );
      const entries = JSON.parse((await admin('audit', '--subscription', sub.id, '--json'))[0]);
      const rows = entries.map((e: Record<string, unknown>) => [e.actor, e.action, e.target, e.address]);
      const host = entries[0].address;
      expect(host).to.be.a('string').and.not.equal('');
      expect(rows).to.deep.equal([
        ['admin', 'subscription.create', sub.id, host],
        ['admin', 'key.create', sub.keyId, host],
        ['admin', 'subscription.set-limits', sub.id, host],
        ['admin', 'key.create', restricted.keyId, host],
        [sub.keyId, 'key.create', viaApi.id, '127.0.0.1'],
        [viaApi.id, 'key.revoke', restricted.keyId, '198.51.100.7'],
      ]);
      expect(entries[3].details.restrictions.scopes).to.deep.equal(['grants:search']);
      expect(JSON.stringify(entries)).to.not.include(viaApi.apiKey).and.not.include(sub.key);
      for (const e of entries) expect(Date.parse(e.at)).to.be.within(Date.now() - 60_000, Date.now());
      // --since leaves out what came before.
      const later = JSON.parse((await admin('audit', '--subscription', sub.id, '--since', entries[4].at, '--json'))[0]);
      expect(later.map((e: { action: string }) => e.action)).to.deep.equal(['key.create', 'key.revoke']);
    });
  });
}
