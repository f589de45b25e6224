// The catalogs of the typo tolerance suites (test/http/grants-typos.test.ts on the embedded
// engine, test/elasticsearch/typos-parity.test.ts on both): the fixture grants and a few written
// for the typo rule's edges (one whose words are only in its French fields), and a catalog whose
// words each have hundreds of typo neighbours.
import { Random } from '../../fixtures/generate.js';
import type { Grant } from '../../src/grants/schema.js';
import { fixtureGrants } from './api.js';
import { writeNdjson } from './catalog.js';

/** A grant written for a case: a fixture grant's fields with this id, title and description. */
function written(template: Grant, id: string, title: string, description: string): Grant {
  return { ...template, id, title, description };
}

/** The grants the cases name. */
export const TYPO_GRANTS = {
  ruralBroadband: 'grt_typo0001',
  schoolBroadband: 'grt_typo0002',
  /** Spells it "braodband" (an adjacent transposition): found by `broadband` with one typo. */
  misspeltBroadband: 'grt_typo0003',
  farming: 'grt_typo0004',
  grain: 'grt_typo0005',
  numbered: 'grt_typo0006',
  /** Says "déneigement" and "déglaçage" only in its French title and description. */
  frenchOnly: 'grt_typo0007',
} as const;

export function typoCatalogGrants(): Grant[] {
  const grants = fixtureGrants();
  const t = grants[1];
  return [
    ...grants,
    written(
      t,
      TYPO_GRANTS.ruralBroadband,
      'Rural broadband connectivity fund',
      'Brings broadband internet to rural communities.',
    ),
    written(t, TYPO_GRANTS.schoolBroadband, 'Broadband access for schools', 'High-speed broadband for schools.'),
    written(t, TYPO_GRANTS.misspeltBroadband, 'Braodband braodband pilot', 'Braodband.'),
    written(t, TYPO_GRANTS.farming, 'Farming succession grant', 'Helps young farmers take over the family farm.'),
    written(t, TYPO_GRANTS.grain, 'Grain storage rebate', 'Rebates on grain bins and dryers.'),
    written(t, TYPO_GRANTS.numbered, 'Program 4417 recovery loan', 'Loans for covid19 recovery under program 4417.'),
    {
      ...written(t, TYPO_GRANTS.frenchOnly, 'Municipal snow clearing fund', 'Helps towns clear their roads in winter.'),
      titleFr: 'Fonds municipal de déneigement',
      descriptionFr: 'Aide aux municipalités pour le déglaçage des routes.',
    },
  ];
}

/**
 * Words of 8 to 10 letters from four vowels after "sa": every word has hundreds of neighbours
 * within two typos in a catalog of `count` grants of forty such words each.
 */
export function crowdedCatalogGrants(count = 2000): Grant[] {
  const random = new Random(4242);
  const template = fixtureGrants()[1];
  const word = () =>
    'sa' +
    Array.from({ length: 6 + Math.floor(random.float() * 3) }, () => 'aeio'[Math.floor(random.float() * 4)]).join('');
  return Array.from({ length: count }, (_, i) => {
    const id = `grt_crowd${i.toString().padStart(4, '0')}`;
    return {
      ...template,
      id,
      title: `Crowded ${word()} ${word()}`,
      description: Array.from({ length: 40 }, word).join(' '),
    };
  });
}

/** A query of 200 characters: twenty 9-letter words of the crowded catalog's kind, none of them likely in it. */
export function crowdedQuery(): string {
  const random = new Random(7);
  const words = Array.from(
    { length: 20 },
    () => `sa${Array.from({ length: 7 }, () => 'aeio'[Math.floor(random.float() * 4)]).join('')}`,
  );
  return words.join(' ').padEnd(200, 'x').slice(0, 200);
}

/**
 * A catalog swarming with typo neighbours of crowdedQuery's words: each description is 40 words,
 * each one of the query's words with one or two of its letters after the first replaced (any of
 * 26 letters), so that every word of the query has thousands of neighbours in the catalog
 * (about 4,000 each at 3,000 grants), hundreds of them one typo away.
 */
export function swarmedCatalogGrants(count = 3000): Grant[] {
  const random = new Random(4243);
  const template = fixtureGrants()[1];
  const targets = crowdedQuery()
    .split(' ')
    .filter((w) => /^sa[aeio]{7}$/.test(w));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const neighbour = () => {
    const word = [...targets[Math.floor(random.float() * targets.length)]];
    const edits = random.float() < 0.25 ? 1 : 2;
    for (let e = 0; e < edits; e++)
      word[1 + Math.floor(random.float() * (word.length - 1))] = letters[Math.floor(random.float() * 26)];
    return word.join('');
  };
  return Array.from({ length: count }, (_, i) => {
    const id = `grt_swarm${i.toString().padStart(5, '0')}`;
    return {
      ...template,
      id,
      title: `Swarmed ${neighbour()} ${neighbour()}`,
      description: Array.from({ length: 40 }, neighbour).join(' '),
    };
  });
}

/** Writes grants as the NDJSON a SEED_FILE names; returns its path. */
export function seedFile(dir: string, grants: readonly Grant[]): string {
  return writeNdjson(dir, 'grants.ndjson', grants);
}

/**
 * The searches both engines must answer alike (totals, matches, suggestion), with and without
 * typos: the misspellings of the guide, transpositions, the first-letter rule, the length
 * thresholds, numbers, phrases and exclusions.
 */
export const TYPO_SEARCHES: readonly string[] = [
  'brodband',
  'broadband',
  'agricultre',
  'agrycultre',
  'agriculture',
  'famring',
  'varming',
  'grian',
  'grin',
  'fatm',
  'brodbamd',
  '4418',
  'covid18',
  '"brodband access"',
  '"brodband"',
  'broadband -rurla',
  'broadband -rural',
  'brodband rural',
  'brodband OR agricultre',
  'brodband internet',
  'homless shelter',
  'Agricultré',
  'deneigemnt',
  'déglaçge',
];
