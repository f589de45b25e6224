// GET /external/v1/grants/:id and GET /external/v1/grants/filters: their answers, fields and errors.
import { expect } from 'chai';
import { startTestApi, tempDir, type TestApi, type TestResponse } from '../support/api.js';
import { expectError, expectValidation } from '../support/assertions.js';
import {
  API_PREFIX as P,
  ITEM_LABELS,
  indexOrThrow,
  recordMaker,
  runSqliteIndexer,
  startApiOnCatalog,
  startCatalogApi,
  stopCatalogApi as stopApi,
  writeNdjson as writeSource,
  type GrantRecord as Rec,
} from '../support/catalog.js';

const rec = recordMaker(ITEM_LABELS);

/** grants-indexer `args` over `dir`; throws (naming the command) unless it exits 0. */
const index = (dir: string, args: string[]): Promise<void> => indexOrThrow(dir, args, `grants-indexer ${args[0]}`);

const catalogApi = (records: Rec[]) =>
  startCatalogApi(records, { prefix: 'grants-read-', failureLabel: 'grants-indexer reindex', clock: () => NOW });

function expectNotFound(res: TestResponse): void {
  expectError(res, 404, 'NOT_FOUND', { contentType: true });
}

/** Spec section 2, in the order of its table: the wire order. */
const WIRE_ORDER = [
  'id',
  'title',
  'description',
  'funder',
  'funderType',
  'fundingType',
  'amountMin',
  'amountMax',
  'currency',
  'opensAt',
  'deadline',
  'applicationUrl',
  'eligibleProvinces',
  'targetBeneficiaries',
  'sdgAlignment',
  'applicationComplexity',
  'isRecurring',
  'createdAt',
  'updatedAt',
  'titleFr',
  'descriptionFr',
  'source',
  'status',
];

/** The API's clock here: the full grant is forecasted then (it opens in September), the others open. */
const NOW = new Date('2026-06-15T12:00:00.000Z');

// Keys deliberately out of wire order, dates in non-canonical (but valid) forms.
const FULL_SOURCE: Rec = {
  updatedAt: '2026-06-01T12:30:00+02:00',
  isRecurring: false,
  sdgAlignment: ['SDG_4', 'SDG_13'],
  id: 'grant-full',
  amountMax: 250000.5,
  description: 'Funds clean-tech pilots across the prairies.',
  funderType: 'PROVINCIAL_TERRITORIAL_GRANT',
  title: 'Clean Tech Pilot Fund',
  fundingType: 'LOAN',
  amountMin: 5000,
  currency: 'USD',
  deadline: '2027-03-31T23:59:59Z',
  opensAt: '2026-09-01T00:00:00-04:00',
  funder: 'Prairie Innovation Office',
  applicationUrl: 'https://example.org/apply?id=42',
  eligibleProvinces: ['ALBERTA', 'SASKATCHEWAN'],
  targetBeneficiaries: ['SMALL_BUSINESS', 'STARTUPS'],
  applicationComplexity: 'HIGH',
  descriptionFr: 'Finance des projets pilotes de technologies propres dans les Prairies.',
  createdAt: '2026-05-01T10:00:00.5+02:00',
  titleFr: 'Fonds pour projets pilotes de technologies propres',
  source: { url: 'https://example.org/programs/42', id: '42', name: 'Prairie open data' },
};

const FULL_WIRE = {
  id: 'grant-full',
  title: 'Clean Tech Pilot Fund',
  description: 'Funds clean-tech pilots across the prairies.',
  funder: 'Prairie Innovation Office',
  funderType: 'PROVINCIAL_TERRITORIAL_GRANT',
  fundingType: 'LOAN',
  amountMin: 5000,
  amountMax: 250000.5,
  currency: 'USD',
  opensAt: '2026-09-01T04:00:00.000Z',
  deadline: '2027-03-31T23:59:59.000Z',
  applicationUrl: 'https://example.org/apply?id=42',
  eligibleProvinces: ['ALBERTA', 'SASKATCHEWAN'],
  targetBeneficiaries: ['SMALL_BUSINESS', 'STARTUPS'],
  sdgAlignment: ['SDG_4', 'SDG_13'],
  applicationComplexity: 'HIGH',
  isRecurring: false,
  createdAt: '2026-05-01T08:00:00.500Z',
  updatedAt: '2026-06-01T10:30:00.000Z',
  titleFr: 'Fonds pour projets pilotes de technologies propres',
  descriptionFr: 'Finance des projets pilotes de technologies propres dans les Prairies.',
  source: { name: 'Prairie open data', id: '42', url: 'https://example.org/programs/42' },
  status: 'FORECASTED',
};

