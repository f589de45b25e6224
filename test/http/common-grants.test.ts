// The CommonGrants routes: GET /common-grants/opportunities (paged), GET …/opportunities/{id} (by
// the opportunity's UUID or the grant id), POST …/opportunities/search (filters, sorting, paging,
// refusals), their errors in the protocol's shape, 405, and billing.
import { expect } from 'chai';
import { opportunityUuid } from '../../src/grants/commonGrants.js';
import type { TestApi, TestResponse } from '../support/api.js';
import {
  API_PREFIX as P,
  grantRecord,
  indexOrThrow,
  runSqliteIndexer,
  startApiOnCatalog,
  stopCatalogApi,
  writeNdjson,
  type GrantRecord,
} from '../support/catalog.js';
import { tempDir } from '../support/api.js';

const CG = `${P}/common-grants/opportunities`;
/** The request time of the suite: g-1 and g-2 are open then, g-3 closed, g-4 rolling (no deadline), g-5 open. */
const NOW = new Date('2026-11-23T09:00:00.000Z');

const RECORDS: GrantRecord[] = [
  grantRecord('g-1', {
    title: 'Solar panels for farms',
    deadline: '2026-12-15T23:59:59Z',
    amountMin: 1000,
    amountMax: 5000,
    updatedAt: '2026-03-01T00:00:00Z',
    eligibleProvinces: ['ONTARIO'],
    targetBeneficiaries: ['SMALL_BUSINESS', 'NON_PROFIT'],
  }),
  grantRecord('g-2', {
    title: 'Heat pump rebate',
    fundingType: 'REBATE',
    opensAt: '2026-01-15T05:00:00Z',
    deadline: '2027-02-01T04:59:59.999Z',
    amountMin: 20000,
    amountMax: 30000,
    updatedAt: '2026-05-01T00:00:00Z',
    eligibleProvinces: ['QUEBEC'],
  }),
  grantRecord('g-3', {
    title: 'Closed solar program',
    deadline: '2026-06-30T23:59:59Z',
    amountMin: 2500,
    amountMax: 2500,
    updatedAt: '2026-04-01T00:00:00Z',
    currency: 'USD',
  }),
  grantRecord('g-4', {
    title: 'Rolling research fund',
    updatedAt: '2026-02-01T00:00:00Z',
    description: 'Funds research on soil.',
    applicationComplexity: 'HIGH',
    isRecurring: true,
  }),
  grantRecord('g-5', {
    title: 'Youth jobs wage subsidy',
    fundingType: 'WAGE_SUBSIDY',
    deadline: '2027-01-10T12:00:00Z',
    amountMax: 10000,
    updatedAt: '2026-06-01T00:00:00Z',
    sdgAlignment: ['SDG_8'],
    titleFr: 'Subvention salariale jeunesse',
    descriptionFr: 'Emplois pour les jeunes.',
    source: { name: 'Programs spreadsheet', id: 'YJ-1', url: 'https://example.org/programs/yj-1' },
  }),
];

