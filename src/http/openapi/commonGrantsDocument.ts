// The CommonGrants routes' part of the OpenAPI document: their operations' texts, examples and
// schemas (the answers as this API sends them: the protocol's shapes with the envelope's `meta`).
import { COMMON_GRANTS_VERSION, OPP_STATUSES, toOpportunity } from '../../grants/commonGrants.js';
import { MAX_LIMIT, MAX_SEARCH_LENGTH } from '../../grants/query.js';
import { CURRENCIES } from '../../grants/schema.js';
import { CUSTOM_FILTERS, DEFAULT_PAGE_SIZE, SORT_BY } from '../parameters/commonGrantsSearch.js';
import type { RouteName } from '../routeTable.js';
import { EXAMPLE_GRANT, EXAMPLE_META } from './examples.js';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The example opportunity: the example grant, its status judged at the example's time. */
const EXAMPLE_OPPORTUNITY = toOpportunity(EXAMPLE_GRANT, Date.parse(EXAMPLE_META.timestamp));

const ABOUT =
  `CommonGrants ${COMMON_GRANTS_VERSION} (commongrants.org): the protocol fixes this answer's shape ` +
  `(\`status\`, \`message\` and its fields; ` +
  "`meta` is added), and an error carries the protocol's `status`, `message` and `errors` beside the usual envelope. " +
  ("An opportunity's `id` is a UUID derived from the grant's id (version 5); `customFields.grantsApiId` " +
    "holds the grant's id.");

interface CommonGrantsOperationDoc {
  operationId: string;
  summary: string;
  description: string;
  answer: string;
  /** The name of the request body's schema, and the example body the example answer answers. */
  body?: string;
  exampleBody?: unknown;
  /**
   * The request (path and query under the API prefix) that gives the example answer over the fixture catalog, at the
   * time of EXAMPLE_META.
   */
  request: string;
  example: unknown;
}

/** The example grant's place in the list (most recently modified first) of the fixture catalog. */
const EXAMPLE_PLACE = 560;
const FIXTURE_GRANTS = 600;
const SEARCH_EXAMPLE = {
  search: 'Sudbury heat pumps',
  filters: { customFilters: { fundingType: { operator: 'in', value: ['REBATE'] } } },
  sorting: { sortBy: 'keyDates.closeDate' },
  pagination: { pageSize: 1 },
};

export const COMMON_GRANTS_OPERATIONS: Partial<Record<RouteName, CommonGrantsOperationDoc>> = {
  commonGrantsOpportunities: {
    operationId: 'listCommonGrantsOpportunities',
    summary: 'The catalog as CommonGrants opportunities, most recently modified first',
    description: `${ABOUT} Pages with \`page\` and \`pageSize\` (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_LIMIT}).`,
    answer: 'CommonGrantsListAnswer',
    request: `/common-grants/opportunities?page=${EXAMPLE_PLACE}&pageSize=1`,
    example: {
      status: 200,
      message: 'Success',
      items: [EXAMPLE_OPPORTUNITY],
      paginationInfo: { page: EXAMPLE_PLACE, pageSize: 1, totalItems: FIXTURE_GRANTS, totalPages: FIXTURE_GRANTS },
      meta: EXAMPLE_META,
    },
  },
  commonGrantsSearch: {
    operationId: 'searchCommonGrantsOpportunities',
    summary: 'Search the catalog with a CommonGrants search body',
    description:
      `${ABOUT} Filters combine with AND. Supported: \`search\` (the search text of GET /grants), ` +
      `\`filters.status\` (in/notIn), ` +
      ('`filters.closeDateRange`, `filters.minAwardAmountRange` and `filters.maxAwardAmountRange` (between; ' +
        'the currency filters too), ') +
      (`\`filters.customFilters\` (${Object.keys(CUSTOM_FILTERS).join(', ')}; operator in), \`sorting\` and ` +
        `\`pagination\`. `) +
      ('Refused with a 400 naming the field: `totalFundingAvailableRange`, the `outside` operator, sorting ' +
        'by status, total funding or award count.'),
    answer: 'CommonGrantsSearchAnswer',
    body: 'CommonGrantsSearchBody',
    exampleBody: SEARCH_EXAMPLE,
    request: '/common-grants/opportunities/search',
    example: {
      status: 200,
      message: 'Success',
      items: [EXAMPLE_OPPORTUNITY],
      paginationInfo: { page: 1, pageSize: 1, totalItems: 1, totalPages: 1 },
      sortInfo: { sortBy: 'keyDates.closeDate', sortOrder: 'asc' },
      filterInfo: { filters: SEARCH_EXAMPLE.filters },
      meta: EXAMPLE_META,
    },
  },
  commonGrantsOpportunity: {
    operationId: 'getCommonGrantsOpportunity',
    summary: 'One CommonGrants opportunity, by its UUID or by the grant id',
    description:
      `${ABOUT} The path takes the opportunity's UUID (any case) or the grant's own id; an unknown one is a ` + `404.`,
    answer: 'CommonGrantsOpportunityAnswer',
    request: `/common-grants/opportunities/${EXAMPLE_OPPORTUNITY.id}`,
    example: { status: 200, message: 'Success', data: EXAMPLE_OPPORTUNITY, meta: EXAMPLE_META },
  },
};