const MINIMAL_SOURCE: Rec = {
  id: 'grant-minimal',
  title: 'Minimal',
  funder: 'Some Funder',
  funderType: 'CORPORATE',
  fundingType: 'EQUITY',
  currency: 'CAD',
  createdAt: '2026-02-03T04:05:06Z',
  updatedAt: '2026-02-03T04:05:06.789Z',
};

const MINIMAL_WIRE = {
  id: 'grant-minimal',
  title: 'Minimal',
  description: null,
  funder: 'Some Funder',
  funderType: 'CORPORATE',
  fundingType: 'EQUITY',
  amountMin: null,
  amountMax: null,
  currency: 'CAD',
  opensAt: null,
  deadline: null,
  applicationUrl: null,
  eligibleProvinces: [],
  targetBeneficiaries: [],
  sdgAlignment: [],
  applicationComplexity: null,
  isRecurring: null,
  createdAt: '2026-02-03T04:05:06.000Z',
  updatedAt: '2026-02-03T04:05:06.789Z',
  titleFr: null,
  descriptionFr: null,
  source: null,
  status: 'OPEN',
};

const LONG_ID = `L${'x'.repeat(127)}`;

describe('GET /grants/:id', function () {
  let api: TestApi;

  before(async function () {
    api = await catalogApi([
      FULL_SOURCE,
      MINIMAL_SOURCE,
      // Explicit nulls and empty lists in the source come out the same as absent fields.
      {
        ...MINIMAL_SOURCE,
        id: 'grant-explicit-nulls',
        description: null,
        opensAt: null,
        amountMin: null,
        amountMax: null,
        deadline: null,
        applicationUrl: null,
        eligibleProvinces: [],
        targetBeneficiaries: [],
        sdgAlignment: [],
        applicationComplexity: null,
        isRecurring: null,
        titleFr: null,
        descriptionFr: null,
      },
      rec('org.ca:2026_grant-1'),
      rec(LONG_ID),
      rec('Case-Sensitive'),
    ]);
  });
  after(async function () {
    await stopApi(api);
  });

  it('returns every field of a full grant, in wire order, with canonical dates', async function () {
    const res = await api.request(`${P}/grants/grant-full`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(Object.keys(res.body.data)).to.deep.equal(WIRE_ORDER);
    expect(res.body.data).to.deep.equal(FULL_WIRE);
    expect(res.text).to.contain('"amountMin":5000,"amountMax":250000.5,');
    expect(res.text).to.contain(
      '"source":{"name":"Prairie open data","id":"42","url":"https://example.org/programs/42"},"status":"FORECASTED"}',
    );
  });

  it('returns every field of a minimal grant: unknown scalars null, empty lists [], none missing', async function () {
    const res = await api.request(`${P}/grants/grant-minimal`);
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body.data)).to.deep.equal(WIRE_ORDER);
    expect(res.body.data).to.deep.equal(MINIMAL_WIRE);
  });

  it('explicit nulls and [] in the source read the same as absent fields', async function () {
    const res = await api.request(`${P}/grants/grant-explicit-nulls`);
    expect(Object.keys(res.body.data)).to.deep.equal(WIRE_ORDER);
    expect(res.body.data).to.deep.equal({ ...MINIMAL_WIRE, id: 'grant-explicit-nulls' });
  });

  it('the grant read by id is the same object the search returns', async function () {
    const search = await api.request(`${P}/grants?funderType=PROVINCIAL_TERRITORIAL_GRANT`);
    expect(search.body.data).to.deep.equal([FULL_WIRE]);
    expect(Object.keys(search.body.data[0])).to.deep.equal(WIRE_ORDER);
  });

  it('every grant in a search carries every field in wire order', async function () {
    const search = await api.request(`${P}/grants?limit=100`);
    expect(search.body.pagination.total).to.equal(6);
    for (const grant of search.body.data) expect(Object.keys(grant), grant.id).to.deep.equal(WIRE_ORDER);
  });

  it('serves ids with the allowed punctuation, raw or percent-encoded', async function () {
    for (const p of ['org.ca:2026_grant-1', 'org.ca%3A2026_grant-1', 'org%2Eca%3A2026%5Fgrant%2D1']) {
      const res = await api.request(`${P}/grants/${p}`);
      expect(res.status, p).to.equal(200);
      expect(res.body.data.id).to.equal('org.ca:2026_grant-1');
    }
  });

  it('serves the longest valid id (128 characters)', async function () {
    const res = await api.request(`${P}/grants/${LONG_ID}`);
    expect(res.status).to.equal(200);
    expect(res.body.data.id).to.equal(LONG_ID);
  });

  it('ids are case-sensitive', async function () {
    expect((await api.request(`${P}/grants/Case-Sensitive`)).body.data.id).to.equal('Case-Sensitive');
    expectNotFound(await api.request(`${P}/grants/case-sensitive`));
    expectNotFound(await api.request(`${P}/grants/GRANT-FULL`));
  });

  const oddIds = [
    'does-not-exist',
    'grant-ful',
    'grant-full2',
    `${LONG_ID}x`,
    'y'.repeat(201),
    'z'.repeat(5000),
    '%2F',
    'grant-full%2F',
    '%2Fgrant-full',
    'a%2Fb%2Fc',
    '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
    '...',
    '..%00',
    '%00',
    'grant-full%00',
    '%C3%A9t%C3%A9',
    '%F0%9F%92%B0',
    '%E0%A4%A',
    '%',
    '%25',
    '%20',
    'grant%20full',
    encodeURIComponent("'; DROP TABLE grants; --"),
    encodeURIComponent('" OR 1=1'),
    '*',
    encodeURIComponent('grant*'),
    '__proto__',
    'constructor',
  ];
  for (const id of oddIds) {
    it(`an unknown id (${id.length > 60 ? `${id.slice(0, 60)}… ${id.length} chars` : id}) is a 404 NOT_FOUND`, async function () {
      // Refused on purpose: an unknown id, some of them not even valid percent-encoding.
      expectNotFound(await api.request(`${P}/grants/${id}`, { invalidRequest: true }));
    });
  }

  it('a query parameter is a 400 naming it (the endpoint takes none)', async function () {
    expectValidation(await api.request(`${P}/grants/grant-full?fields=title`, { invalidRequest: true }), ['fields']);
    expectValidation(await api.request(`${P}/grants/grant-full?limit=1&page=1`, { invalidRequest: true }), [
      'limit',
      'page',
    ]);
    expectValidation(await api.request(`${P}/grants/does-not-exist?x=1`, { invalidRequest: true }), ['x']);
    expect((await api.request(`${P}/grants/grant-full?`)).body.data).to.deep.equal(FULL_WIRE);
  });
});

