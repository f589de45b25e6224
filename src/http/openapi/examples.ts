// The example answers of the OpenAPI document: real answers of the API over the bundled fixture
// catalog (fixtures/grants.ndjson), each with the request that gives it, at the time of
// EXAMPLE_META (the grant lists ask for open grants, which depend on the time). A test asks each
// request of a server seeded with the fixtures, its clock set to that time, and compares (meta
// aside, which changes with every call), and checks every example against the document's schemas.
import type { ServedGrant } from '../../grants/schema.js';
import type { RouteName } from '../routeTable.js';

/**
 * A grant of the fixture catalog, as GET /grants/{id} serves it at EXAMPLE_META's time: closed (its deadline passed in
 * June).
 */
export const EXAMPLE_GRANT: ServedGrant = {
  id: 'grt_7f0ef37c',
  title: 'Sudbury Energy Efficiency Rebate Program',
  description:
    'Enbridge Gas provides rebates to non-profit organizations in Sudbury, Ontario to lower energy use in homes ' +
    'and buildings. Up to $82,000 is available per project. Eligible costs include insulation, energy audits and ' +
    'heat pumps. Applicants must contribute at least 25% of eligible project costs. A new intake opens every ' +
    'year.',
  funder: 'Enbridge Gas',
  funderType: 'CORPORATE',
  fundingType: 'REBATE',
  amountMin: null,
  amountMax: 82000,
  currency: 'CAD',
  opensAt: '2025-03-09T05:00:00.000Z',
  deadline: '2026-06-16T17:00:00.000Z',
  applicationUrl: 'https://enbridgegas.com/programs/sudbury-energy-efficiency-rebate-program',
  eligibleProvinces: ['ONTARIO'],
  targetBeneficiaries: ['NON_PROFIT'],
  sdgAlignment: ['SDG_7'],
  applicationComplexity: 'MEDIUM',
  isRecurring: true,
  createdAt: '2024-04-25T04:33:49.529Z',
  updatedAt: '2024-04-25T04:33:49.529Z',
  titleFr: null,
  descriptionFr: null,
  source: null,
  status: 'CLOSED',
};

/** The id of a fixture grant, shown as removed (a tombstone) in the changes example. */
const REMOVED_ID = 'grt_3e22ab83';

export const EXAMPLE_META = {
  timestamp: '2026-11-23T09:00:00.000Z',
  requestId: 'req_Yq3vN0cS8kD2mW5tB7xL1aZe',
  version: 'v1',
} as const;

export interface AnswerExample {
  /** The request (path and query under the API prefix) that gives this answer over the fixture catalog. */
  request: string;
  /**
   * False when the answer depends on more than the catalog (the feed's times, a subscription's usage): then only its
   * shape is checked.
   */
  exact: boolean;
  /** The JSON answer (meta included), or the text of a streamed export by media type. */
  value: unknown;
}

const EXPORT_QUERY =
  'open=true&fundingType=REBATE&eligibleProvinces=ONTARIO&deadlineTo=2027-03-31' +
  '&fields=id,title,amountMin,amountMax,deadline';

/** The NDJSON and CSV answers of the export example. */
export const EXPORT_EXAMPLES = {
  ndjson: {
    request: `/grants/export?${EXPORT_QUERY}`,
    text:
      '{"id":"grt_c44f6efd","title":"Ottawa Energy Efficiency Rebate Program",' +
      '"amountMin":1500,"amountMax":3500,"deadline":"2026-12-22T17:00:00.000Z"}\n',
  },
  csv: {
    request: `/grants/export?format=csv&${EXPORT_QUERY}`,
    text:
      'id,title,amountMin,amountMax,deadline\r\n' +
      'grt_c44f6efd,Ottawa Energy Efficiency Rebate Program,1500,3500,2026-12-22T17:00:00.000Z\r\n',
  },
} as const;

/** The example answer of each JSON operation. */
export const ANSWER_EXAMPLES: Record<
  Extract<
    RouteName,
    | 'grants'
    | 'grantFilters'
    | 'grantChanges'
    | 'grant'
    | 'grantHistory'
    | 'grantSimilar'
    | 'grantSuggest'
    | 'usage'
    | 'limits'
  >,
  AnswerExample
