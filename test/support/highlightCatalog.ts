// A small catalog written for highlights: English and French text, a synonym, a word a typo
// reaches, a description long enough to crop, and text holding HTML and a script. The HTTP suite,
// the browser test and the parity suite of both engines search it.
import { grantRecord, type GrantRecord } from './catalog.js';

const filler = (n: number): string =>
  Array.from({ length: n }, (_, i) => ['the', 'program', 'helps', 'local', 'groups'][i % 5]).join(' ');

/** A script the browser test would see run (it sets window.__pwned) if the text were not escaped. */
export const HOSTILE_SCRIPT = '<script>window.__pwned = true</script><img src=x onerror="window.__pwned = true">';

export const HIGHLIGHT_IDS = {
  energy: 'h-energy',
  emploi: 'h-emploi',
  nonprofit: 'h-nonprofit',
  hostile: 'h-hostile',
} as const;

export const HIGHLIGHT_GRANTS: readonly GrantRecord[] = [
  grantRecord(HIGHLIGHT_IDS.energy, {
    title: 'Clean Energy Fund',
    funder: 'Natural Resources Canada',
    description:
      `${filler(30)}. It funds solar installations & energy storage for community halls. ${filler(40)}. ` +
      `Energy audits come last.`,
    deadline: '2027-03-01T00:00:00.000Z',
  }),
  grantRecord(HIGHLIGHT_IDS.emploi, {
    title: 'Youth Employment Program',
    funder: 'Employment and Social Development Canada',
    description: 'Supports youth employment in rural regions.',
    titleFr: "Programme d'emploi des jeunes",
    descriptionFr: "Ce programme soutient l'emploi des jeunes dans les régions rurales.",
    deadline: '2027-03-02T00:00:00.000Z',
  }),
  grantRecord(HIGHLIGHT_IDS.nonprofit, {
    title: 'Community Grants',
    funder: 'City Foundation',
    description: 'Open to not-for-profit organizations and registered charities.',
    deadline: '2027-03-03T00:00:00.000Z',
  }),
  grantRecord(HIGHLIGHT_IDS.hostile, {
    title: 'Arts <b>Bold</b> & "Quoted" Fund',
    funder: 'Arts Council',
    description: `${HOSTILE_SCRIPT}Solar panels for community arts centres.`,
    deadline: '2027-03-04T00:00:00.000Z',
  }),
];

/** Searches both engines must highlight alike (with the parameters added to each). */
export const HIGHLIGHT_SEARCHES: readonly string[] = [
  'search=energy',
  'search=solar%20installation',
  'search=%22solar%20installations%22',
  'search=emploi%20jeune',
  'search=employment%20-storage',
  'search=solar%20OR%20charities',
  'search=nonprofit',
  'search=enrgy&typos=auto',
  'search=script',
  'search=community&matching=last',
  'search=community%20halls%20unknownword&matching=frequency',
];
