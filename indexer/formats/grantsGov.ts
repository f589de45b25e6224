// A Grants.gov extract record (OpportunitySynopsisDetail_1_0 or OpportunityForecastDetail_1_0) as
// a grant: every decision of docs/cli.md "Grants.gov extract" in one place. Pure: the record's
// elements in, a grant record (or why it cannot be one) out.
import { compile } from 'html-to-text';
import { BENEFICIARIES, type Beneficiary, type FundingType } from '../../src/grants/schema.js';
import { dayIn, dayPattern, startOfDay, zonedInstant, type Day } from '../dates.js';

export const SYNOPSIS = 'OpportunitySynopsisDetail_1_0';
export const FORECAST = 'OpportunityForecastDetail_1_0';
export type RecordKind = typeof SYNOPSIS | typeof FORECAST;

/** The time zone of Grants.gov's dates: US Eastern. */
const GRANTS_GOV_TIME_ZONE = 'America/New_York';

/** An opportunity's page on Grants.gov. */
const opportunityPage = (opportunityId: string): string =>
  `https://www.grants.gov/search-results-detail/${encodeURIComponent(opportunityId)}`;

/** EligibleApplicants codes → our beneficiaries ([] where none of ours fits; 99 "Unrestricted" is every one). */
const ELIGIBLE_APPLICANTS: Readonly<Record<string, readonly Beneficiary[]>> = {
  '00': [], // State governments
  '01': ['MUNICIPALITIES'], // County governments
  '02': ['MUNICIPALITIES'], // City or township governments
  '04': ['MUNICIPALITIES'], // Special district governments
  '05': [], // Independent school districts
  '06': ['RESEARCHERS'], // Public and State controlled institutions of higher education
  '07': ['INDIGENOUS_COMMUNITIES'], // Native American tribal governments (Federally recognized)
  '08': ['MUNICIPALITIES'], // Public housing authorities/Indian housing authorities
  // Native American tribal organizations (other than Federally recognized tribal governments)
  '11': ['INDIGENOUS_COMMUNITIES'],
  // Nonprofits having a 501(c)(3) status with the IRS, other than institutions of higher education
  '12': ['NON_PROFIT', 'CHARITIES'],
  // Nonprofits that do not have a 501(c)(3) status with the IRS, other than institutions of higher education
  '13': ['NON_PROFIT'],
  '20': ['RESEARCHERS'], // Private institutions of higher education
  '21': ['INDIVIDUALS'], // Individuals
  '22': ['MEDIUM_BUSINESS', 'LARGE_BUSINESS'], // For profit organizations other than small businesses
  '23': ['SMALL_BUSINESS', 'STARTUPS'], // Small businesses
  '25': [], // Others (see text field entitled "Additional Information on Eligibility" for clarification)
  '99': [...BENEFICIARIES], // Unrestricted (i.e., open to any type of entity above)
};

/**
 * FundingInstrumentType codes → our funding types; null: not funding our catalog lists (a procurement contract is a
 * purchase).
 */
const FUNDING_INSTRUMENTS: Readonly<Record<string, FundingType | null>> = {
  G: 'GRANT', // Grant
  CA: 'GRANT', // Cooperative Agreement (a grant with the agency substantially involved)
  O: 'GRANT', // Other
  PC: null, // Procurement Contract
};

/** The elements of one record: name → its values, in order (FundingInstrumentType, EligibleApplicants, … repeat). */
type RecordFields = ReadonlyMap<string, readonly string[]>;

type Problem = { field: string; reason: string };
type Mapped = { value: Record<string, unknown>; problems: [] } | { value: null; problems: Problem[] };

const MMDDYYYY = dayPattern('MMDDYYYY')!;
const html = compile({
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
  ],
});

const MAX_TITLE = 500;
const MAX_FUNDER = 300;
const MAX_DESCRIPTION = 20000;

/** Text cut to `max` characters at a word, with an ellipsis. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max * 0.8 ? head.slice(0, space) : head).trimEnd()}…`;
}

/**
 * HTML (as Grants.gov descriptions hold it) as plain text: tags gone, entities decoded, blank lines kept between
 * blocks.
 */
