// The human labels of a grant's enumerated fields, in English and French: what a person calls
// the value a catalog stores as a code. Both engines index a grant's labels as a searchable field
// of the lowest weight (LABELS_WEIGHT), so `indigenous` finds the grants meant for Indigenous
// communities whatever their text says. Pure.
import type { Beneficiary, FunderType, FundingType, Grant, Province } from './schema.js';

interface Label {
  en: string;
  fr: string;
}

export const FUNDER_TYPE_LABELS: Record<FunderType, Label> = {
  CORPORATE: { en: 'Corporate', fr: 'entreprise' },
  FEDERAL_GRANT: { en: 'Federal government', fr: 'gouvernement fédéral' },
  FOUNDATION: { en: 'Foundation', fr: 'fondation' },
  MUNICIPAL_GRANT: { en: 'Municipal government', fr: 'gouvernement municipal' },
  NON_PROFIT_ORGANIZATION: { en: 'Non-profit organization', fr: 'organisme sans but lucratif' },
  PROVINCIAL_TERRITORIAL_GRANT: {
    en: 'Provincial or territorial government',
    fr: 'gouvernement provincial ou territorial',
  },
};

export const FUNDING_TYPE_LABELS: Record<FundingType, Label> = {
  EQUITY: { en: 'Equity investment', fr: 'investissement en capital' },
  GRANT: { en: 'Grant', fr: 'subvention' },
  LOAN: { en: 'Loan', fr: 'prêt' },
  REBATE: { en: 'Rebate', fr: 'remise' },
  TAX_CREDIT: { en: 'Tax credit', fr: "crédit d'impôt" },
  WAGE_SUBSIDY: { en: 'Wage subsidy', fr: 'subvention salariale' },
};

export const PROVINCE_LABELS: Record<Province, Label> = {
  ALBERTA: { en: 'Alberta', fr: 'Alberta' },
  BRITISH_COLUMBIA: { en: 'British Columbia', fr: 'Colombie-Britannique' },
  MANITOBA: { en: 'Manitoba', fr: 'Manitoba' },
  NEW_BRUNSWICK: { en: 'New Brunswick', fr: 'Nouveau-Brunswick' },
  NEWFOUNDLAND_AND_LABRADOR: { en: 'Newfoundland and Labrador', fr: 'Terre-Neuve-et-Labrador' },
  NORTHWEST_TERRITORIES: { en: 'Northwest Territories', fr: 'Territoires du Nord-Ouest' },
  NOVA_SCOTIA: { en: 'Nova Scotia', fr: 'Nouvelle-Écosse' },
  NUNAVUT: { en: 'Nunavut', fr: 'Nunavut' },
  ONTARIO: { en: 'Ontario', fr: 'Ontario' },
  PRINCE_EDWARD_ISLAND: { en: 'Prince Edward Island', fr: 'Île-du-Prince-Édouard' },
  QUEBEC: { en: 'Quebec', fr: 'Québec' },
  SASKATCHEWAN: { en: 'Saskatchewan', fr: 'Saskatchewan' },
  YUKON: { en: 'Yukon', fr: 'Yukon' },
};

export const BENEFICIARY_LABELS: Record<Beneficiary, Label> = {
  CHARITIES: { en: 'Charities', fr: 'organismes de bienfaisance' },
  COMMUNITY_ORGANIZATIONS: { en: 'Community organizations', fr: 'organismes communautaires' },
  INDIGENOUS_COMMUNITIES: { en: 'Indigenous communities', fr: 'communautés autochtones' },
  INDIVIDUALS: { en: 'Individuals', fr: 'particuliers' },
  LARGE_BUSINESS: { en: 'Large business', fr: 'grande entreprise' },
  MEDIUM_BUSINESS: { en: 'Medium-sized business', fr: 'moyenne entreprise' },
  MUNICIPALITIES: { en: 'Municipalities', fr: 'municipalités' },
  NON_PROFIT: { en: 'Non-profit organizations', fr: 'organismes à but non lucratif' },
  RESEARCHERS: { en: 'Researchers', fr: 'chercheurs' },
  SMALL_BUSINESS: { en: 'Small business', fr: 'petite entreprise' },
  STARTUPS: { en: 'Startups', fr: 'jeunes entreprises' },
  STUDENTS: { en: 'Students', fr: 'étudiants' },
};

/** The relevance weight of the labels, below every text field's (description: 1). */
export const LABELS_WEIGHT = 0.5;

/**
 * A grant's labels as one text: the English then the French label of each value of its
 * funder type, funding type, beneficiaries and provinces, in that order, a label the same in both
 * languages once. What both engines index as the grant's labels.
 */
export function labelText(
  grant: Pick<Grant, 'funderType' | 'fundingType' | 'targetBeneficiaries' | 'eligibleProvinces'>,
): string {
  const labels = [
    FUNDER_TYPE_LABELS[grant.funderType],
    FUNDING_TYPE_LABELS[grant.fundingType],
    ...grant.targetBeneficiaries.map((value) => BENEFICIARY_LABELS[value]),
    ...grant.eligibleProvinces.map((value) => PROVINCE_LABELS[value]),
  ];
  return labels.map(({ en, fr }) => (en === fr ? en : `${en}. ${fr}`)).join('. ');
}
