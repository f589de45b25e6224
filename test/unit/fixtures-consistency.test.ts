import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CANADIAN_CITIES, US_CITIES, generateGrants } from '../../fixtures/generate.js';
import { PROVINCES, type Grant, type Province } from '../../src/grants/schema.js';
import { repoPath } from '../../src/repoRoot.js';

// Whether the generated records read as a partner would expect: the places a record names agree
// with where it is open, a funder's programs are set in the funder's own country, and no funder
// publishes two different programs under one title.

/** Canadian cities and the province or territory each is in (a gazetteer of its own, not the generator's). */
const CITY_PROVINCE: Record<string, Province> = {
  Calgary: 'ALBERTA',
  Edmonton: 'ALBERTA',
  'Red Deer': 'ALBERTA',
  Lethbridge: 'ALBERTA',
  'Grande Prairie': 'ALBERTA',
  Vancouver: 'BRITISH_COLUMBIA',
  Victoria: 'BRITISH_COLUMBIA',
  Kelowna: 'BRITISH_COLUMBIA',
  'Prince George': 'BRITISH_COLUMBIA',
  Surrey: 'BRITISH_COLUMBIA',
  Nanaimo: 'BRITISH_COLUMBIA',
  Winnipeg: 'MANITOBA',
  Brandon: 'MANITOBA',
  Thompson: 'MANITOBA',
  Moncton: 'NEW_BRUNSWICK',
  Fredericton: 'NEW_BRUNSWICK',
  'Saint John': 'NEW_BRUNSWICK',
  Edmundston: 'NEW_BRUNSWICK',
  "St. John's": 'NEWFOUNDLAND_AND_LABRADOR',
  'Corner Brook': 'NEWFOUNDLAND_AND_LABRADOR',
  Gander: 'NEWFOUNDLAND_AND_LABRADOR',
  Yellowknife: 'NORTHWEST_TERRITORIES',
  Inuvik: 'NORTHWEST_TERRITORIES',
  'Hay River': 'NORTHWEST_TERRITORIES',
  Halifax: 'NOVA_SCOTIA',
  Sydney: 'NOVA_SCOTIA',
  Truro: 'NOVA_SCOTIA',
  Lunenburg: 'NOVA_SCOTIA',
  Iqaluit: 'NUNAVUT',
  'Rankin Inlet': 'NUNAVUT',
  'Cambridge Bay': 'NUNAVUT',
  Toronto: 'ONTARIO',
  Ottawa: 'ONTARIO',
  Hamilton: 'ONTARIO',
  London: 'ONTARIO',
  Sudbury: 'ONTARIO',
  'Thunder Bay': 'ONTARIO',
  Kingston: 'ONTARIO',
  Waterloo: 'ONTARIO',
  Windsor: 'ONTARIO',
  Charlottetown: 'PRINCE_EDWARD_ISLAND',
  Summerside: 'PRINCE_EDWARD_ISLAND',
  Montréal: 'QUEBEC',
  'Québec City': 'QUEBEC',
  'Trois-Rivières': 'QUEBEC',
  Gatineau: 'QUEBEC',
  Sherbrooke: 'QUEBEC',
  Saguenay: 'QUEBEC',
  Rimouski: 'QUEBEC',
  Lévis: 'QUEBEC',
  "Val-d'Or": 'QUEBEC',
  Gaspé: 'QUEBEC',
  'Sept-Îles': 'QUEBEC',
  Laval: 'QUEBEC',
  Longueuil: 'QUEBEC',
  Regina: 'SASKATCHEWAN',
  Saskatoon: 'SASKATCHEWAN',
  'Prince Albert': 'SASKATCHEWAN',
  Whitehorse: 'YUKON',
  'Dawson City': 'YUKON',
};

/** Provinces and territories by their English and French names. */
const PROVINCE_NAMED: Record<string, Province> = {
  Alberta: 'ALBERTA',
  'British Columbia': 'BRITISH_COLUMBIA',
  'Colombie-Britannique': 'BRITISH_COLUMBIA',
  Manitoba: 'MANITOBA',
  'New Brunswick': 'NEW_BRUNSWICK',
  'Nouveau-Brunswick': 'NEW_BRUNSWICK',
  'Newfoundland and Labrador': 'NEWFOUNDLAND_AND_LABRADOR',
  'Terre-Neuve-et-Labrador': 'NEWFOUNDLAND_AND_LABRADOR',
  'Northwest Territories': 'NORTHWEST_TERRITORIES',
  'Territoires du Nord-Ouest': 'NORTHWEST_TERRITORIES',
  'Nova Scotia': 'NOVA_SCOTIA',
  'Nouvelle-Écosse': 'NOVA_SCOTIA',
  Nunavut: 'NUNAVUT',
  Ontario: 'ONTARIO',
  'Prince Edward Island': 'PRINCE_EDWARD_ISLAND',
  'Île-du-Prince-Édouard': 'PRINCE_EDWARD_ISLAND',
  // The province, and its capital when the text does not say "City" (either way: in Québec).
  Québec: 'QUEBEC',
  Saskatchewan: 'SASKATCHEWAN',
  Yukon: 'YUKON',
};

