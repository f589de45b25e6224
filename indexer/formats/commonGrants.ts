// A CommonGrants opportunity (OpportunityBase, commongrants.org) as a grant: the inverse of the
// API's own translation (src/grants/commonGrants.ts), every decision of docs/common-grants.md
// "Importing opportunities" in one place. Pure: the opportunity and the time zone of its
// date-only dates in, a grant record (or why it cannot be one) out.
import { looksLikeUuid } from '../../src/grants/commonGrants.js';
import { BENEFICIARIES, CURRENCIES, type Beneficiary } from '../../src/grants/schema.js';
import { endOfDay, isoDay, startOfDay, zonedInstant } from '../dates.js';

/** The id of a grant from an opportunity that carries none of ours: this prefix and its UUID. */
const COMMON_GRANTS_ID_PREFIX = 'commongrants-';

/** The source name of a grant from an opportunity that carries no source of ours. */
const COMMON_GRANTS_SOURCE_NAME = 'CommonGrants';

/** The currency of an opportunity that states none (no amount, no currency custom field). */
const DEFAULT_CURRENCY = 'USD';

/** The protocol's applicant types (ApplicantTypeOptions) → our beneficiaries ([] where none of ours fits). */
const APPLICANT_TYPES: Readonly<Record<string, readonly Beneficiary[]>> = {
  individual: ['INDIVIDUALS'],
  organization: [],
  government_state: [],
  government_county: ['MUNICIPALITIES'],
  government_municipal: ['MUNICIPALITIES'],
  government_special_district: ['MUNICIPALITIES'],
  government_tribal: ['INDIGENOUS_COMMUNITIES'],
  organization_tribal_other: ['INDIGENOUS_COMMUNITIES'],
  school_district_independent: [],
  higher_education_public: ['RESEARCHERS'],
  higher_education_private: ['RESEARCHERS'],
  non_profit_with_501c3: ['NON_PROFIT', 'CHARITIES'],
  nonprofit_without_501c3: ['NON_PROFIT'],
  for_profit_small_business: ['SMALL_BUSINESS', 'STARTUPS'],
  for_profit_not_small_business: ['MEDIUM_BUSINESS', 'LARGE_BUSINESS'],
  unrestricted: [...BENEFICIARIES],
};

type Problem = { field: string; reason: string };
type Json = Record<string, unknown>;

interface MappedOpportunity {
  /** The grant record, or null when the opportunity cannot be one (then `problems` says why). */
  value: Json | null;
  problems: Problem[];
  /** The grant id, when known. */
  id: string | null;
  /** The opportunity's own id (its UUID), when it has one. */
  uuid: string | null;
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value of a custom field, or undefined when the opportunity has none of that name. */
function custom(opportunity: Json, name: string): unknown {
  const fields = opportunity.customFields;
  if (!isObject(fields)) return undefined;
  const field = fields[name];
  return isObject(field) && 'value' in field ? field.value : undefined;
}

const DECIMAL = /^-?\d{1,16}(\.\d{1,20})?$/;

/** A Money as an amount and its currency; null when absent. */
function money(value: unknown, field: string, problems: Problem[]): { amount: number; currency: string } | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || typeof value.amount !== 'string' || typeof value.currency !== 'string') {
    problems.push({ field, reason: 'is not a Money ({ "amount": "1500.00", "currency": "USD" })' });
    return null;
  }
  if (!DECIMAL.test(value.amount.trim())) {
    problems.push({ field: `${field}.amount`, reason: `"${value.amount}" is not a decimal amount` });
    return null;
  }
  if (!(CURRENCIES as readonly string[]).includes(value.currency)) {
    problems.push({ field: `${field}.currency`, reason: `"${value.currency}" is not one of ${CURRENCIES.join(', ')}` });
    return null;
  }
  return { amount: Number(value.amount.trim()), currency: value.currency };
}

const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A day and an optional time as an instant: a time with `Z` or an offset is that instant; a time
 * without is in `zone`; no time is the day's start (`edge` start) or its end (`edge` end) in `zone`.
 */
