// The Grant: its enumerations, its TypeScript type and its field order. Pure: the JSON Schema and
// its validator are schema.ts's (which re-exports all of this), so that a module that needs only
// these (a search thread) loads no validator.

export const FUNDER_TYPES = [
  'CORPORATE',
  'FEDERAL_GRANT',
  'FOUNDATION',
  'MUNICIPAL_GRANT',
  'NON_PROFIT_ORGANIZATION',
  'PROVINCIAL_TERRITORIAL_GRANT',
] as const;

export const FUNDING_TYPES = ['EQUITY', 'GRANT', 'LOAN', 'REBATE', 'TAX_CREDIT', 'WAGE_SUBSIDY'] as const;

export const PROVINCES = [
  'ALBERTA',
  'BRITISH_COLUMBIA',
  'MANITOBA',
  'NEW_BRUNSWICK',
  'NEWFOUNDLAND_AND_LABRADOR',
  'NORTHWEST_TERRITORIES',
  'NOVA_SCOTIA',
  'NUNAVUT',
  'ONTARIO',
  'PRINCE_EDWARD_ISLAND',
  'QUEBEC',
  'SASKATCHEWAN',
  'YUKON',
] as const;

export const BENEFICIARIES = [
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
] as const;

export const SDGS = Array.from({ length: 17 }, (_, i) => `SDG_${i + 1}` as const);

export const COMPLEXITIES = ['HIGH', 'LOW', 'MEDIUM'] as const;

export const CURRENCIES = ['CAD', 'USD'] as const;

/** Where a grant stands at a given time (grants/lifecycle.ts derives it): in lifecycle order. */
export const GRANT_STATUSES = ['FORECASTED', 'OPEN', 'CLOSED'] as const;

export type FunderType = (typeof FUNDER_TYPES)[number];
export type FundingType = (typeof FUNDING_TYPES)[number];
export type Province = (typeof PROVINCES)[number];
export type Beneficiary = (typeof BENEFICIARIES)[number];
export type Sdg = `SDG_${number}`;
export type Complexity = (typeof COMPLEXITIES)[number];
export type Currency = (typeof CURRENCIES)[number];
export type GrantStatus = (typeof GRANT_STATUSES)[number];

/** Where a grant was imported from: the source's name, its identifier there and its page there. */
interface GrantSource {
  name: string;
  id: string;
  url: string | null;
}

/**
 * A grant as the catalog holds it: every field present, unknown scalars null (partners receive it with its derived
 * `status`: ServedGrant).
 */
export interface Grant {
  id: string;
  title: string;
  description: string | null;
  funder: string;
  funderType: FunderType;
  fundingType: FundingType;
  amountMin: number | null;
  amountMax: number | null;
  currency: Currency;
  opensAt: string | null;
  deadline: string | null;
  applicationUrl: string | null;
  eligibleProvinces: Province[];
  targetBeneficiaries: Beneficiary[];
  sdgAlignment: Sdg[];
  applicationComplexity: Complexity | null;
  isRecurring: boolean | null;
  createdAt: string;
  updatedAt: string;
  titleFr: string | null;
  descriptionFr: string | null;
  source: GrantSource | null;
}

/** A grant as partners receive it: the stored fields, then its status at the time of the request. */
export type ServedGrant = Grant & { status: GrantStatus };

/** The field order of every stored document (the wire format adds `status` last: SERVED_FIELDS). */
export const GRANT_FIELDS: readonly (keyof Grant)[] = [
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
];

/** The field order of the wire format: the stored fields, then the derived `status`. */
export const SERVED_FIELDS: readonly (keyof ServedGrant)[] = [...GRANT_FIELDS, 'status'];