const US_PLACES = [
  'Seattle',
  'Detroit',
  'Chicago',
  'Boston',
  'New York',
  'Minneapolis',
  'Buffalo',
  'Burlington',
  'United States',
  'États-Unis',
];

/** The words that say a program is open everywhere in Canada. */
const NATIONWIDE = /\bacross Canada\b|\bpartout au Canada\b|^National\b/;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const finder = (names: readonly string[]) =>
  new RegExp(
    `(?<![\\p{L}-])(${[...names]
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join('|')})(?![\\p{L}-])`,
    'gu',
  );
const CITY_FINDER = finder(Object.keys(CITY_PROVINCE));
const PROVINCE_FINDER = finder(Object.keys(PROVINCE_NAMED));
const US_FINDER = finder(US_PLACES);

/** What a grant says about itself, in every language it is published in, funder name apart. */
function textOf(grant: Grant): string {
  return [grant.title, grant.description, grant.titleFr, grant.descriptionFr]
    .filter((text): text is string => text !== null)
    .join('\n');
}

const found = (pattern: RegExp, text: string): string[] => [...text.matchAll(pattern)].map((m) => m[1] as string);

/** The records whose named places and eligible provinces disagree, each with the reason. */
export function placeProblems(grants: readonly Grant[]): string[] {
  const problems: string[] = [];
  for (const grant of grants) {
    const text = textOf(grant);
    const cities = found(CITY_FINDER, text);
    const named = new Set<Province>([
      ...cities.map((city) => CITY_PROVINCE[city] as Province),
      ...found(PROVINCE_FINDER, text).map((name) => PROVINCE_NAMED[name] as Province),
    ]);
    const eligible = new Set(grant.eligibleProvinces);
    const where = `${grant.id} (${grant.title}; eligible: ${grant.eligibleProvinces.join(',') || 'none'})`;
    if (named.size > 0) {
      const beyond = grant.eligibleProvinces.filter((p) => !named.has(p));
      if (beyond.length > 0) problems.push(`${where} names ${[...named].join(',')} but is open in ${beyond.join(',')}`);
      const outside = [...named].filter((p) => !eligible.has(p));
      if (outside.length > 0) problems.push(`${where} names ${outside.join(',')} where it is not open`);
    }
    if (NATIONWIDE.test(text) && eligible.size !== PROVINCES.length)
      problems.push(`${where} says it is national but is not open in all of Canada`);
  }
  return problems;
}

/** The records set in a country other than their funder's (USD is what US funders pay in). */
export function countryProblems(grants: readonly Grant[]): string[] {
  const problems: string[] = [];
  for (const grant of grants) {
    const text = textOf(grant);
    const where = `${grant.id} (${grant.funder})`;
    if (grant.currency === 'USD') {
      const cities = found(CITY_FINDER, text);
      if (cities.length > 0) problems.push(`${where}, a US funder, names the Canadian ${cities.join(', ')}`);
      if (grant.description !== null && found(US_FINDER, text).length === 0)
        problems.push(`${where}, a US funder, names no US place`);
    } else {
      const us = found(US_FINDER, text);
      if (us.length > 0) problems.push(`${where}, a Canadian funder, names ${us.join(', ')}`);
    }
  }
  return problems;
}

/** The titles one funder gives to more than one record (in either language). */
export function titleProblems(grants: readonly Grant[]): string[] {
  const byTitle = new Map<string, string[]>();
  for (const grant of grants) {
    for (const title of new Set([grant.title, grant.titleFr])) {
      if (title === null) continue;
      const key = `${grant.funder} — ${title}`;
      byTitle.set(key, [...(byTitle.get(key) ?? []), grant.id]);
    }
  }
  return [...byTitle].filter(([, ids]) => ids.length > 1).map(([key, ids]) => `${key}: ${ids.join(', ')}`);
}

const bundled: Grant[] = readFileSync(repoPath('fixtures/grants.ndjson'), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as Grant);

describe('fixtures: places, funders and eligibility agree', () => {
  it("the test's gazetteer knows every city the generator names, in the same province", () => {
    const generator = Object.entries(CANADIAN_CITIES).flatMap(([province, cities]) =>
      cities.map((city) => [city, province]),
    );
    const known = (city: string) => CITY_PROVINCE[city] ?? PROVINCE_NAMED[city];
    expect(generator.filter(([city, province]) => known(city) !== province)).to.deep.equal([]);
    expect(US_CITIES.filter((city) => !US_PLACES.includes(city))).to.deep.equal([]);
  });

  for (const [name, grants] of [
    ['the bundled catalog', bundled],
    ['2,000 records of another seed', [...generateGrants(2000, 77)]],
  ] as const) {
    describe(name, () => {
      it('a record naming a city or province is open only there, and one saying national is open everywhere', () => {
        expect(placeProblems(grants)).to.deep.equal([]);
      });

      it("a funder's records are set in its own country", () => {
        expect(countryProblems(grants)).to.deep.equal([]);
      });

      it('no funder gives two records the same title', () => {
        expect(titleProblems(grants)).to.deep.equal([]);
      });
    });
  }
});