export function eventInstant(date: unknown, time: unknown, edge: 'start' | 'end', zone: string): string | null {
  if (typeof date !== 'string') return null;
  const day = isoDay(date);
  if (day === null) return null;
  if (time === undefined || time === null) return edge === 'start' ? startOfDay(day, zone) : endOfDay(day, zone);
  if (typeof time !== 'string') return null;
  const parts = TIME.exec(time);
  if (parts === null) return null;
  const [, hh, mm, ss = '00', fraction = '', offset] = parts;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
  if (offset !== undefined) {
    const at = Date.parse(`${date}T${hh}:${mm}:${ss}${fraction.slice(0, 4)}${offset}`);
    return Number.isNaN(at) ? null : new Date(at).toISOString();
  }
  const millisecond = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  return zonedInstant(day, Number(hh), Number(mm), Number(ss), millisecond, zone);
}

/**
 * A keyDates event as an instant (a single date, or a range's start or end); null when absent or an event with no date
 * (`other`).
 */
function eventAt(
  event: unknown,
  field: string,
  edge: 'start' | 'end',
  zone: string,
  problems: Problem[],
): string | null {
  if (event === undefined || event === null) return null;
  if (!isObject(event)) {
    problems.push({ field, reason: 'is not an event' });
    return null;
  }
  if (event.eventType === 'other') return null;
  const range = event.eventType === 'dateRange';
  const date = range ? (edge === 'start' ? event.startDate : event.endDate) : event.date;
  const time = range ? (edge === 'start' ? event.startTime : event.endTime) : event.time;
  const at = eventInstant(date, time, edge, zone);
  if (at === null)
    problems.push({
      field,
      reason:
        `${JSON.stringify(date)}${time === undefined ? '' : ` ${JSON.stringify(time)}`} is not a date ` +
        `(YYYY-MM-DD) and time (HH:MM:SS, with Z or an offset, or in the time zone)`,
    });
  return at;
}

/** acceptedApplicantTypes as our beneficiaries, in our order; an unknown type is a problem. */
function beneficiariesOf(types: unknown, problems: Problem[]): Beneficiary[] {
  if (types === undefined || types === null) return [];
  if (!Array.isArray(types)) {
    problems.push({ field: 'acceptedApplicantTypes', reason: 'is not an array' });
    return [];
  }
  const found = new Set<Beneficiary>();
  const unknown: string[] = [];
  for (const type of types) {
    const value = isObject(type) ? type.value : undefined;
    if (value === 'custom') {
      const ours = isObject(type) ? type.customValue : undefined;
      if ((BENEFICIARIES as readonly unknown[]).includes(ours)) found.add(ours as Beneficiary);
      continue;
    }
    const mapped = typeof value === 'string' ? APPLICANT_TYPES[value] : undefined;
    if (mapped === undefined) unknown.push(JSON.stringify(value ?? null));
    else for (const b of mapped) found.add(b);
  }
  if (unknown.length > 0)
    problems.push({
      field: 'acceptedApplicantTypes',
      reason: `unknown value ${unknown.join(', ')} (known: ${Object.keys(APPLICANT_TYPES).join(', ')}, custom)`,
    });
  return BENEFICIARIES.filter((b) => found.has(b));
}

/**
 * An opportunity as a grant record. One this API served (it carries the custom field
 * grantsApiId) comes back as the grant it was: its custom fields hold every field of ours the
 * protocol has no place for, and one it lacks was null. Another is read by the protocol's fields
 * alone: its id from its UUID, its source the protocol's `source`.
 */