export const COMMON_GRANTS_PATH_PARAM = {
  description: "The opportunity's UUID (its `id`, any case) or the grant's id (`customFields.grantsApiId`).",
  example: EXAMPLE_OPPORTUNITY.id,
};

export const COMMON_GRANTS_TAG = {
  name: 'common-grants',
  description:
    `The catalog in the CommonGrants protocol ${COMMON_GRANTS_VERSION} (commongrants.org): list, search and ` +
    `read opportunities. Billable, as the grant endpoints.`,
};

const object = (description: string, required: readonly string[], properties: Schema): Schema => ({
  type: 'object',
  additionalProperties: false,
  description,
  required: [...required],
  properties,
});
const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const money = (description: string): Schema => ({ ...ref('CommonGrantsMoney'), description });
const filterOf = (description: string, operators: readonly string[], value: Schema): Schema =>
  object(description, ['operator', 'value'], {
    operator: { type: 'string', enum: [...operators], description: 'The operator.' },
    value,
  });

const answer = (description: string, fields: Schema, required: readonly string[]): Schema =>
  object(description, ['status', 'message', ...required, 'meta'], {
    status: { type: 'integer', const: 200, description: 'The HTTP status, as the protocol repeats it.' },
    message: { type: 'string', const: 'Success', description: 'Always "Success" in an answer that succeeded.' },
    ...fields,
    meta: { $ref: '#/components/schemas/Meta', description: 'About this answer.' },
  });

const PAGE_FIELDS: Schema = {
  items: {
    type: 'array',
    items: ref('CommonGrantsOpportunity'),
    description: 'The opportunities of this page, in order.',
  },
  paginationInfo: { ...ref('CommonGrantsPaginationInfo'), description: 'Where this page lies in the matches.' },
};

/** A single-date event of keyDates. */
const dateEvent = (description: string): Schema =>
  object(description, ['name', 'eventType', 'date'], {
    name: str('The name of the event.'),
    eventType: { type: 'string', const: 'singleDate', description: 'A single date.' },
    date: str('The date, YYYY-MM-DD (UTC).', { format: 'date' }),
    time: str('The time, HH:MM:SSZ, or HH:MM:SS.sssZ when it has milliseconds (UTC).', {
      pattern: '^[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3})?Z$',
    }),
    description: str('What the date is.'),
  });

