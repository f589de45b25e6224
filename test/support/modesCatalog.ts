// The catalog of the relaxed matching and synonym suites (test/http/grants-modes.test.ts on the
// embedded engine, test/elasticsearch/modes-parity.test.ts on both): the fixture grants and a few
// written so that each mode's answer is known by construction.
import type { Grant } from '../../src/grants/schema.js';
import { fixtureGrants } from './api.js';
import { writeNdjson } from './catalog.js';

/** A grant written for a case: a fixture grant's fields with this id and text. */
function written(
  template: Grant,
  id: string,
  title: string,
  description: string,
  french: { titleFr: string; descriptionFr: string } | null = null,
): Grant {
  return {
    ...template,
    id,
    title,
    description,
    titleFr: french?.titleFr ?? null,
    descriptionFr: french?.descriptionFr ?? null,
  };
}

/** The grants the cases name. */
export const MODE_GRANTS = {
  /** Every word of "zorblax quintorp velmish": the first bucket. */
  allThree: 'grt_mode0001',
  /** "zorblax quintorp" only. */
  firstTwo: 'grt_mode0002',
  /** "zorblax" only. */
  firstOnly: 'grt_mode0003',
  /** "quintorp velmish" only: not the first word, so `last` never finds it. */
  lastTwo: 'grt_mode0004',
  /** "velmish" only, in three more grants, so `velmish` is the most common of the three. */
  velmishA: 'grt_mode0005',
  velmishB: 'grt_mode0006',
  velmishC: 'grt_mode0007',
  /** "zorblax velmish" and the phrase "frobnic plaster". */
  phrase: 'grt_mode0008',
  nonprofit: 'grt_mode0010',
  notForProfit: 'grt_mode0011',
  evCharging: 'grt_mode0012',
  electricVehicle: 'grt_mode0013',
  researchAndDevelopment: 'grt_mode0014',
  crsng: 'grt_mode0015',
  obnl: 'grt_mode0016',
  homeBuyer: 'grt_mode0017',
} as const;

const M = MODE_GRANTS;

export function modesCatalogGrants(): Grant[] {
  const grants = fixtureGrants();
  const t = grants[1];
  return [
    ...grants,
    written(t, M.allThree, 'Zorblax quintorp velmish fund', 'Supports zorblax work with quintorp and velmish.'),
    written(t, M.firstTwo, 'Zorblax quintorp program', 'For zorblax and quintorp projects.'),
    written(t, M.firstOnly, 'Zorblax grant', 'For zorblax alone.'),
    written(t, M.lastTwo, 'Quintorp velmish initiative', 'Quintorp and velmish together.'),
    written(t, M.velmishA, 'Velmish fund one', 'Velmish.'),
    written(t, M.velmishB, 'Velmish fund two', 'Velmish.'),
    written(t, M.velmishC, 'Velmish fund three', 'Velmish.'),
    written(t, M.phrase, 'Zorblax velmish frobnic plaster', 'A frobnic plaster for zorblax and velmish.'),
    written(t, M.nonprofit, 'Nonprofit capacity fund', 'For nonprofit groups.'),
    written(t, M.notForProfit, 'Capacity support', 'Open to not-for-profit groups.'),
    written(t, M.evCharging, 'EV charging stations', 'Funds EV chargers in parking lots.'),
    written(t, M.electricVehicle, 'Zero-emission fleets', 'Rebates on each electric vehicle a fleet buys.'),
    written(
      t,
      M.researchAndDevelopment,
      'Industrial innovation',
      'Supports research and development in manufacturing.',
    ),
    written(t, M.crsng, 'Subventions à la découverte', 'Discovery grants.', {
      titleFr: 'Subventions à la découverte',
      descriptionFr: 'Programme du CRSNG pour les chercheurs.',
    }),
    written(t, M.obnl, 'Community support', 'Community support.', {
      titleFr: 'Soutien communautaire',
      descriptionFr: "Ouvert à tout organisme à but non lucratif de l'Ontario.",
    }),
    written(t, M.homeBuyer, 'Down payment help', 'For a first-time home buyer in rural areas.'),
  ];
}

/** Writes the grants as an NDJSON seed file in `dir`; returns its path. */
export function seedFile(dir: string, grants: Grant[]): string {
  return writeNdjson(dir, 'modes.ndjson', grants);
}

/** Searches both engines must answer alike in every mode. */
export const MODE_SEARCHES = [
  'zorblax quintorp velmish',
  'zorblax quintorp velmish -plaster',
  'zorblax "frobnic plaster" velmish',
  'quintorp OR zorblax velmish',
  'nonprofit',
  'non-profit capacity',
  'electric vehicle charging',
  'EV',
  'R&D manufacturing',
  'NSERC',
  'organisme sans but lucratif',
  'first-time homebuyer',
  'clean energy innovation program',
  'indigenous youth skills training',
  'rural broadband internet access',
  'zorblaks quintorp velmish',
  'electric vehicle chargng stations',
];
