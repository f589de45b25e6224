// A grant as a CommonGrants opportunity (the protocol of commongrants.org, @common-grants/core):
// the protocol version served, the opportunity's UUID derived from our id, and the translation of
// every field. Pure: the time of the request (what the status is judged against) comes in.
import { v5 as uuidV5 } from 'uuid';
import { grantStatus } from './lifecycle.js';
import type { Beneficiary, Grant } from './schema.js';

/** The protocol version served, as @common-grants/core 0.3.0-alpha.1 names it (CommonGrants.Versions.v0_3). */
export const COMMON_GRANTS_VERSION = '0.3.0';

/**
 * The namespace of the opportunities' name-based UUIDs (version 5, RFC 9562): fixed, so that a
 * grant keeps its UUID for ever; `opportunityUuid(id)` is uuidv5(id, this namespace).
 */
export const OPPORTUNITY_UUID_NAMESPACE = '6f1c2c8e-3d4b-4f6a-9a57-0b8e2d7c5a11';

/** The opportunity's UUID of a grant id: the same id gives the same UUID, on every server and engine. */
export const opportunityUuid = (grantId: string): string => uuidV5(grantId, OPPORTUNITY_UUID_NAMESPACE);

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is written as a UUID (any version, either case). */
export const looksLikeUuid = (text: string): boolean => UUID_TEXT.test(text);

/** The protocol's statuses (OppStatusOptions); ours are forecasted, open and closed. */
export const OPP_STATUSES = ['forecasted', 'open', 'closed', 'custom'] as const;
export type OppStatusValue = (typeof OPP_STATUSES)[number];

/** The protocol's applicant types (ApplicantTypeOptions) our beneficiaries map to. */
type ApplicantTypeValue =
  'individual' | 'government_municipal' | 'for_profit_small_business' | 'for_profit_not_small_business' | 'custom';

interface Money {
  amount: string;
  currency: string;
}

interface SingleDateEvent {
  name: string;
  eventType: 'singleDate';
  date: string;
  time?: string;
  description?: string;
}

interface ApplicantType {
  value: ApplicantTypeValue;
  customValue?: string;
  description: string;
}

interface CustomField {
  name: string;
  fieldType: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
  value: unknown;
  description: string;
}

/** A CommonGrants OpportunityBase, as this API fills it. */
interface Opportunity {
  id: string;
  title: string;
  status: { value: OppStatusValue; description: string };
  description: string;
  funding?: { minAwardAmount?: Money; maxAwardAmount?: Money };
  keyDates?: { postDate?: SingleDateEvent; closeDate?: SingleDateEvent };
  acceptedApplicantTypes: ApplicantType[];
  source?: string;
  customFields: Record<string, CustomField>;
  createdAt: string;
  lastModifiedAt: string;
}

/**
 * Our beneficiaries as the protocol's applicant types: a standard value where one means the same, else `custom` with
 * our value.
 */
const APPLICANT_TYPES: Record<Beneficiary, { value: ApplicantTypeValue; description: string }> = {
  CHARITIES: { value: 'custom', description: 'Registered charities' },
  COMMUNITY_ORGANIZATIONS: { value: 'custom', description: 'Community organizations' },
  INDIGENOUS_COMMUNITIES: { value: 'custom', description: 'Indigenous communities and organizations' },
  INDIVIDUALS: { value: 'individual', description: 'Individuals' },
  LARGE_BUSINESS: { value: 'for_profit_not_small_business', description: 'Large businesses' },
  MEDIUM_BUSINESS: { value: 'for_profit_not_small_business', description: 'Medium-sized businesses' },
  MUNICIPALITIES: { value: 'government_municipal', description: 'Municipalities' },
  NON_PROFIT: { value: 'custom', description: 'Non-profit organizations' },
  RESEARCHERS: { value: 'custom', description: 'Researchers' },
  SMALL_BUSINESS: { value: 'for_profit_small_business', description: 'Small businesses' },
  STARTUPS: { value: 'for_profit_small_business', description: 'Start-ups' },
  STUDENTS: { value: 'individual', description: 'Students' },
};

/**
 * A grant's status at `now` (epoch ms), ours (grants/lifecycle.ts) in the protocol's words: forecasted before opensAt,
 * closed once the deadline has passed, else open.
 */
export function statusAt(grant: Pick<Grant, 'opensAt' | 'deadline'>, now: number): OppStatusValue {
  const status = grantStatus(grant, now);
  return status === 'FORECASTED' ? 'forecasted' : status === 'CLOSED' ? 'closed' : 'open';
}

const STATUS_DESCRIPTION: Record<OppStatusValue, string> = {
  forecasted: 'The opportunity is announced and not yet open for applications',
  open: 'The opportunity is accepting applications',
  closed: 'The deadline has passed',
  custom: 'A status of its own',
};

/** An amount as a decimal string (never an exponent): 1500 → "1500", 0.5 → "0.5". */
export const decimalString = (amount: number): string =>
  amount.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });

const money = (amount: number | null, currency: string): Money | undefined =>
  amount === null ? undefined : { amount: decimalString(amount), currency };

/**
 * An instant as the protocol's single-date event: its UTC date and UTC time, written with Z as
 * format `time` requires, its milliseconds kept when there are some (`23:59:59.999Z`).
 */