describe('GET /grants/filters', function () {
  let api: TestApi;

  before(async function () {
    // Values present in an order that is not alphabetical.
    api = await catalogApi([
      rec('a', {
        funderType: 'FOUNDATION',
        fundingType: 'TAX_CREDIT',
        currency: 'USD',
        eligibleProvinces: ['YUKON', 'ALBERTA'],
        targetBeneficiaries: ['STUDENTS'],
      }),
      rec('b', {
        funderType: 'CORPORATE',
        fundingType: 'GRANT',
        currency: 'CAD',
        eligibleProvinces: ['QUEBEC'],
        targetBeneficiaries: ['CHARITIES', 'RESEARCHERS'],
      }),
      rec('c', {
        funderType: 'FOUNDATION',
        fundingType: 'LOAN',
        currency: 'USD',
        eligibleProvinces: ['ALBERTA', 'MANITOBA'],
        targetBeneficiaries: [],
      }),
      rec('d', {
        funderType: 'PROVINCIAL_TERRITORIAL_GRANT',
        fundingType: 'GRANT',
        currency: 'CAD',
        eligibleProvinces: [],
        targetBeneficiaries: ['INDIGENOUS_COMMUNITIES', 'STUDENTS'],
      }),
    ]);
  });
  after(async function () {
    await stopApi(api);
  });

  const EXPECTED = {
    funderTypes: ['CORPORATE', 'FOUNDATION', 'PROVINCIAL_TERRITORIAL_GRANT'],
    fundingTypes: ['GRANT', 'LOAN', 'TAX_CREDIT'],
    eligibleProvinces: ['ALBERTA', 'MANITOBA', 'QUEBEC', 'YUKON'],
    targetBeneficiaries: ['CHARITIES', 'INDIGENOUS_COMMUNITIES', 'RESEARCHERS', 'STUDENTS'],
    currencies: ['CAD', 'USD'],
  };

  it('returns the five lists of distinct values present in the catalog, sorted', async function () {
    const res = await api.request(`${P}/grants/filters`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(Object.keys(res.body.data)).to.deep.equal([
      'funderTypes',
      'fundingTypes',
      'eligibleProvinces',
      'targetBeneficiaries',
      'currencies',
    ]);
    expect(res.body.data).to.deep.equal(EXPECTED);
    expect(res.body).not.to.have.property('pagination');
  });

  it('a query parameter is a 400 naming it (the endpoint takes none)', async function () {
    expectValidation(await api.request(`${P}/grants/filters?x=1`, { invalidRequest: true }), ['x']);
    expectValidation(await api.request(`${P}/grants/filters?funderType=FOUNDATION`, { invalidRequest: true }), [
      'funderType',
    ]);
    expectValidation(await api.request(`${P}/grants/filters?page=1&limit=5&search=a`, { invalidRequest: true }), [
      'page',
      'limit',
      'search',
    ]);
    // An empty query string is no parameter: the five lists.
    expect((await api.request(`${P}/grants/filters?`)).body.data).to.deep.equal(EXPECTED);
  });

  it('follows the live catalog: a sync adds values, a reindex removes them', async function () {
    const dir = api.dataDir;
    await index(dir, [
      'sync',
      '--source',
      writeSource(dir, 'sync.ndjson', [
        rec('e', {
          funderType: 'MUNICIPAL_GRANT',
          fundingType: 'REBATE',
          eligibleProvinces: ['NUNAVUT'],
          targetBeneficiaries: ['STARTUPS'],
        }),
      ]),
    ]);
    const afterSync = await api.request(`${P}/grants/filters`);
    expect(afterSync.body.data).to.deep.equal({
      funderTypes: ['CORPORATE', 'FOUNDATION', 'MUNICIPAL_GRANT', 'PROVINCIAL_TERRITORIAL_GRANT'],
      fundingTypes: ['GRANT', 'LOAN', 'REBATE', 'TAX_CREDIT'],
      eligibleProvinces: ['ALBERTA', 'MANITOBA', 'NUNAVUT', 'QUEBEC', 'YUKON'],
      targetBeneficiaries: ['CHARITIES', 'INDIGENOUS_COMMUNITIES', 'RESEARCHERS', 'STARTUPS', 'STUDENTS'],
      currencies: ['CAD', 'USD'],
    });
    await index(dir, [
      'reindex',
      '--source',
      writeSource(dir, 'reindex.ndjson', [
        rec('only', {
          funderType: 'FEDERAL_GRANT',
          fundingType: 'WAGE_SUBSIDY',
          currency: 'CAD',
          eligibleProvinces: ['ONTARIO'],
        }),
      ]),
      '--allow-shrink',
    ]);
    const afterReindex = await api.request(`${P}/grants/filters`);
    expect(afterReindex.body.data).to.deep.equal({
      funderTypes: ['FEDERAL_GRANT'],
      fundingTypes: ['WAGE_SUBSIDY'],
      eligibleProvinces: ['ONTARIO'],
      targetBeneficiaries: [],
      currencies: ['CAD'],
    });
  });
});

describe('an empty catalog', function () {
  let api: TestApi;
  before(async function () {
    api = await startTestApi({ SEED_CATALOG: 'false' });
  });
  after(async function () {
    await api?.stop();
  });

  it('/grants/filters returns five empty lists', async function () {
    const res = await api.request(`${P}/grants/filters`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({
      funderTypes: [],
      fundingTypes: [],
      eligibleProvinces: [],
      targetBeneficiaries: [],
      currencies: [],
    });
  });

  it('/grants returns no grant, total 0, totalPages 0; /grants/:id is 404', async function () {
    const res = await api.request(`${P}/grants?search=anything`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.pagination).to.deep.equal({ page: 1, limit: 20, total: 0, totalPages: 0 });
    expectNotFound(await api.request(`${P}/grants/anything`));
  });
});

describe('ids that collide with the literal path segment', function () {
  let api: TestApi;
  before(async function () {
    const dir = tempDir('grants-read-');
    const run = await runSqliteIndexer(
      [
        'reindex',
        '--source',
        writeSource(dir, 'source.ndjson', [rec('filters'), rec('changes'), rec('plain-1')]),
        '--skip-invalid',
      ],
      dir,
    );
    expect(run.code).to.equal(0);
    api = await startApiOnCatalog(dir);
  });
  after(async function () {
    await stopApi(api);
  });

  it('every grant a search returns can be read at /grants/:id (a grant id "filters" or "changes" is never served unreachable)', async function () {
    const search = await api.request(`${P}/grants`);
    expect(search.status).to.equal(200);
    expect(search.body.data.length).to.be.at.least(1);
    for (const grant of search.body.data) {
      const one = await api.request(`${P}/grants/${encodeURIComponent(grant.id)}`);
      expect(one.status, `GET /grants/${grant.id}`).to.equal(200);
      expect(one.body.data, `GET /grants/${grant.id}`).to.deep.equal(grant);
    }
  });
});