export const plainText = (text: string): string =>
  html(text)
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** The version's number ("Synopsis 3" → 3); 0 when it has none. */
export function versionNumber(version: string | undefined): number {
  const digits = /(\d+)\s*$/.exec(version ?? '');
  return digits === null ? 0 : Number(digits[1]);
}

/**
 * Which of two records of one opportunity wins: a synopsis over a forecast (it was posted), then
 * the higher Version, then the later LastUpdatedDate, then the later record in the file.
 */
export function rankOf(kind: RecordKind, fields: RecordFields): [number, number, number] {
  const updated = dayIn(first(fields, 'LastUpdatedDate') ?? '', MMDDYYYY);
  return [
    kind === SYNOPSIS ? 1 : 0,
    versionNumber(first(fields, 'Version')),
    updated === null ? 0 : Date.UTC(updated.year, updated.month - 1, updated.day),
  ];
}

export function outranks(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true; // equal: the later record wins
}

function first(fields: RecordFields, name: string): string | undefined {
  const value = fields.get(name)?.[0]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

const all = (fields: RecordFields, name: string): string[] =>
  (fields.get(name) ?? []).map((v) => v.trim()).filter((v) => v !== '');

function day(fields: RecordFields, name: string, problems: Problem[]): Day | null {
  const text = first(fields, name);
  if (text === undefined) return null;
  const parsed = dayIn(text, MMDDYYYY);
  if (parsed === null) problems.push({ field: name, reason: `"${text}" is not a date as MMDDYYYY` });
  return parsed;
}

/** A day as a number that orders days (2027-02-01 → 20270201). */
const dayOrder = ({ year, month, day }: Day): number => year * 10000 + month * 100 + day;

function amount(fields: RecordFields, name: string, problems: Problem[]): number | null {
  const text = first(fields, name);
  if (text === undefined) return null;
  const value = Number(text.replace(/[$,\s]/g, ''));
  if (!Number.isFinite(value) || value < 0) {
    problems.push({ field: name, reason: `"${text}" is not an amount` });
    return null;
  }
  return value === 0 ? null : value;
}

const httpUrl = (text: string | undefined): string | null => {
  if (text === undefined) return null;
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && text.length <= 2000 ? url.href : null;
  } catch {
    return null;
  }
};