export function mapCommonGrantsOpportunity(opportunity: unknown, zone: string): MappedOpportunity {
  if (!isObject(opportunity))
    return {
      value: null,
      problems: [{ field: '(opportunity)', reason: 'is not a JSON object' }],
      id: null,
      uuid: null,
    };
  const problems: Problem[] = [];
  const uuid =
    typeof opportunity.id === 'string' && looksLikeUuid(opportunity.id) ? opportunity.id.toLowerCase() : null;
  const ourId = custom(opportunity, 'grantsApiId');
  const ours = typeof ourId === 'string';
  if (!ours && uuid === null)
    problems.push({
      field: 'id',
      reason: opportunity.id === undefined ? 'is missing' : `${JSON.stringify(opportunity.id)} is not a UUID`,
    });
  const id = ours ? ourId : uuid === null ? null : `${COMMON_GRANTS_ID_PREFIX}${uuid}`;

  if (typeof opportunity.title !== 'string') problems.push({ field: 'title', reason: 'is missing' });
  const funder = custom(opportunity, 'funder') ?? custom(opportunity, 'agency');
  if (funder === undefined)
    problems.push({
      field: 'customFields.funder',
      reason: 'is missing: the protocol names no funder; an opportunity needs a custom field funder (or agency)',
    });
  const funderType = custom(opportunity, 'funderType');
  if (funderType === undefined)
    problems.push({
      field: 'customFields.funderType',
      reason:
        'is missing: the protocol has no kind of funder; an opportunity needs a custom field funderType ' +
        '(FEDERAL_GRANT, FOUNDATION, …)',
    });
  const fundingType = custom(opportunity, 'fundingType');
  if (fundingType === undefined)
    problems.push({
      field: 'customFields.fundingType',
      reason:
        'is missing: the protocol has no kind of funding; an opportunity needs a custom field fundingType ' +
        '(GRANT, LOAN, …)',
    });

  const funding = isObject(opportunity.funding) ? opportunity.funding : {};
  const min = money(funding.minAwardAmount, 'funding.minAwardAmount', problems);
  const max = money(funding.maxAwardAmount, 'funding.maxAwardAmount', problems);
  const stated = custom(opportunity, 'currency');
  const currencies = new Set(
    [min?.currency, max?.currency, typeof stated === 'string' ? stated : undefined].filter((c) => c !== undefined),
  );
  if (currencies.size > 1)
    problems.push({
      field: 'funding',
      reason: `its amounts are in more than one currency (${[...currencies].join(', ')})`,
    });
  const currency = min?.currency ?? max?.currency ?? stated ?? DEFAULT_CURRENCY;

  const keyDates = isObject(opportunity.keyDates) ? opportunity.keyDates : {};
  const opensAt = eventAt(keyDates.postDate, 'keyDates.postDate', 'start', zone, problems);
  const deadline = eventAt(keyDates.closeDate, 'keyDates.closeDate', 'end', zone, problems);

  const stored = custom(opportunity, 'targetBeneficiaries');
  const targetBeneficiaries = Array.isArray(stored)
    ? stored
    : beneficiariesOf(opportunity.acceptedApplicantTypes, problems);
  const source =
    custom(opportunity, 'source') ??
    (ours
      ? null
      : {
          name: COMMON_GRANTS_SOURCE_NAME,
          id: uuid,
          url: typeof opportunity.source === 'string' ? opportunity.source : null,
        });

  if (problems.length > 0) return { value: null, problems, id, uuid };
  return {
    value: {
      id,
      title: opportunity.title,
      description:
        opportunity.description === '' || opportunity.description === undefined ? null : opportunity.description,
      funder,
      funderType,
      fundingType,
      amountMin: min?.amount ?? null,
      amountMax: max?.amount ?? null,
      currency,
      opensAt,
      deadline,
      applicationUrl: custom(opportunity, 'applicationUrl') ?? null,
      eligibleProvinces: custom(opportunity, 'eligibleProvinces') ?? [],
      targetBeneficiaries,
      sdgAlignment: custom(opportunity, 'sdgAlignment') ?? [],
      applicationComplexity: custom(opportunity, 'applicationComplexity') ?? null,
      isRecurring: custom(opportunity, 'isRecurring') ?? null,
      createdAt: opportunity.createdAt,
      updatedAt: opportunity.lastModifiedAt ?? opportunity.createdAt,
      titleFr: custom(opportunity, 'titleFr') ?? null,
      descriptionFr: custom(opportunity, 'descriptionFr') ?? null,
      source,
    },
    problems: [],
    id,
    uuid,
  };
}
