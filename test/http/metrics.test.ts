// GET /metrics after known traffic: request counts by route template, method and status, latency
// histograms, 429s by code, engine operations, limiter mode, usage sizes and the catalog, exact.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { ApiMetrics } from '../../src/http/metrics/apiMetrics.js';
import { outcomeOf, type RequestOutcome } from '../../src/http/requestOutcome.js';
import { measureEngine } from '../../src/search/measuredEngine.js';
import { openSubscriptionsDb, subscriptionsPath } from '../../src/subscriptions/sqlite/database.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { API_PREFIX as P } from '../support/catalog.js';

/** The value of one sample of a Prometheus exposition, by name and exact label set ('' for none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got = (m[2] ?? '')
      .split(/,(?=[a-zA-Z_]+=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (got === wanted) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', function () {
  this.timeout(30_000);
  let api: TestApi;

  before(async () => {
    api = await startTestApi({ METRICS_PUBLIC: 'true' });
  });
  after(async () => api.stop());

  it('counts known traffic exactly, by route template, method and status, with no subscription or key as a label', async () => {
    const before = (await api.request('/metrics', { key: null })).text;
    // A call without a key is a refusal on purpose (401).
    const statusOf = async (path: string, key?: string | null) =>
      (await api.request(path, key === undefined ? {} : { key, invalidRequest: key === null })).status;
    const grants = [
      await statusOf(`${P}/grants?limit=2`),
      await statusOf(`${P}/grants?search=water`),
      await statusOf(`${P}/grants`),
    ];
    const unknown = [await statusOf(`${P}/grants/no-such-grant`), await statusOf(`${P}/grants/another-missing`)];
    const anonymous = await statusOf(`${P}/grants`, null);
    const nowhere = await statusOf('/nowhere');
    expect([grants, unknown, anonymous, nowhere]).to.deep.equal([[200, 200, 200], [404, 404], 401, 404]);

    // A subscription allowed one request a second, sent five at once: the refusals are 429s.
    const slow = api.deps.subscriptions.create({ name: 'slow', tier: 'STARTER', rateLimit: 1 });
    const burst = await Promise.all(Array.from({ length: 5 }, () => statusOf(`${P}/grants/filters`, slow.apiKey)));
    const refused = burst.filter((s) => s === 429).length;
    expect(refused).to.be.at.least(3);

    const res = await api.request('/metrics', { key: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    const delta = (name: string, labels: Record<string, string>) =>
      (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('http_requests_total', { route: `${P}/grants`, method: 'GET', status: '200' })).to.equal(3);
    expect(delta('http_requests_total', { route: `${P}/grants`, method: 'GET', status: '401' })).to.equal(1);
    expect(delta('http_requests_total', { route: `${P}/grants/:id`, method: 'GET', status: '404' })).to.equal(2);
    expect(delta('http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).to.equal(1);
    expect(delta('http_requests_total', { route: `${P}/grants/filters`, method: 'GET', status: '429' })).to.equal(
      refused,
    );
    expect(delta('http_requests_total', { route: `${P}/grants/filters`, method: 'GET', status: '200' })).to.equal(
      5 - refused,
    );
    expect(delta('http_rate_limited_total', { code: 'RATE_LIMITED' })).to.equal(refused);
    expect(delta('http_request_duration_seconds_count', { route: `${P}/grants` })).to.equal(4);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: `${P}/grants`, le: '+Inf' })).to.equal(
      sample(text, 'http_request_duration_seconds_count', { route: `${P}/grants` }),
    );
    // The engine searched three times for /grants and looked up two ids.
    expect(delta('search_engine_query_duration_seconds_count', { engine: 'sqlite', operation: 'search' })).to.equal(3);
    expect(delta('search_engine_query_duration_seconds_count', { engine: 'sqlite', operation: 'getById' })).to.equal(2);
    expect(sample(text, 'rate_limiter_mode', { mode: 'memory' })).to.equal(1);
    expect(sample(text, 'rate_limiter_mode', { mode: 'redis' })).to.equal(0);
    expect(sample(text, 'rate_limiter_mode', { mode: 'local-fallback' })).to.equal(0);
    expect(sample(text, 'catalog_grants')).to.equal((await api.request('/readyz', { key: null })).body.grants);
    expect(sample(text, 'catalog_last_reindex_timestamp_seconds')).to.be.above(Date.parse('2026-01-01') / 1000);
    expect(sample(text, 'usage_rows_pending')).to.be.a('number');
    api.deps.usage.flush();
    const after = (await api.request('/metrics', { key: null })).text;
    expect(sample(after, 'usage_rows_pending')).to.equal(0);
    const db = openSubscriptionsDb(subscriptionsPath(api.dataDir));
    try {
      expect(sample(after, 'usage_log_rows'), 'every logged request').to.equal(
        db.prepare('SELECT count(*) FROM usage_log').pluck().get(),
      );
    } finally {
      db.close();
    }
    // Node's default process metrics.
    expect(sample(text, 'process_cpu_user_seconds_total')).to.be.a('number');
    expect(sample(text, 'nodejs_heap_size_used_bytes')).to.be.a('number');
    // Bounded labels: no subscription id, no key, no raw path.
    expect(text).not.to.include(api.subscriptionId);
    expect(text).not.to.include(slow.subscription.id);
    expect(text).not.to.include(api.key.slice(8));
    expect(text).not.to.include('no-such-grant');
    expect(text).not.to.include('/nowhere');
  });

  it('with METRICS_TOKEN set, a scrape needs Authorization: Bearer <token>', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await startTestApi({ METRICS_TOKEN: token });
    try {
      for (const authorization of [null, 'Bearer wrong-token-0123456789', token]) {
        const headers: Record<string, string> = authorization === null ? {} : { Authorization: authorization };
        const res = await guarded.request('/metrics', { key: null, headers });
        expect(res.status, String(authorization)).to.equal(401);
        expect(res.body.error.code).to.equal('UNAUTHORIZED');
      }
      const ok = await guarded.request('/metrics', { key: null, headers: { Authorization: `Bearer ${token}` } });
      expect(ok.status).to.equal(200);
      expect(ok.text).to.include('http_requests_total');
    } finally {
      await guarded.stop();
    }
  });

  it('with the default settings (no METRICS_TOKEN, no METRICS_PUBLIC), /metrics is not served: a 404 like any unknown path, with or without a header', async () => {
    const closed = await startTestApi();
    try {
      for (const headers of [
        {},
        { Authorization: 'Bearer anything-0123456789' },
        { Authorization: `Bearer ${closed.key}` },
      ] as Record<string, string>[]) {
        for (const method of ['GET', 'HEAD']) {
          const res = await closed.request('/metrics', { key: null, method, headers, invalidRequest: true });
          expect(res.status, `${method} ${JSON.stringify(headers)}`).to.equal(404);
          expect(res.text).not.to.include('http_requests_total');
          if (method === 'GET') expect(res.body.error.code).to.equal('NOT_FOUND');
        }
      }
    } finally {
      await closed.stop();
    }
  });

  it('METRICS_TOKEN is optional and bounded, METRICS_PUBLIC off by default and not with a token; LOG_FORMAT is auto, json or pretty', () => {
    expect(loadConfig({}).metricsToken).to.equal(null);
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token' }).metricsToken).to.equal('a-long-enough-token');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).to.throw(
      /METRICS_TOKEN must be 16 to 256 printable characters/,
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in it, long' })).to.throw(/METRICS_TOKEN/);
    expect(loadConfig({}).metricsPublic).to.equal(false);
    expect(loadConfig({ METRICS_PUBLIC: 'true' }).metricsPublic).to.equal(true);
    expect(() => loadConfig({ METRICS_PUBLIC: 'maybe' })).to.throw(/METRICS_PUBLIC must be true or false/);
    expect(() => loadConfig({ METRICS_PUBLIC: 'true', METRICS_TOKEN: 'a-long-enough-token' })).to.throw(
      /METRICS_PUBLIC=true serves \/metrics without a token/,
    );
    expect(loadConfig({}).logFormat).to.equal('auto');
    expect(loadConfig({ LOG_FORMAT: 'JSON' }).logFormat).to.equal('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).to.throw(/LOG_FORMAT must be one of auto, json, pretty/);
  });

  it('counts engine failures and names the engine as the cause of a 503', async () => {
    const metrics = new ApiMetrics();
    const failing: SearchEngine = {
      name: 'stub',
      searchJson: async () => {
        throw new ServiceUnavailableError('engine down');
      },
      exportJson: async () => {
        throw new ServiceUnavailableError('engine down');
      },
      getByIdJson: async () => null,
      filterOptions: async () => ({}) as never,
      suggest: async () => {
        throw new ServiceUnavailableError('engine down');
      },
      count: async () => 0,
      isEmpty: async () => true,
      close: async () => undefined,
    };
    const engine = measureEngine(failing, metrics);
    const thrown = await engine.searchJson({} as never).catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(ServiceUnavailableError);
    expect(await engine.getByIdJson('x')).to.equal(null);
    // The HTTP layer's view of that failure, then of a store's.
    const layer = metrics.middleware({ token: null, open: true });
    const answer = async (failure: unknown) => {
      const state: { route: { template: string }; outcome?: RequestOutcome } = { route: { template: '/grants' } };
      outcomeOf(state).failure = failure; // as the error handler leaves it
      const ctx = { path: `${P}/grants`, method: 'GET', status: 503, state, get: () => '' } as never;
      await layer(ctx, async () => undefined);
    };
    await answer(thrown);
    await answer(new ServiceUnavailableError('store busy'));
    const text = await metrics.exposition();
    expect(sample(text, 'search_engine_failures_total', { engine: 'stub', operation: 'search' })).to.equal(1);
    expect(sample(text, 'search_engine_failures_total', { engine: 'stub', operation: 'getById' })).to.equal(undefined);
    expect(
      sample(text, 'search_engine_query_duration_seconds_count', { engine: 'stub', operation: 'getById' }),
    ).to.equal(1);
    expect(sample(text, 'http_service_unavailable_total', { cause: 'search_engine' })).to.equal(1);
    expect(sample(text, 'http_service_unavailable_total', { cause: 'store' })).to.equal(1);
  });
});
