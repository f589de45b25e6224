// The TypeScript SDK (clients/typescript), built by its own tsc, against a real API on a real port:
// search and filters, cursor iteration, one grant, the changes feed with a tombstone, usage and
// limits, typed errors, retries of 429 honouring Retry-After, alerts and a real webhook delivery
// verified with verifyWebhook.
import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import type {
  AlertQuery,
  ChangeEntry,
  GrantsApiError,
  GrantsClient,
  RetryInfo,
} from '../../clients/typescript/src/index.js';
import { runIndexer } from '../../indexer/cli.js';
import { checkedFetch } from '../support/checkedFetch.js';
import { startTestApi, tempDir, type TestApi } from '../support/api.js';
import {
  API_PREFIX,
  captureCli,
  GRANTS_PATH,
  grantRecord,
  servedIds,
  writeNdjson,
  type GrantRecord,
} from '../support/catalog.js';
import { loadSdk, type Sdk } from '../support/sdk.js';
import { until as waitUntil } from '../support/processes.js';

/** fetch with the request and its answer checked against the OpenAPI document (test/support/checkedFetch.ts). */
const checked = checkedFetch();

/** The GrantsApiError a call fails with (the class of the built SDK), or a failed test. */
async function apiErrorOf(sdk: Sdk, call: Promise<unknown>): Promise<GrantsApiError> {
  try {
    await call;
  } catch (error) {
    expect(error).to.be.instanceOf(sdk.GrantsApiError);
    return error as GrantsApiError;
  }
  return expect.fail('the call succeeded; a GrantsApiError was expected');
}

const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> =>
  waitUntil(what, check, timeoutMs);