const post = (api: TestApi, body: unknown, options: { invalidRequest?: boolean } = {}): Promise<TestResponse> =>
  api.request(`${CG}/search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    ...options,
  });

const titles = (res: TestResponse): string[] => res.body.items.map((o: { title: string }) => o.title);
const grantIds = (res: TestResponse): string[] =>
  res.body.items.map((o: { customFields: { grantsApiId: { value: string } } }) => o.customFields.grantsApiId.value);

/** A refusal in the protocol's Error shape and the envelope at once, naming each field. */
function expectRefused(res: TestResponse, status: number, code: string, fields: string[] = []): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body.status).to.equal(status);
  expect(res.body.message).to.be.a('string').and.equal(res.body.error.message);
  expect(res.body.errors).to.be.an('array').that.is.not.empty;
  expect(res.body.success).to.equal(false);
  expect(res.body.error.code).to.equal(code);
  if (fields.length > 0)
    expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).to.include.members(fields);
}

describe('CommonGrants routes', function () {
  let api: TestApi;

  before(async function () {
    const dir = tempDir('common-grants-');
    await indexOrThrow(dir, ['reindex', '--source', writeNdjson(dir, 'source.ndjson', RECORDS)]);
    api = await startApiOnCatalog(dir, {}, { clock: () => NOW });
  });
  after(async function () {
    await stopCatalogApi(api);
  });

  describe('GET /common-grants/opportunities', function () {
    it("pages the catalog, most recently modified first, with the protocol's paginationInfo", async function () {
      const first = await api.request(`${CG}?pageSize=2`);
      expect(first.status, first.text).to.equal(200);
      expect(first.body.status).to.equal(200);
      expect(first.body.message).to.equal('Success');
      expect(first.body.paginationInfo).to.deep.equal({ page: 1, pageSize: 2, totalItems: 5, totalPages: 3 });
      expect(grantIds(first)).to.deep.equal(['g-5', 'g-2']);
      const last = await api.request(`${CG}?page=3&pageSize=2`);
      expect(grantIds(last)).to.deep.equal(['g-4']);
      const all = await api.request(CG);
      expect(all.body.paginationInfo).to.deep.equal({ page: 1, pageSize: 100, totalItems: 5, totalPages: 1 });
      expect(grantIds(all)).to.deep.equal(['g-5', 'g-2', 'g-3', 'g-1', 'g-4']);
    });

    it('maps each field: UUID id, status at the request time, Money, keyDates, applicant types, custom fields', async function () {
      const all = await api.request(CG);
      const byId = Object.fromEntries(
        all.body.items.map((o: { customFields: { grantsApiId: { value: string } } }) => [
          o.customFields.grantsApiId.value,
          o,
        ]),
      );
      const g1 = byId['g-1'];
      expect(g1.id)
        .to.equal(opportunityUuid('g-1'))
        .and.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(g1.status.value).to.equal('open');
      expect(g1.funding).to.deep.equal({
        minAwardAmount: { amount: '1000', currency: 'CAD' },
        maxAwardAmount: { amount: '5000', currency: 'CAD' },
      });
      expect(g1.keyDates.closeDate).to.deep.include({ eventType: 'singleDate', date: '2026-12-15', time: '23:59:59Z' });
      expect(g1.acceptedApplicantTypes).to.deep.equal([
        { value: 'for_profit_small_business', description: 'Small businesses' },
        { value: 'custom', customValue: 'NON_PROFIT', description: 'Non-profit organizations' },
      ]);
      expect(g1.customFields.eligibleProvinces).to.deep.include({ fieldType: 'array', value: ['ONTARIO'] });
      expect(g1.customFields.funderType.value).to.equal('FEDERAL_GRANT');
      expect(g1.description).to.equal('');
      expect(g1.lastModifiedAt).to.equal('2026-03-01T00:00:00.000Z');
      expect(byId['g-3'].status.value).to.equal('closed');
      expect(byId['g-3'].funding.minAwardAmount).to.deep.equal({ amount: '2500', currency: 'USD' });
      expect(byId['g-4'].status.value).to.equal('open');
      expect(byId['g-4']).to.not.have.any.keys('keyDates', 'funding');
      expect(byId['g-4'].customFields.isRecurring.value).to.equal(true);
      expect(byId['g-5'].funding).to.deep.equal({ maxAwardAmount: { amount: '10000', currency: 'CAD' } });
    });

    it("carries every field of ours: opensAt as keyDates.postDate, milliseconds kept, the source's page, French, currency and source as custom fields", async function () {
      const all = await api.request(CG);
      const byId = Object.fromEntries(
        all.body.items.map((o: { customFields: { grantsApiId: { value: string } } }) => [
          o.customFields.grantsApiId.value,
          o,
        ]),
      );
      expect(byId['g-2'].keyDates.postDate).to.deep.include({
        eventType: 'singleDate',
        date: '2026-01-15',
        time: '05:00:00Z',
      });
      expect(byId['g-2'].keyDates.closeDate).to.deep.include({ date: '2027-02-01', time: '04:59:59.999Z' });
      expect(byId['g-1'].keyDates).to.not.have.key('postDate');
      expect(byId['g-5'].source).to.equal('https://example.org/programs/yj-1');
      expect(byId['g-5'].customFields.source).to.deep.include({
        fieldType: 'object',
        value: { name: 'Programs spreadsheet', id: 'YJ-1', url: 'https://example.org/programs/yj-1' },
      });
      expect(byId['g-5'].customFields.titleFr.value).to.equal('Subvention salariale jeunesse');
      expect(byId['g-5'].customFields.descriptionFr.value).to.equal('Emplois pour les jeunes.');
      expect(byId['g-4'].customFields.currency).to.deep.include({ fieldType: 'string', value: 'CAD' });
      expect(byId['g-3'].customFields.currency.value).to.equal('USD');
      expect(byId['g-1']).to.not.have.key('source');
      expect(byId['g-1'].customFields).to.not.have.any.keys('source', 'titleFr', 'descriptionFr');
    });

    it("refuses a pageSize above 100, a page past the window and an unknown parameter, in the protocol's error shape", async function () {
      expectRefused(await api.request(`${CG}?pageSize=101`, { invalidRequest: true }), 400, 'VALIDATION_ERROR', [
        'pageSize',
      ]);
      expectRefused(await api.request(`${CG}?page=101&pageSize=100`), 400, 'VALIDATION_ERROR', ['page']);
      expectRefused(await api.request(`${CG}?limit=5`, { invalidRequest: true }), 400, 'VALIDATION_ERROR', ['limit']);
    });

    it("answers HEAD as GET without the body, and a URL too long (refused before its route is known) in the protocol's shape too", async function () {
      const head = await api.request(`${CG}?pageSize=1`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
      expectRefused(await api.request(`${CG}?page=${'1'.repeat(9000)}`, { invalidRequest: true }), 414, 'URI_TOO_LONG');
      expectRefused(
        await api.request(`${CG}/search?x=${'1'.repeat(9000)}`, { invalidRequest: true }),
        414,
        'URI_TOO_LONG',
      );
    });

    it('answers 405 to another method, with Allow', async function () {
      const res = await api.request(CG, { method: 'DELETE', invalidRequest: true });
      expectRefused(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
    });
  });

  describe('GET /common-grants/opportunities/{id}', function () {
    it('resolves the opportunity UUID (any case) and the grant id to the same opportunity', async function () {
      const uuid = opportunityUuid('g-2');
      const byUuid = await api.request(`${CG}/${uuid}`);
      expect(byUuid.status, byUuid.text).to.equal(200);
      expect(byUuid.body.data.id).to.equal(uuid);
      expect(byUuid.body.data.title).to.equal('Heat pump rebate');
      const byUpper = await api.request(`${CG}/${uuid.toUpperCase()}`);
      const byOurId = await api.request(`${CG}/g-2`);
      expect(byUpper.body.data).to.deep.equal(byUuid.body.data);
      expect(byOurId.body.data).to.deep.equal(byUuid.body.data);
      expect(byOurId.body).to.have.keys('status', 'message', 'data', 'meta');
    });

    it("answers 404 in the protocol's error shape for an unknown UUID and an unknown id", async function () {
      expectRefused(await api.request(`${CG}/${opportunityUuid('no-such-grant')}`), 404, 'NOT_FOUND');
      expectRefused(await api.request(`${CG}/no-such-grant`), 404, 'NOT_FOUND');
    });

    it("answers 405 to POST, and GET on /search is the search route's 405", async function () {
      expect((await api.request(`${CG}/g-1`, { method: 'POST', invalidRequest: true })).status).to.equal(405);
      const res = await api.request(`${CG}/search`, { invalidRequest: true });
      expectRefused(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).to.equal('POST');
    });
  });

  describe('POST /common-grants/opportunities/search', function () {
    it('without a body part: every opportunity, lastModifiedAt newest first, with sortInfo and filterInfo', async function () {
      const res = await post(api, {});
      expect(res.status, res.text).to.equal(200);
      expect(grantIds(res)).to.deep.equal(['g-5', 'g-2', 'g-3', 'g-1', 'g-4']);
      expect(res.body.sortInfo).to.deep.equal({ sortBy: 'lastModifiedAt', sortOrder: 'desc' });
      expect(res.body.filterInfo).to.deep.equal({ filters: {} });
    });

    it('search text ranks by relevance; status filters open and closed (forecasted matches none)', async function () {
      const solar = await post(api, { search: 'solar' });
      expect(grantIds(solar)).to.have.members(['g-1', 'g-3']);
      expect(solar.body.sortInfo).to.deep.equal({ sortBy: 'custom', customSortBy: 'relevance', sortOrder: 'desc' });
      const closed = await post(api, { filters: { status: { operator: 'in', value: ['closed'] } } });
      expect(grantIds(closed)).to.deep.equal(['g-3']);
      const notClosed = await post(api, { filters: { status: { operator: 'notIn', value: ['closed'] } } });
      expect(grantIds(notClosed)).to.have.members(['g-1', 'g-2', 'g-4', 'g-5']);
      const forecasted = await post(api, { filters: { status: { operator: 'in', value: ['forecasted'] } } });
      expect(forecasted.body.items).to.deep.equal([]);
      expect(forecasted.body.paginationInfo).to.deep.equal({ page: 1, pageSize: 100, totalItems: 0, totalPages: 0 });
      expect(forecasted.body.filterInfo.filters).to.deep.equal({ status: { operator: 'in', value: ['forecasted'] } });
    });

    it('closeDateRange takes dates (whole UTC days) and date-times with an offset', async function () {
      const days = await post(api, {
        filters: { closeDateRange: { operator: 'between', value: { min: '2026-12-15', max: '2027-01-10' } } },
      });
      expect(grantIds(days)).to.have.members(['g-1', 'g-5']);
      const offset = await post(api, {
        filters: {
          closeDateRange: {
            operator: 'between',
            value: { min: '2027-01-31T23:00:00-05:00', max: '2027-02-01T00:00:00-05:00' },
          },
        },
      });
      expect(grantIds(offset)).to.deep.equal(['g-2']);
    });

    it("minAwardAmountRange and maxAwardAmountRange bound the grant's own amounts, in their currency", async function () {
      const minRange = await post(api, {
        filters: {
          minAwardAmountRange: {
            operator: 'between',
            value: { min: { amount: '1000', currency: 'CAD' }, max: { amount: '20000', currency: 'CAD' } },
          },
        },
      });
      expect(grantIds(minRange)).to.have.members(['g-1', 'g-2']);
      const usd = await post(api, {
        filters: {
          maxAwardAmountRange: {
            operator: 'between',
            value: { min: { amount: '0', currency: 'USD' }, max: { amount: '99999.99', currency: 'USD' } },
          },
        },
      });
      expect(grantIds(usd)).to.deep.equal(['g-3']);
      const maxRange = await post(api, {
        filters: {
          maxAwardAmountRange: {
            operator: 'between',
            value: { min: { amount: '5000', currency: 'CAD' }, max: { amount: '10000', currency: 'CAD' } },
          },
        },
      });
      expect(grantIds(maxRange)).to.have.members(['g-1', 'g-5']);
    });

    it('customFilters filter on our fields; sorting and pagination as asked', async function () {
      const quebec = await post(api, {
        filters: { customFilters: { eligibleProvinces: { operator: 'in', value: ['QUEBEC', 'ALBERTA'] } } },
      });
      expect(grantIds(quebec)).to.deep.equal(['g-2']);
      const sorted = await post(api, {
        sorting: { sortBy: 'keyDates.closeDate' },
        pagination: { page: 2, pageSize: 2 },
      });
      expect(grantIds(sorted)).to.deep.equal(['g-5', 'g-2']);
      expect(sorted.body.sortInfo).to.deep.equal({ sortBy: 'keyDates.closeDate', sortOrder: 'asc' });
      expect(sorted.body.paginationInfo).to.deep.equal({ page: 2, pageSize: 2, totalItems: 5, totalPages: 3 });
      const byTitle = await post(api, { sorting: { sortBy: 'title', sortOrder: 'desc' }, pagination: { pageSize: 1 } });
      expect(titles(byTitle)).to.deep.equal(['Youth jobs wage subsidy']);
    });

    it("refuses what it cannot answer by name, in the protocol's error shape", async function () {
      expectRefused(
        await post(
          api,
          {
            filters: {
              totalFundingAvailableRange: {
                operator: 'between',
                value: { min: { amount: '1', currency: 'CAD' }, max: { amount: '2', currency: 'CAD' } },
              },
            },
          },
          { invalidRequest: true },
        ),
        400,
        'VALIDATION_ERROR',
        ['filters.totalFundingAvailableRange'],
      );
      expectRefused(
        await post(
          api,
          { filters: { closeDateRange: { operator: 'outside', value: { min: '2026-01-01', max: '2026-02-01' } } } },
          { invalidRequest: true },
        ),
        400,
        'VALIDATION_ERROR',
        ['filters.closeDateRange.operator'],
      );
      expectRefused(
        await post(api, { sorting: { sortBy: 'status.value' } }, { invalidRequest: true }),
        400,
        'VALIDATION_ERROR',
        ['sorting.sortBy'],
      );
      expectRefused(
        await post(api, { sorting: { sortBy: 'custom', customSortBy: 'relevance' } }),
        400,
        'VALIDATION_ERROR',
        ['sorting.customSortBy'],
      );
      expectRefused(
        await post(
          api,
          {
            filters: {
              minAwardAmountRange: {
                operator: 'between',
                value: { min: { amount: '1', currency: 'EUR' }, max: { amount: '2', currency: 'CAD' } },
              },
            },
            pagination: { pageSize: 0 },
            extra: 1,
          },
          { invalidRequest: true },
        ),
        400,
        'VALIDATION_ERROR',
        ['filters.minAwardAmountRange.value.min.currency', 'pagination.pageSize', 'extra'],
      );
      expectRefused(
        await api.request(`${CG}/search`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"search":',
          invalidRequest: true,
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectRefused(
        await api.request(`${CG}/search`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/plain' },
          body: '{}',
          invalidRequest: true,
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });
  });

  describe('keys, limits and billing', function () {
    it('counts each call toward the allowance under its route template, as the grant endpoints', async function () {
      const before = (await api.request(`${P}/subscription/usage?days=1`)).body.data;
      await api.request(CG);
      await post(api, {});
      await api.request(`${CG}/g-1`);
      await api.request(`${CG}/nope`);
      const after = (await api.request(`${P}/subscription/usage?days=1`)).body.data;
      expect(after.currentMonth.calls - before.currentMonth.calls).to.equal(4);
      const today = after.statistics.daily.at(-1).byEndpoint;
      expect(today['/common-grants/opportunities']).to.be.at.least(1);
      expect(today['/common-grants/opportunities/search']).to.be.at.least(1);
      expect(today['/common-grants/opportunities/:id']).to.be.at.least(2);
    });

    it('needs a key, and the scope of its feature: grants:search to list, grants:read to read', async function () {
      expectRefused(await api.request(CG, { key: null, invalidRequest: true }), 401, 'UNAUTHORIZED');
      const readOnly = await api.request(`${P}/keys`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'read only', scopes: ['grants:read'] }),
      });
      expect(readOnly.status, readOnly.text).to.equal(201);
      const key = readOnly.body.data.apiKey as string;
      expect((await api.request(`${CG}/g-1`, { key })).status).to.equal(200);
      expectRefused(await api.request(CG, { key }), 403, 'SCOPE_NOT_ALLOWED');
      expectRefused(
        await api.request(`${CG}/search`, {
          key,
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        }),
        403,
        'SCOPE_NOT_ALLOWED',
      );
    });
  });

  describe('an opportunity added by a sync', function () {
    let clockMs = NOW.getTime();
    let synced: TestApi;
    before(async function () {
      const dir = tempDir('common-grants-sync-');
      await indexOrThrow(dir, ['reindex', '--source', writeNdjson(dir, 'source.ndjson', RECORDS.slice(0, 2))]);
      synced = await startApiOnCatalog(dir, {}, { clock: () => new Date(clockMs) });
    });
    after(async function () {
      await stopCatalogApi(synced);
    });

    it('answers by its id at once and by its UUID once the map is built again (at most 10 seconds later)', async function () {
      expect((await synced.request(`${CG}/${opportunityUuid('g-1')}`)).status).to.equal(200);
      const run = await runSqliteIndexer(
        [
          'sync',
          '--source',
          writeNdjson(synced.dataDir, 'more.ndjson', [grantRecord('g-9', { title: 'Added later' })]),
        ],
        synced.dataDir,
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect((await synced.request(`${CG}/g-9`)).body.data.title).to.equal('Added later');
      expectRefused(await synced.request(`${CG}/${opportunityUuid('g-9')}`), 404, 'NOT_FOUND');
      clockMs += 10_000;
      const byUuid = await synced.request(`${CG}/${opportunityUuid('g-9')}`);
      expect(byUuid.status, byUuid.text).to.equal(200);
      expect(byUuid.body.data.customFields.grantsApiId.value).to.equal('g-9');
    });
  });
});