function singleDate(name: string, instant: string, description: string): SingleDateEvent {
  const at = new Date(instant).toISOString();
  const time = at.slice(11, 23).replace(/\.000$/, '');
  return { name, eventType: 'singleDate', date: at.slice(0, 10), time: `${time}Z`, description };
}

/**
 * The grant's dates as the protocol's key dates: opensAt its postDate, deadline its closeDate; undefined when it has
 * neither.
 */
function keyDatesOf(grant: Grant): Opportunity['keyDates'] {
  if (grant.opensAt === null && grant.deadline === null) return undefined;
  return {
    ...(grant.opensAt !== null && {
      postDate: singleDate('Applications open', grant.opensAt, 'Applications open at this date and time (UTC)'),
    }),
    ...(grant.deadline !== null && {
      closeDate: singleDate('Application deadline', grant.deadline, 'Applications close at this date and time (UTC)'),
    }),
  };
}

const field = (
  name: string,
  fieldType: CustomField['fieldType'],
  value: unknown,
  description: string,
): CustomField => ({ name, fieldType, value, description });

/** Our fields with no place of their own in the protocol, as custom fields (a null one left out). */
function customFieldsOf(grant: Grant): Record<string, CustomField> {
  const fields: CustomField[] = [
    field(
      'grantsApiId',
      'string',
      grant.id,
      "The grant's id in this API (GET /grants/{id}); it also resolves on GET /common-grants/opportunities/{id}",
    ),
    field('funder', 'string', grant.funder, 'The organisation that gives the funding'),
    field(
      'funderType',
      'string',
      grant.funderType,
      'The kind of funder: CORPORATE, FEDERAL_GRANT, FOUNDATION, MUNICIPAL_GRANT, NON_PROFIT_ORGANIZATION or ' +
        'PROVINCIAL_TERRITORIAL_GRANT',
    ),
    field(
      'fundingType',
      'string',
      grant.fundingType,
      'The kind of funding: EQUITY, GRANT, LOAN, REBATE, TAX_CREDIT or WAGE_SUBSIDY',
    ),
    field(
      'eligibleProvinces',
      'array',
      grant.eligibleProvinces,
      'The Canadian provinces and territories whose applicants may apply (empty when none is listed)',
    ),
    field(
      'targetBeneficiaries',
      'array',
      grant.targetBeneficiaries,
      "The kinds of applicant the grant is meant for, in this API's values",
    ),
    field(
      'sdgAlignment',
      'array',
      grant.sdgAlignment,
      'The UN Sustainable Development Goals the grant serves (SDG_1 … SDG_17)',
    ),
    field(
      'currency',
      'string',
      grant.currency,
      "The grant's currency (CAD or USD), that of its amounts, also when it states none",
    ),
  ];
  if (grant.applicationComplexity !== null)
    fields.push(
      field(
        'applicationComplexity',
        'string',
        grant.applicationComplexity,
        'How much effort the application takes: LOW, MEDIUM or HIGH',
      ),
    );
  if (grant.isRecurring !== null)
    fields.push(field('isRecurring', 'boolean', grant.isRecurring, 'Whether the grant comes back every cycle'));
  if (grant.applicationUrl !== null)
    fields.push(field('applicationUrl', 'string', grant.applicationUrl, 'Where to apply'));
  if (grant.titleFr !== null) fields.push(field('titleFr', 'string', grant.titleFr, 'The title in French'));
  if (grant.descriptionFr !== null)
    fields.push(field('descriptionFr', 'string', grant.descriptionFr, 'The description in French'));
  if (grant.source !== null)
    fields.push(
      field(
        'source',
        'object',
        grant.source,
        "Where the grant was imported from: the source's name, the grant's id there and its page there (url, or null)",
      ),
    );
  return Object.fromEntries(fields.map((f) => [f.name, f]));
}

/** A grant as a CommonGrants opportunity, its status judged at `now` (epoch ms). */
export function toOpportunity(grant: Grant, now: number): Opportunity {
  const status = statusAt(grant, now);
  const minAwardAmount = money(grant.amountMin, grant.currency);
  const maxAwardAmount = money(grant.amountMax, grant.currency);
  const keyDates = keyDatesOf(grant);
  const opportunity: Opportunity = {
    id: opportunityUuid(grant.id),
    title: grant.title,
    status: { value: status, description: STATUS_DESCRIPTION[status] },
    description: grant.description ?? '',
    ...((minAwardAmount !== undefined || maxAwardAmount !== undefined) && {
      funding: { ...(minAwardAmount && { minAwardAmount }), ...(maxAwardAmount && { maxAwardAmount }) },
    }),
    ...(keyDates !== undefined && { keyDates }),
    acceptedApplicantTypes: grant.targetBeneficiaries.map((b) => {
      const { value, description } = APPLICANT_TYPES[b];
      return value === 'custom' ? { value, customValue: b, description } : { value, description };
    }),
    ...(grant.source?.url != null && { source: grant.source.url }),
    customFields: customFieldsOf(grant),
    createdAt: grant.createdAt,
    lastModifiedAt: grant.updatedAt,
  };
  return opportunity;
}