export const COMMON_GRANTS_SCHEMAS: Schema = {
  CommonGrantsOpportunity: object(
    'A grant as a CommonGrants opportunity (OpportunityBase). Fields with no value are left out (funding, ' +
      'keyDates); fields without a place in the protocol are custom fields.',
    ['id', 'title', 'status', 'description', 'acceptedApplicantTypes', 'customFields', 'createdAt', 'lastModifiedAt'],
    {
      id: str("The opportunity's UUID: version 5, derived from the grant's id (the same id, the same UUID).", {
        format: 'uuid',
      }),
      title: str("The grant's title."),
      status: object(
        'The status at the time of the request: open (deadline ahead or none) or closed (deadline passed).',
        ['value', 'description'],
        {
          value: { type: 'string', enum: [...OPP_STATUSES], description: 'The status.' },
          description: str('What the status means.'),
        },
      ),
      description: str("The grant's description (empty when unknown)."),
      funding: object('The award range (left out when neither amount is known).', [], {
        minAwardAmount: money("The grant's amountMin, in its currency."),
        maxAwardAmount: money("The grant's amountMax, in its currency."),
      }),
      keyDates: object("The grant's dates (left out when it has neither opensAt nor deadline).", [], {
        postDate: dateEvent('When applications open (opensAt): its UTC date and UTC time; left out when unknown.'),
        closeDate: dateEvent('The deadline: its UTC date and UTC time; left out without a deadline.'),
      }),
      acceptedApplicantTypes: {
        type: 'array',
        description:
          "The grant's targetBeneficiaries as the protocol's applicant types (custom, with customValue, " +
          'when none means the same).',
        items: object('An applicant type.', ['value', 'description'], {
          value: str("The protocol's applicant type."),
          customValue: str("This API's beneficiary, with value custom."),
          description: str('Who it is.'),
        }),
      },
      customFields: {
        type: 'object',
        description:
          "This API's fields with no place in the protocol, by name: grantsApiId, funder, funderType, " +
          'fundingType, eligibleProvinces, targetBeneficiaries, sdgAlignment, currency, and when known ' +
          'applicationComplexity, isRecurring, applicationUrl, titleFr, descriptionFr, source.',
        additionalProperties: object('A custom field.', ['name', 'fieldType', 'value', 'description'], {
          name: str('Its name (its key in customFields).'),
          fieldType: {
            type: 'string',
            enum: ['string', 'number', 'integer', 'boolean', 'object', 'array'],
            description: 'The JSON type of value.',
          },
          value: { description: 'Its value.' },
          description: str('What it holds.'),
        }),
      },
      source: str('The page of the grant at the source it was imported from (source.url); left out when unknown.', {
        format: 'uri',
      }),
      createdAt: str('When the grant entered the catalog (UTC).', { format: 'date-time' }),
      lastModifiedAt: str("The grant's updatedAt (UTC).", { format: 'date-time' }),
    },
  ),
  CommonGrantsMoney: object('An amount and its currency.', ['amount', 'currency'], {
    amount: str('The amount as a decimal string.', { pattern: '^[0-9]+(\\.[0-9]+)?$' }),
    currency: { type: 'string', enum: [...CURRENCIES], description: 'The ISO 4217 currency.' },
  }),
  CommonGrantsPaginationInfo: object('Where this page lies.', ['page', 'pageSize', 'totalItems', 'totalPages'], {
    page: { type: 'integer', minimum: 1, description: 'The page, from 1.' },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: 'Opportunities per page.' },
    totalItems: { type: 'integer', minimum: 0, description: 'How many opportunities match, in all.' },
    totalPages: { type: 'integer', minimum: 0, description: 'How many pages of this size they fill.' },
  }),
  CommonGrantsListAnswer: answer('A page of opportunities, most recently modified first.', PAGE_FIELDS, [
    'items',
    'paginationInfo',
  ]),
  CommonGrantsSearchAnswer: answer(
    'A page of the opportunities matching a search.',
    {
      ...PAGE_FIELDS,
      sortInfo: object('The order of the results.', ['sortBy', 'sortOrder'], {
        sortBy: str('The sort key, or "custom" with customSortBy.'),
        customSortBy: str('"relevance" (best first) with sortBy custom.'),
        sortOrder: { type: 'string', enum: ['asc', 'desc'], description: 'The direction.' },
      }),
      filterInfo: object('The filters applied.', ['filters'], {
        filters: { type: 'object', description: 'The filters as sent.' },
      }),
    },
    ['items', 'paginationInfo', 'sortInfo', 'filterInfo'],
  ),
  CommonGrantsOpportunityAnswer: answer(
    'One opportunity.',
    { data: { ...ref('CommonGrantsOpportunity'), description: 'The opportunity asked for.' } },
    ['data'],
  ),
  CommonGrantsSearchBody: {
    ...object('A CommonGrants search: every part optional; filters combine with AND.', [], {
      search: str('Words to find, with the search syntax of GET /grants.', { maxLength: MAX_SEARCH_LENGTH }),
      filters: object('The filters.', [], {
        status: filterOf('The status is one of (in) or none of (notIn) the values.', ['in', 'notIn'], {
          type: 'array',
          minItems: 1,
          items: { type: 'string', enum: [...OPP_STATUSES] },
          description: 'The statuses.',
        }),
        closeDateRange: filterOf(
          'The deadline lies in [min, max]: a date (its first or last millisecond, UTC) or a date-time with its ' +
            'offset.',
          ['between'],
          {
            type: 'object',
            additionalProperties: false,
            required: ['min', 'max'],
            properties: { min: str('The start of the range.'), max: str('The end of the range.') },
            description: 'The range.',
          },
        ),
        minAwardAmountRange: filterOf(
          "The grant's amountMin lies in [min, max], in that currency (grants in the other currency are left out).",
          ['between'],
          { ...ref('CommonGrantsMoneyRange'), description: 'The amount range.' },
        ),
        maxAwardAmountRange: filterOf("The grant's amountMax lies in [min, max], in that currency.", ['between'], {
          ...ref('CommonGrantsMoneyRange'),
          description: 'The amount range.',
        }),
        customFilters: object(
          'Filters on the custom fields: the grant holds any of the values.',
          [],
          Object.fromEntries(
            Object.entries(CUSTOM_FILTERS).map(([name, spec]) => [
              name,
              filterOf(`${name} is any of the values.`, ['in'], {
                type: 'array',
                minItems: 1,
                items: { type: 'string', enum: [...spec.values] },
                description: 'The values, any of which matches.',
              }),
            ]),
          ),
        ),
      }),
      sorting: object(
        'The order (default: relevance with search words, else lastModifiedAt newest first).',
        ['sortBy'],
        {
          sortBy: {
            type: 'string',
            enum: [...Object.keys(SORT_BY), 'custom'],
            description: 'The key; "custom" with customSortBy "relevance".',
          },
          customSortBy: {
            type: 'string',
            enum: ['relevance'],
            description: 'With sortBy custom: the text score, best first.',
          },
          sortOrder: {
            type: 'string',
            enum: ['asc', 'desc'],
            description: 'The direction (asc by default; relevance is desc).',
          },
        },
      ),
      pagination: object('The page.', [], {
        page: { type: 'integer', minimum: 1, description: 'The page, from 1 (default 1).' },
        pageSize: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          description: `Opportunities per page (default ${DEFAULT_PAGE_SIZE}).`,
        },
      }),
    }),
    examples: [
      {
        search: 'energy',
        filters: {
          status: { operator: 'in', value: ['open'] },
          customFilters: { eligibleProvinces: { operator: 'in', value: ['ONTARIO'] } },
        },
        sorting: { sortBy: 'keyDates.closeDate' },
        pagination: { pageSize: 10 },
      },
      SEARCH_EXAMPLE,
    ],
  },
  CommonGrantsMoneyRange: object('An amount range in one currency.', ['min', 'max'], {
    min: money('The smallest amount of the range.'),
    max: money('The largest amount of the range.'),
  }),
  CommonGrantsErrorEnvelope: object(
    "An error on a CommonGrants route: the protocol's Error and the envelope.",
    ['status', 'message', 'errors', 'success', 'error', 'meta'],
    {
      status: { type: 'integer', description: 'The HTTP status.' },
      message: str('What went wrong (error.message).'),
      errors: {
        type: 'array',
        description: 'The problems: each invalid field (as error.details), or the error itself ({code, message}).',
        items: {
          oneOf: [
            ref('ErrorDetail'),
            object('The error.', ['code', 'message'], {
              code: str('The error code.'),
              message: str('What went wrong.'),
            }),
          ],
        },
      },
      success: { type: 'boolean', const: false, description: 'Always false in an error answer.' },
      error: { ...ref('ErrorBody'), description: 'What went wrong, as in every error envelope.' },
      meta: { ...ref('Meta'), description: 'About this answer.' },
    },
  ),
};