describe('TypeScript SDK: reading grants against a real API', function () {
  this.timeout(180_000);
  let sdk: Sdk;
  let api: TestApi;
  let client: GrantsClient;
  /** The URL of every request the client sent (through its fetch option). */
  const sent: string[] = [];

  before(async () => {
    sdk = await loadSdk();
    api = await startTestApi();
    client = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: api.key,
      // Every request the SDK sends, and its answer, is checked against the OpenAPI document.
      fetch: (request) => {
        sent.push(request.url);
        return checked(request);
      },
    });
  });
  after(async () => api?.stop());
  beforeEach(() => {
    sent.length = 0;
  });

  it('search: filters as typed parameters, lists sent comma-separated, the same page as GET /grants', async () => {
    const answer = await client.grants.search({
      eligibleProvinces: ['ONTARIO', 'QUEBEC'],
      fundingType: ['GRANT'],
      open: true,
      limit: 5,
      sort: 'deadline',
    });
    expect(new URL(sent[0]).searchParams.get('eligibleProvinces')).to.equal('ONTARIO,QUEBEC');
    expect(new URL(sent[0]).pathname).to.equal(`${API_PREFIX}/grants`);
    const raw = await api.request(
      `${GRANTS_PATH}?eligibleProvinces=ONTARIO,QUEBEC&fundingType=GRANT&open=true&limit=5&sort=deadline`,
    );
    expect(raw.status, raw.text).to.equal(200);
    expect(answer.data.map((g) => g.id)).to.deep.equal(raw.body.data.map((g: { id: string }) => g.id));
    expect(answer.pagination.total).to.equal(raw.body.pagination.total).and.to.be.greaterThan(5);
    for (const grant of answer.data) {
      expect(
        grant.eligibleProvinces!.some((p) => p === 'ONTARIO' || p === 'QUEBEC'),
        grant.id,
      ).to.equal(true);
      expect(grant.fundingType).to.equal('GRANT');
    }
    expect(answer.meta.requestId).to.be.a('string');
  });

  it('iterate: every grant once over several cursor pages, the ids GET /grants serves', async () => {
    const ids: string[] = [];
    for await (const grant of client.grants.iterate({ limit: 100 })) ids.push(grant.id!);
    expect(sent.length).to.be.greaterThan(3);
    expect(new URL(sent[0]).searchParams.get('cursor')).to.equal('*');
    expect(new URL(sent[1]).searchParams.get('cursor')).to.not.equal('*');
    expect(new Set(ids).size).to.equal(ids.length);
    expect([...ids].sort()).to.deep.equal(await servedIds(api));
  });

  it('iterate with a filter: the same grants as the search total, in pages of the limit asked', async () => {
    const query = { fundingType: ['GRANT' as const], limit: 20 };
    const first = await client.grants.search(query);
    sent.length = 0;
    const ids: string[] = [];
    for await (const grant of client.grants.iterate(query)) ids.push(grant.id!);
    expect(ids).to.have.length(first.pagination.total);
    expect(sent).to.have.length(Math.ceil(first.pagination.total / 20) + (first.pagination.total % 20 === 0 ? 1 : 0));
  });

  it('get and filters: the same data as the API serves', async () => {
    const [id] = await servedIds(api);
    const one = await client.grants.get(id);
    expect(one.data).to.deep.equal((await api.request(`${GRANTS_PATH}/${id}`)).body.data);
    const filters = await client.grants.filters();
    expect(filters.data).to.deep.equal((await api.request(`${GRANTS_PATH}/filters`)).body.data);
    expect(filters.data.eligibleProvinces).to.include('ONTARIO');
  });

  it("history: the grant's versions as the API serves them, its query sent", async () => {
    const [id] = await servedIds(api);
    const history = await client.grants.history(id, { limit: 1 });
    const served = (await api.request(`${GRANTS_PATH}/${id}/history?limit=1`)).body;
    expect(history.data).to.deep.equal(served.data);
    expect(history.pagination).to.deep.equal(served.pagination);
    // The seeded catalog recorded each grant's creation: one version, with no earlier one to differ from.
    expect(history.data).to.have.length(1);
  });

  it('similar: the same grants as the API serves, its query typed and sent', async () => {
    const [id] = await servedIds(api);
    const similar = await client.grants.similar(id, { limit: 3, fields: ['title'], eligibleProvinces: ['ONTARIO'] });
    const served = (await api.request(`${GRANTS_PATH}/${id}/similar?limit=3&fields=title&eligibleProvinces=ONTARIO`))
      .body;
    expect(similar.data).to.deep.equal(served.data);
    expect(similar.pagination).to.deep.equal(served.pagination);
    expect(similar.data.length).to.be.within(1, 3);
  });
  it('suggest: the completions the API serves, typed (text, type, count), lists sent comma-separated', async () => {
    const answer = await client.grants.suggest({
      q: 'energy ef',
      type: ['words', 'titles'],
      eligibleProvinces: ['ONTARIO'],
      limit: 4,
    });
    expect(answer.data).to.deep.equal(
      (await api.request(`${GRANTS_PATH}/suggest?q=energy%20ef&type=words,titles&eligibleProvinces=ONTARIO&limit=4`))
        .body.data,
    );
    expect(answer.data.length).to.be.within(1, 4);
    const first = answer.data[0];
    const kind: 'word' | 'title' | 'funder' = first.type;
    expect(kind).to.be.oneOf(['word', 'title']);
    expect(first.text.startsWith('energy ') || kind === 'title').to.equal(true);
    expect(first.count).to.be.above(0);
  });

  it('commonGrants: list, get by UUID and by id, search; the same data as the API serves', async () => {
    const page = await client.commonGrants.list({ pageSize: 2 });
    expect(page.items).to.have.length(2);
    expect(page.paginationInfo).to.include({ page: 1, pageSize: 2 });
    const [first] = page.items;
    const grantId = first.customFields.grantsApiId.value as string;
    const byUuid = await client.commonGrants.get(first.id);
    const byId = await client.commonGrants.get(grantId);
    expect(byUuid.data).to.deep.equal(first);
    expect(byId.data).to.deep.equal(first);
    const found = await client.commonGrants.search({
      search: 'energy',
      filters: { customFilters: { eligibleProvinces: { operator: 'in', value: ['ONTARIO'] } } },
      pagination: { pageSize: 3 },
    });
    const same = await api.request(`${API_PREFIX}/common-grants/opportunities/search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        search: 'energy',
        filters: { customFilters: { eligibleProvinces: { operator: 'in', value: ['ONTARIO'] } } },
        pagination: { pageSize: 3 },
      }),
    });
    expect(found.items).to.deep.equal(same.body.items);
    expect(found.sortInfo).to.deep.equal({ sortBy: 'custom', customSortBy: 'relevance', sortOrder: 'desc' });
    const missing = await apiErrorOf(sdk, client.commonGrants.get('no-such-grant'));
    expect(missing).to.include({ status: 404, code: 'NOT_FOUND' });
  });

  it('usage and limits of the subscription', async () => {
    const limits = await client.subscription.limits();
    expect(limits.data.subscription.tier).to.equal('ENTERPRISE');
    expect(limits.data.limits.rateLimit.requestsPerSecond).to.be.greaterThan(0);
    const before = (await client.subscription.usage()).data.currentMonth.calls;
    await client.grants.search({ limit: 1 });
    const usage = await client.subscription.usage({ days: 7 });
    expect(usage.data.currentMonth.calls).to.equal(before + 1);
    expect(usage.data.currentMonth.limit).to.equal(limits.data.limits.monthly.limit);
  });

  it('keys: create with restrictions (the key shown once), list (never a key), revoke; a key without keys:manage gets a typed SCOPE_NOT_ALLOWED', async () => {
    const created = await client.keys.create({ name: 'SDK widget', scopes: ['grants:search'], rateLimit: 5 });
    expect(created.data.apiKey).to.match(/^gk_live_/);
    expect(created.data.restrictions).to.deep.equal({
      scopes: ['grants:search'],
      origins: null,
      ips: null,
      rateLimit: 5,
    });
    const listed = await client.keys.list();
    expect(listed.data.map((k) => k.id)).to.include(created.data.id);
    expect(JSON.stringify(listed)).to.not.include(created.data.apiKey);
    const widget = sdk.createGrantsClient({ baseUrl: api.url, apiKey: created.data.apiKey });
    expect((await widget.grants.search({ limit: 1 })).data.length).to.equal(1);
    const refused = await apiErrorOf(sdk, widget.keys.list());
    expect(refused).to.include({ status: 403, code: 'SCOPE_NOT_ALLOWED' });
    expect(refused.message).to.include('keys:manage');
    expect((await client.keys.revoke(created.data.id)).data).to.deep.equal({ id: created.data.id, revoked: true });
    expect(await apiErrorOf(sdk, widget.grants.search())).to.include({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('typed errors: 404 NOT_FOUND, 400 VALIDATION_ERROR with details, 401 UNAUTHORIZED, each with its request id', async () => {
    const missing = await apiErrorOf(sdk, client.grants.get('no-such-grant'));
    expect(missing).to.include({ status: 404, code: 'NOT_FOUND', name: 'GrantsApiError' });
    expect(missing.requestId).to.be.a('string').and.not.equal('');
    expect(missing.message).to.be.a('string').and.not.equal('');

    const refusing = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: api.key,
      fetch: checkedFetch({ invalidRequest: true }),
    });
    const invalid = await apiErrorOf(
      sdk,
      refusing.grants.search({ limit: -1, amountMin: 10, amountMax: 5, eligibleProvinces: ['ATLANTIS' as 'ONTARIO'] }),
    );
    expect(invalid).to.include({ status: 400, code: 'VALIDATION_ERROR' });
    expect(invalid.details.map((d) => d.parameter)).to.include.members(['limit', 'eligibleProvinces']);
    expect(invalid.details.every((d) => typeof d.message === 'string' && d.message !== '')).to.equal(true);

    const stranger = sdk.createGrantsClient({
      baseUrl: `${api.url}${API_PREFIX}/`,
      apiKey: 'not-a-key',
      fetch: checked,
    });
    const refused = await apiErrorOf(sdk, stranger.grants.search());
    expect(refused).to.include({ status: 401, code: 'UNAUTHORIZED' });
    expect(() => sdk.createGrantsClient({ baseUrl: '', apiKey: 'x' })).to.throw(TypeError, /baseUrl/);
  });

  it('retries 429 as Retry-After says (STARTER: 10 requests a second), within its bound', async () => {
    const starter = api.deps.subscriptions.create({ name: 'sdk-starter', tier: 'STARTER' });
    const retries: RetryInfo[] = [];
    const patient = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: starter.apiKey,
      retry: { maxAttempts: 6, onRetry: (r) => retries.push(r) },
      fetch: checked,
    });
    const [id] = await servedIds(api);
    const answers = await Promise.all(Array.from({ length: 20 }, () => patient.grants.get(id)));
    expect(answers.every((a) => a.data.id === id)).to.equal(true);
    expect(retries.length).to.be.greaterThan(0);
    for (const retry of retries) expect(retry).to.include({ status: 429, delayMs: 1000, method: 'GET' });

    // Without retries (or with a total wait too short for Retry-After) the 429 is a typed error.
    const impatient = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: starter.apiKey,
      retry: { maxTotalWaitMs: 500 },
      fetch: checked,
    });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => impatient.grants.get(id)));
    const refusals = outcomes
      .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
      .map((o) => o.reason as GrantsApiError);
    expect(refusals.length).to.be.greaterThan(0);
    for (const refusal of refusals) {
      expect(refusal).to.be.instanceOf(sdk.GrantsApiError);
      expect(refusal).to.include({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    }
  });

  it('retries a 503 to the CommonGrants search (a POST that only reads), not to another POST', async () => {
    /**
     * Answers the first request of each path with a 503 as the API sends it (Retry-After 0), then lets the requests
     * through.
     */
    const failedOnce = new Set<string>();
    const flaky = async (request: Request): Promise<Response> => {
      const path = new URL(request.url).pathname;
      if (!failedOnce.has(path)) {
        failedOnce.add(path);
        return new Response(
          JSON.stringify({
            success: false,
            error: { code: 'SERVICE_UNAVAILABLE', message: 'retry' },
            meta: { requestId: 'req_x', version: 'v1' },
          }),
          {
            status: 503,
            headers: { 'Content-Type': 'application/json', 'Retry-After': '0' },
          },
        );
      }
      return checked(request);
    };
    const retries: RetryInfo[] = [];
    const retrying = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: api.key,
      retry: { onRetry: (r) => retries.push(r) },
      fetch: flaky,
    });
    expect((await retrying.commonGrants.search({ pagination: { pageSize: 1 } })).items).to.have.length(1);
    expect(retries.map((r) => [r.status, r.method])).to.deep.equal([[503, 'POST']]);
    const refused = await apiErrorOf(sdk, retrying.keys.create({ name: 'not retried' }));
    expect(refused).to.include({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(retries).to.have.length(1);
  });
});

describe('TypeScript SDK: changes.sync follows the feed, tombstones included', function () {
  this.timeout(180_000);
  let sdk: Sdk;
  let api: TestApi | undefined;
  const env = { SEARCH_ENGINE: 'sqlite', DATA_DIR: tempDir('grants-sdk-feed-') };
  let step = 0;
  const ids = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `g-${String(from + i).padStart(2, '0')}`);
  const indexer = async (args: string[], records: readonly GrantRecord[]) => {
    const source = writeNdjson(env.DATA_DIR, `source-${++step}.ndjson`, records);
    const run = await captureCli((io) =>
      runIndexer([...args, '--source', source], { ...process.env, ...env, LOG_LEVEL: 'silent' }, io),
    );
    expect(run.code, `${args.join(' ')}: ${run.err.join('\n')}`).to.equal(0);
  };

  before(async () => {
    sdk = await loadSdk();
  });
  after(async () => {
    await api?.stop();
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('syncs the whole catalog from 0 over several pages, then a tombstone after sync --prune, and keeps the position', async () => {
    await indexer(
      ['reindex'],
      ids(1, 5).map((id) => grantRecord(id)),
    );
    api = await startTestApi({ ...env, SEED_CATALOG: 'false' });
    const requests: string[] = [];
    const client = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: api.key,
      fetch: (request) => (requests.push(request.url), checked(request)),
    });
    const copy = new Map<string, unknown>();
    const apply = (entry: ChangeEntry) => {
      if (entry.deleted) copy.delete(entry.id);
      else copy.set(entry.id, entry.grant);
    };

    const first = await client.changes.sync('0', apply, { limit: 2 });
    expect(first.changes).to.equal(5);
    expect(requests).to.have.length(3); // 2 + 2 + 1, following hasMore
    expect([...copy.keys()].sort()).to.deep.equal(ids(1, 5));
    expect(copy.get('g-01')).to.deep.equal((await api.request(`${GRANTS_PATH}/g-01`)).body.data);

    await indexer(
      ['sync', '--prune'],
      ids(2, 5).map((id) => grantRecord(id)),
    );
    const seen: ChangeEntry[] = [];
    const second = await client.changes.sync(first.nextSince, async (entry) => {
      seen.push(entry);
      apply(entry);
    });
    expect(seen).to.have.length(1);
    expect(seen[0]).to.include({ id: 'g-01', deleted: true, grant: null });
    expect(second.nextSince).to.not.equal(first.nextSince);
    expect([...copy.keys()].sort()).to.deep.equal(ids(2, 5));

    const idle = await client.changes.sync(second.nextSince, () => expect.fail('no change was expected'));
    expect(idle).to.deep.equal({ nextSince: second.nextSince, changes: 0 });
  });

  it('an unknown position is a typed VALIDATION_ERROR naming since', async () => {
    const client = sdk.createGrantsClient({ baseUrl: api!.url, apiKey: api!.key, fetch: checked });
    const error = await apiErrorOf(
      sdk,
      client.changes.sync('abc', () => {}),
    );
    expect(error).to.include({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error.details.map((d) => d.parameter)).to.include('since');
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

describe('TypeScript SDK: alerts and verifyWebhook on a real delivery', function () {
  this.timeout(120_000);
  let sdk: Sdk;
  let api: TestApi;
  let client: GrantsClient;
  let server: Server;
  let hookUrl: string;
  const got: Received[] = [];

  before(async () => {
    sdk = await loadSdk();
    api = await startTestApi({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    client = sdk.createGrantsClient({ baseUrl: api.url, apiKey: api.key, fetch: checked });
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    await api?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('create, list, get, update, test (a signed alert.test verified), deliveries, rotateSecret, delete', async () => {
    const created = await client.alerts.create({
      name: 'SDK alert',
      query: { search: 'energy', eligibleProvinces: ['ONTARIO'] },
      url: hookUrl,
    });
    const alert = created.data;
    expect(alert.id).to.match(/^alt_/);
    expect(alert.secret).to.match(/^whsec_/);
    expect((await client.alerts.list()).data.map((a) => a.id)).to.include(alert.id);
    expect((await client.alerts.get(alert.id)).data).to.not.have.property('secret');
    const renamed = await client.alerts.update(alert.id, { name: 'SDK alert renamed' });
    expect(renamed.data.name).to.equal('SDK alert renamed');

    const queued = await client.alerts.test(alert.id);
    expect(queued.data).to.include({ type: 'alert.test', status: 'PENDING' });
    await until('the alert.test delivery', () => got.length >= 1);
    const delivery = got[0];
    const event = sdk.verifyWebhook(delivery.body, delivery.headers, alert.secret);
    expect(event.type).to.equal('alert.test');
    expect(event.data.alert).to.deep.equal({ id: alert.id, name: 'SDK alert renamed' });
    expect(delivery.headers['webhook-id']).to.equal(queued.data.id);
    // A fetch Headers works as well as Node's req.headers.
    const asHeaders = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    expect(sdk.verifyWebhook(new TextEncoder().encode(delivery.body), asHeaders, alert.secret).type).to.equal(
      'alert.test',
    );
    // A changed body, another secret or a missing header is refused.
    expect(() =>
      sdk.verifyWebhook(delivery.body.replace('alert.test', 'alert.tesT'), delivery.headers, alert.secret),
    ).to.throw(sdk.WebhookVerificationError);
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => sdk.verifyWebhook(delivery.body, delivery.headers, otherSecret)).to.throw(
      sdk.WebhookVerificationError,
    );
    expect(() =>
      sdk.verifyWebhook(delivery.body, { ...delivery.headers, 'webhook-signature': undefined }, alert.secret),
    ).to.throw(sdk.WebhookVerificationError, /webhook-signature/);

    await until('the delivery logged as delivered', async () =>
      (await client.alerts.deliveries(alert.id)).data.some((d) => d.id === queued.data.id && d.status === 'DELIVERED'),
    );

    const rotated = await client.alerts.rotateSecret(alert.id);
    expect(rotated.data.secret)
      .to.match(/^whsec_/)
      .and.not.equal(alert.secret);
    await client.alerts.test(alert.id);
    await until('the test after rotation', () => got.length >= 2);
    expect(sdk.verifyWebhook(got[1].body, got[1].headers, rotated.data.secret).type).to.equal('alert.test');
    expect(sdk.verifyWebhook(got[1].body, got[1].headers, [otherSecret, alert.secret]).type).to.equal('alert.test');

    const deleted = await client.alerts.delete(alert.id);
    expect(deleted.data).to.deep.equal({ id: alert.id, deleted: true });
    const gone = await apiErrorOf(sdk, client.alerts.get(alert.id));
    expect(gone).to.include({ status: 404, code: 'NOT_FOUND' });
  });

  it('an invalid alert is a VALIDATION_ERROR naming every problem', async () => {
    const refusing = sdk.createGrantsClient({
      baseUrl: api.url,
      apiKey: api.key,
      fetch: checkedFetch({ invalidRequest: true }),
    });
    const error = await apiErrorOf(
      sdk,
      refusing.alerts.create({ name: '', query: { page: 2 } as AlertQuery, url: hookUrl }),
    );
    expect(error).to.include({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error.details.map((d) => d.parameter)).to.include.members(['name', 'query.page']);
  });

  it('the same Idempotency-Key replays the first creation', async () => {
    const input = { name: 'once', query: {}, url: hookUrl };
    const first = await client.alerts.create(input, { idempotencyKey: 'sdk-key-1' });
    const again = await client.alerts.create(input, { idempotencyKey: 'sdk-key-1' });
    expect(again.data.id).to.equal(first.data.id);
    const other = await client.alerts.create(input);
    expect(other.data.id).to.not.equal(first.data.id);
  });
});