> = {
  grants: {
    request:
      '/grants?open=true&eligibleProvinces=ONTARIO&fundingType=REBATE&sort=deadline&facets=currency' +
      '&fields=id,title,funder,amountMin,amountMax,currency,deadline&limit=2',
    exact: true,
    value: {
      success: true,
      data: [
        {
          id: 'grt_c44f6efd',
          title: 'Ottawa Energy Efficiency Rebate Program',
          funder: 'Enbridge Gas',
          amountMin: 1500,
          amountMax: 3500,
          currency: 'CAD',
          deadline: '2026-12-22T17:00:00.000Z',
        },
        {
          id: 'grt_f00f171b',
          title: 'Energy Efficiency Incentive Rebate 2025',
          funder: 'Natural Resources Canada',
          amountMin: 4000,
          amountMax: 12000,
          currency: 'CAD',
          deadline: null,
        },
      ],
      pagination: { page: 1, limit: 2, total: 2, totalPages: 1 },
      facets: { currency: [{ value: 'CAD', count: 2 }] },
      meta: EXAMPLE_META,
    },
  },
  grantSuggest: {
    request: '/grants/suggest?q=energy%20ef&eligibleProvinces=ONTARIO&limit=3',
    exact: true,
    value: {
      success: true,
      data: [
        { text: 'energy efficiency', type: 'word', count: 5 },
        { text: 'energy efficacite', type: 'word', count: 2 },
        { text: 'Energy Efficiency Incentive Rebate', type: 'title', count: 1 },
      ],
      meta: EXAMPLE_META,
    },
  },
  grantFilters: {
    request: '/grants/filters',
    exact: true,
    value: {
      success: true,
      data: {
        funderTypes: [
          'CORPORATE',
          'FEDERAL_GRANT',
          'FOUNDATION',
          'MUNICIPAL_GRANT',
          'NON_PROFIT_ORGANIZATION',
          'PROVINCIAL_TERRITORIAL_GRANT',
        ],
        fundingTypes: ['EQUITY', 'GRANT', 'LOAN', 'REBATE', 'TAX_CREDIT', 'WAGE_SUBSIDY'],
        eligibleProvinces: [
          'ALBERTA',
          'BRITISH_COLUMBIA',
          'MANITOBA',
          'NEWFOUNDLAND_AND_LABRADOR',
          'NEW_BRUNSWICK',
          'NORTHWEST_TERRITORIES',
          'NOVA_SCOTIA',
          'NUNAVUT',
          'ONTARIO',
          'PRINCE_EDWARD_ISLAND',
          'QUEBEC',
          'SASKATCHEWAN',
          'YUKON',
        ],
        targetBeneficiaries: [
          'CHARITIES',
          'COMMUNITY_ORGANIZATIONS',
          'INDIGENOUS_COMMUNITIES',
          'INDIVIDUALS',
          'LARGE_BUSINESS',
          'MEDIUM_BUSINESS',
          'MUNICIPALITIES',
          'NON_PROFIT',
          'RESEARCHERS',
          'SMALL_BUSINESS',
          'STARTUPS',
          'STUDENTS',
        ],
        currencies: ['CAD', 'USD'],
      },
      meta: EXAMPLE_META,
    },
  },
  grantChanges: {
    request: '/grants/changes?since=0&limit=2',
    exact: false,
    value: {
      success: true,
      data: [
        {
          id: EXAMPLE_GRANT.id,
          deleted: false,
          changedAt: '2026-11-23T08:15:02.481Z',
          changes: [{ field: 'deadline', from: '2026-09-30T23:59:59.000Z', to: EXAMPLE_GRANT.deadline }],
          grant: EXAMPLE_GRANT,
        },
        { id: REMOVED_ID, deleted: true, changedAt: '2026-11-23T08:15:02.481Z', changes: null, grant: null },
      ],
      pagination: { limit: 2, hasMore: true, nextSince: 'eyJ2IjoxLCJsIjoibXd2eThybXRmNWZlNmZjN2FjIiwicyI6NjAwfQ' },
      meta: EXAMPLE_META,
    },
  },
  grant: {
    request: `/grants/${EXAMPLE_GRANT.id}`,
    exact: true,
    value: { success: true, data: EXAMPLE_GRANT, meta: EXAMPLE_META },
  },
  grantHistory: {
    request: `/grants/${EXAMPLE_GRANT.id}/history?limit=2`,
    exact: false,
    value: {
      success: true,
      data: [
        {
          changedAt: '2025-08-19T18:30:02.481Z',
          type: 'updated',
          changes: [
            { field: 'deadline', from: '2026-09-30T23:59:59.000Z', to: EXAMPLE_GRANT.deadline },
            { field: 'updatedAt', from: '2025-06-01T09:00:00.000Z', to: EXAMPLE_GRANT.updatedAt },
          ],
        },
        { changedAt: '2025-06-01T09:05:11.020Z', type: 'created', changes: null },
      ],
      pagination: { limit: 2, nextCursor: null },
      meta: EXAMPLE_META,
    },
  },
  grantSimilar: {
    request: `/grants/${EXAMPLE_GRANT.id}/similar?fields=id,title,funder&limit=3`,
    exact: true,
    value: {
      success: true,
      data: [
        { id: 'grt_c44f6efd', title: 'Ottawa Energy Efficiency Rebate Program', funder: 'Enbridge Gas' },
        { id: 'grt_dea096ac', title: 'Energy Efficiency Incentive Rebate', funder: 'Enbridge Gas' },
        { id: 'grt_4d9fc81b', title: 'Energy Efficiency Rebate – Winnipeg', funder: 'Efficiency Manitoba' },
      ],
      pagination: { page: 1, limit: 3, total: 107, totalPages: 1 },
      meta: EXAMPLE_META,
    },
  },
  usage: {
    request: '/subscription/usage?days=3',
    exact: false,
    value: {
      success: true,
      data: {
        currentMonth: { calls: 1250, limit: 100000, remaining: 98750, resetDate: '2026-12-01T00:00:00.000Z' },
        statistics: {
          period: '3 days',
          totalCalls: 431,
          avgCallsPerDay: 143.67,
          topEndpoints: [
            { endpoint: '/grants', calls: 402 },
            { endpoint: '/grants/:id', calls: 27 },
            { endpoint: '/subscription/usage', calls: 2 },
          ],
          daily: [
            { date: '2026-11-21', calls: 0, byEndpoint: {} },
            { date: '2026-11-22', calls: 119, byEndpoint: { '/grants': 110, '/grants/:id': 9 } },
            {
              date: '2026-11-23',
              calls: 312,
              byEndpoint: { '/grants': 292, '/grants/:id': 18, '/subscription/usage': 2 },
            },
          ],
        },
        subscription: { tier: 'PROFESSIONAL', monthlyLimit: 100000, rateLimit: 50, status: 'ACTIVE' },
      },
      meta: EXAMPLE_META,
    },
  },
  limits: {
    request: '/subscription/limits',
    exact: false,
    value: {
      success: true,
      data: {
        subscription: { tier: 'PROFESSIONAL', status: 'ACTIVE' },
        limits: {
          monthly: { limit: 100000, current: 1250, remaining: 98750, resetDate: '2026-12-01T00:00:00.000Z' },
          rateLimit: {
            requestsPerSecond: 50,
            description: 'Up to 50 requests per second across all keys of this subscription.',
          },
          alerts: { max: 100, current: 3 },
        },
        key: {
          id: 'key_Yi1xV2NvZGVXaWRnZXQ',
          prefix: 'gk_live_Xa3d',
          restrictions: {
            scopes: ['grants:search', 'subscription:read'],
            origins: ['https://partner.example'],
            ips: null,
            rateLimit: 5,
          },
          expiresAt: '2027-11-23T00:00:00.000Z',
        },
        features: {
          grants: { read: true, search: true, export: false },
          subscription: { read: true },
          alerts: { manage: true },
        },
      },
      meta: EXAMPLE_META,
    },
  },
};

/** An error answer, for the 400 of GET /grants. */
export const VALIDATION_ERROR_EXAMPLE = {
  request: '/grants?eligibleProvinces=ONTARIO,QUEBEK&limit=-1',
  value: {
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: '2 query parameters are invalid; see error.details.',
      details: [
        {
          parameter: 'eligibleProvinces',
          message:
            '"QUEBEK" is not one of ALBERTA, BRITISH_COLUMBIA, MANITOBA, NEW_BRUNSWICK, ' +
            'NEWFOUNDLAND_AND_LABRADOR, NORTHWEST_TERRITORIES, NOVA_SCOTIA, NUNAVUT, ONTARIO, ' +
            'PRINCE_EDWARD_ISLAND, QUEBEC, SASKATCHEWAN, YUKON',
        },
        { parameter: 'limit', message: 'must be an integer ≥ 0' },
      ],
    },
    meta: EXAMPLE_META,
  },
};