/** The record as a grant record (validated afterwards against the Grant schema like any other). */
export function mapOpportunity(kind: RecordKind, fields: RecordFields): Mapped {
  const problems: Problem[] = [];
  const opportunityId = first(fields, 'OpportunityID');
  if (opportunityId === undefined) return { value: null, problems: [{ field: 'OpportunityID', reason: 'is missing' }] };
  if (!/^\d{1,100}$/.test(opportunityId))
    problems.push({ field: 'OpportunityID', reason: `"${opportunityId}" is not a number` });

  const title = first(fields, 'OpportunityTitle');
  if (title === undefined) problems.push({ field: 'OpportunityTitle', reason: 'is missing' });
  const funder = first(fields, 'AgencyName') ?? first(fields, 'AgencyCode');
  if (funder === undefined) problems.push({ field: 'AgencyName', reason: 'is missing (and so is AgencyCode)' });

  const instruments = all(fields, 'FundingInstrumentType');
  const unknownInstruments = instruments.filter((code) => !(code in FUNDING_INSTRUMENTS));
  if (unknownInstruments.length > 0) {
    problems.push({
      field: 'FundingInstrumentType',
      reason:
        `unknown code ${unknownInstruments.map((c) => `"${c}"`).join(', ')} (known: ` +
        `${Object.keys(FUNDING_INSTRUMENTS).sort().join(', ')})`,
    });
  }
  const fundingType =
    instruments.map((code) => FUNDING_INSTRUMENTS[code]).find((type) => type !== null && type !== undefined) ?? null;
  if (unknownInstruments.length === 0 && fundingType === null) {
    problems.push({
      field: 'FundingInstrumentType',
      reason:
        instruments.length === 0
          ? 'is missing'
          : 'only a procurement contract (PC): a purchase, not funding the catalog lists',
    });
  }

  const codes = all(fields, 'EligibleApplicants');
  const unknownCodes = codes.filter((code) => !(code in ELIGIBLE_APPLICANTS));
  if (unknownCodes.length > 0) {
    problems.push({
      field: 'EligibleApplicants',
      reason:
        `unknown code ${unknownCodes.map((c) => `"${c}"`).join(', ')} (known: ` +
        `${Object.keys(ELIGIBLE_APPLICANTS).sort().join(', ')})`,
    });
  }
  const beneficiaries = BENEFICIARIES.filter((b) => codes.some((code) => ELIGIBLE_APPLICANTS[code]?.includes(b)));

  const floor = amount(fields, 'AwardFloor', problems);
  const amountMax = amount(fields, 'AwardCeiling', problems);
  // A floor above the ceiling is the source's error: the ceiling is kept, the floor dropped.
  const amountMin = floor !== null && amountMax !== null && floor > amountMax ? null : floor;

  const forecast = kind === FORECAST;
  const posted = day(fields, forecast ? 'EstimatedSynopsisPostDate' : 'PostDate', problems);
  const closes = day(fields, forecast ? 'EstimatedSynopsisCloseDate' : 'CloseDate', problems);
  const updated = day(fields, 'LastUpdatedDate', problems);
  const postDate = forecast ? day(fields, 'PostDate', problems) : posted;
  const created = postDate ?? updated;
  if (created === null) problems.push({ field: 'PostDate', reason: 'is missing (and so is LastUpdatedDate)' });

  if (problems.length > 0) return { value: null, problems };

  // A forecast opens when its synopsis is expected to be posted; a synopsis was posted, so it is open (no opensAt).
  const opensAt = forecast && posted !== null ? startOfDay(posted, GRANTS_GOV_TIME_ZONE) : null;
  // An estimated close before the estimated posting is the source's error: the posting is kept, the close dropped.
  const deadline =
    closes === null || (forecast && posted !== null && dayOrder(closes) < dayOrder(posted))
      ? null
      : zonedInstant(closes, 23, 59, 59, 0, GRANTS_GOV_TIME_ZONE);

  const lines: string[] = [];
  const description = first(fields, 'Description');
  if (description !== undefined) lines.push(plainText(description));
  if (forecast) {
    const when =
      posted === null
        ? 'a date not yet announced'
        : `${posted.year}-${String(posted.month).padStart(2, '0')}-${String(posted.day).padStart(2, '0')}`;
    const year = first(fields, 'FiscalYear');
    lines.push(
      `Forecast: the opportunity is expected to be posted on ` +
        `${when}${year === undefined ? '' : ` (fiscal year ${year})`}.`,
    );
  }
  const eligibility = first(fields, 'AdditionalInformationOnEligibility');
  if (eligibility !== undefined) lines.push(`Eligibility: ${plainText(eligibility)}`);
  const number = first(fields, 'OpportunityNumber');
  if (number !== undefined) lines.push(`Opportunity number: ${number}.`);
  const listings = all(fields, 'CFDANumbers');
  if (listings.length > 0) lines.push(`Assistance Listings: ${listings.join(', ')}.`);
  const text = lines.join('\n\n').trim();

  return {
    value: {
      id: `grants-gov-${opportunityId}`,
      title: cut(title!, MAX_TITLE),
      description: text === '' ? null : cut(text, MAX_DESCRIPTION),
      funder: cut(funder!, MAX_FUNDER),
      funderType: 'FEDERAL_GRANT',
      fundingType,
      amountMin,
      amountMax,
      currency: 'USD',
      opensAt,
      deadline,
      applicationUrl: httpUrl(first(fields, 'AdditionalInformationURL')) ?? opportunityPage(opportunityId),
      eligibleProvinces: [],
      targetBeneficiaries: beneficiaries,
      sdgAlignment: [],
      applicationComplexity: null,
      isRecurring: null,
      createdAt: startOfDay(created!, GRANTS_GOV_TIME_ZONE),
      updatedAt: startOfDay(updated ?? created!, GRANTS_GOV_TIME_ZONE),
      source: { name: 'Grants.gov', id: opportunityId, url: opportunityPage(opportunityId) },
    },
    problems: [],
  };
}
