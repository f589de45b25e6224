// The request mix of each endpoint class, drawn from the generated catalog (seeded: the same
// catalog and seed give the same requests). Paths are relative to the server's origin.
import { Random } from '../../fixtures/generate.js';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  PROVINCES,
  SDGS,
} from '../../src/grants/schema.js';
import { wordsOf, type CatalogSample } from './catalog.js';

export const PREFIX = '/external/v1';

export const CLASS_NAMES = [
  'text',
  'filters',
  'combined',
  'deep',
  'searchMix',
  'noFacets',
  'facets',
  'plainPages',
  'highlighted',
  'byId',
  'filterOptions',
  'usage',
  'suggest',
  'similar',
] as const;
export type ClassName = (typeof CLASS_NAMES)[number];

export const CLASS_LABELS: Record<ClassName, string> = {
  text: 'text search, 1–3 words',
  filters: 'filter-only lists',
  combined: 'search + filters',
  deep: 'deep pages (~p.200 × 20)',
  searchMix: 'search mix (the 4 above)',
  noFacets: 'search mix, facets removed',
  facets: 'search mix, 3 facets on each',
  plainPages: 'searches, pages of 20',
  highlighted: 'the same, title and description highlighted, description cropped to 40 words',
  byId: '/grants/:id',
  filterOptions: '/grants/filters',
  usage: '/subscription/usage',
  suggest: '/grants/suggest, as typed',
  similar: '/grants/:id/similar',
};

/** Classes that GET /grants serves (their mix is the "search mix"). */
export const SEARCH_CLASSES = ['text', 'filters', 'combined', 'deep'] as const satisfies readonly ClassName[];

export type Mix = Record<ClassName, string[]>;

const STOPWORDS = new Set(
  (
    'a an and are as at by for from in into is it of on or the to with ' +
    'au aux avec d de des du en et l la le les par pour sur un une à'
  ).split(' '),
);

const isAccented = (word: string) => /[^\x00-\x7f]/.test(word);
const contentWords = (text: string) =>
  wordsOf(text).filter((w) => w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w));

/** Removes accents, as a partner typing "quebec" would. */
const plain = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '');

/** Case as partners type it: mostly lower-case, sometimes capitalised. */
function typed(rng: Random, word: string): string {
  return rng.chance(0.3) ? word[0].toUpperCase() + word.slice(1) : word;
}

function query(params: [string, string | number][]): string {
  return params.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');
}

const searchPath = (params: [string, string | number][]) =>
  `${PREFIX}/grants${params.length > 0 ? `?${query(params)}` : ''}`;

function textWords(rng: Random, sample: CatalogSample, french: string[]): string {
  const roll = rng.float();
  if (roll < 0.7) {
    // 1–3 consecutive content words of a real title.
    const words = contentWords(rng.pick(sample.titles));
    if (words.length > 0) {
      const n = Math.min(words.length, rng.weighted([1, 2, 3], [45, 35, 20]));
      const start = rng.int(words.length - n + 1);
      return words
        .slice(start, start + n)
        .map((w) => typed(rng, w))
        .join(' ');
    }
  }
  if (roll < 0.85 || french.length === 0) {
    const words = contentWords(rng.pick(sample.funders));
    if (words.length > 0) return words.slice(0, rng.weighted([1, 2], [70, 30])).join(' ');
  }
  // French words with their accents (Québec, Montréal, économie) or typed without them.
  const word = rng.pick(french);
  return rng.chance(0.5) ? typed(rng, word) : plain(word);
}

function filterParams(rng: Random, sample: CatalogSample, minFilters = 1): [string, string | number][] {
  const params: [string, string | number][] = [];
  while (params.length < minFilters) {
    params.length = 0;
    if (rng.chance(0.45))
      params.push(['funderType', rng.sample(FUNDER_TYPES, rng.weighted([1, 2], [70, 30])).join(',')]);
    if (rng.chance(0.45))
      params.push(['fundingType', rng.sample(FUNDING_TYPES, rng.weighted([1, 2], [70, 30])).join(',')]);
    if (rng.chance(0.55))
      params.push(['eligibleProvinces', rng.sample(PROVINCES, rng.weighted([1, 2, 3], [50, 30, 20])).join(',')]);
    if (rng.chance(0.2)) {
      const min = rng.pick([1000, 5000, 10000, 25000, 50000, 100000]);
      params.push(['amountMin', min]);
      if (rng.chance(0.5)) params.push(['amountMax', min * rng.pick([2, 5, 10, 20])]);
    } else if (rng.chance(0.1)) {
      params.push(['amountMax', rng.pick([5000, 20000, 100000, 500000])]);
    }
    // The partner-search filters.
    if (rng.chance(0.3)) params.push(['open', rng.chance(0.85) ? 'true' : 'false']);
    if (rng.chance(0.2))
      params.push(['targetBeneficiaries', rng.sample(BENEFICIARIES, rng.weighted([1, 2], [70, 30])).join(',')]);
    if (rng.chance(0.08)) params.push(['currency', rng.pick(CURRENCIES)]);
    if (rng.chance(0.08))
      params.push(['applicationComplexity', rng.sample(COMPLEXITIES, rng.weighted([1, 2], [70, 30])).join(',')]);
    if (rng.chance(0.08)) params.push(['sdgAlignment', rng.sample(SDGS, rng.weighted([1, 2], [70, 30])).join(',')]);
    if (rng.chance(0.05)) params.push(['isRecurring', rng.chance(0.5) ? 'true' : 'false']);
    if (rng.chance(0.1)) {
      const month = rng.range(1, 12);
      params.push(
        ['deadlineFrom', `2026-${String(month).padStart(2, '0')}-01`],
        ['deadlineTo', `2026-${String(month).padStart(2, '0')}-28`],
      );
    }
    if (rng.chance(0.05)) params.push(['updatedSince', `2025-${String(rng.range(1, 12)).padStart(2, '0')}-01`]);
  }
  void sample;
  return params;
}

const SORTS = [
  'deadline',
  '-deadline',
  'amountMin',
  '-amountMin',
  'amountMax',
  '-amountMax',
  'createdAt',
  '-createdAt',
  'updatedAt',
  '-updatedAt',
  'title',
  '-title',
];

/** A sort other than the default in `share` of the requests. */
function sortParams(rng: Random, share: number): [string, string][] {
  return rng.chance(share) ? [['sort', rng.pick(SORTS)]] : [];
}

/** 2–3 facets in `share` of the requests. */
function facetParams(rng: Random, share: number): [string, string][] {
  return rng.chance(share) ? [['facets', rng.sample(FACETS, rng.weighted([2, 3], [50, 50])).join(',')]] : [];
}

const FACETS = [
  'funderType',
  'fundingType',
  'eligibleProvinces',
  'targetBeneficiaries',
  'currency',
  'applicationComplexity',
  'sdgAlignment',
  'isRecurring',
];

/** The same request with 3 facets (`with`) or none (`without`): what facets cost, request for request. */
function withFacets(searchPath: string, facets: string | null): string {
  const [pathPart, query = ''] = searchPath.split('?');
  const params = query.split('&').filter((p) => p !== '' && !p.startsWith('facets='));
  if (facets !== null) params.push(`facets=${encodeURIComponent(facets)}`);
  return params.length > 0 ? `${pathPart}?${params.join('&')}` : pathPart;
}

/**
 * What highlights cost, request for request: the same search as a page of 20 with every field, without (`highlight`
 * false) or with highlights and a crop.
 */
export const HIGHLIGHT_PARAMS = 'highlight=title%2Cdescription&crop=description%3A40';
function highlightedPage(searchPath: string, highlight: boolean): string {
  const [pathPart, query = ''] = searchPath.split('?');
  const params = query.split('&').filter((p) => p !== '' && !/^(limit|page|fields|facets)=/.test(p));
  params.push('limit=20');
  if (highlight) params.push(HIGHLIGHT_PARAMS);
  return `${pathPart}?${params.join('&')}`;
}

/**
 * Builds every class's request list. `sample` is a uniform sample of the catalog; `grants` is the
 * catalog's size (to aim deep pages at words common enough to reach them).
 */
export function buildMix(sample: CatalogSample, grants: number, seed: number): Mix {
  const rng = new Random(seed ^ 0x6a09e667);
  const allWords = [...sample.documentFrequency.keys()];
  const french = allWords.filter((w) => isAccented(w) && w.length >= 4 && !STOPWORDS.has(w)).sort();

  const text: string[] = [];
  for (let i = 0; i < 400; i++) {
    const params: [string, string | number][] = [['search', textWords(rng, sample, french)]];
    if (rng.chance(0.25)) params.push(['limit', rng.pick([10, 50])]);
    text.push(searchPath(params));
  }

  const filters: string[] = [];
  for (let i = 0; i < 400; i++) {
    const params = filterParams(rng, sample);
    const page = rng.weighted([1, 2, 3, 5], [70, 15, 10, 5]);
    if (page > 1) params.push(['page', page]);
    const limit = rng.weighted([20, 10, 50, 100], [60, 15, 15, 10]);
    if (limit !== 20) params.push(['limit', limit]);
    filters.push(searchPath([...params, ...sortParams(rng, 0.3), ...facetParams(rng, 0.25)]));
  }

  const combined: string[] = [];
  for (let i = 0; i < 400; i++) {
    const words = textWords(rng, sample, french).split(' ').slice(0, 2).join(' ');
    combined.push(
      searchPath([
        ['search', words],
        ...filterParams(rng, sample),
        ...sortParams(rng, 0.15),
        ...facetParams(rng, 0.25),
      ]),
    );
  }

  // Deep pages: around page 200 of 20, on queries matching enough grants to reach it.
  const deep: string[] = [];
  const reach = (share: number) => Math.floor((share * grants) / 20);
  const common = allWords
    .map((w) => ({ w, share: (sample.documentFrequency.get(w) ?? 0) / sample.size }))
    .filter(({ w, share }) => w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w) && reach(share) >= 60)
    .sort((a, b) => b.share - a.share || (a.w < b.w ? -1 : 1))
    .slice(0, 40);
  for (let i = 0; i < 200; i++) {
    const roll = rng.float();
    let params: [string, string | number][];
    let maxPage = reach(1);
    if (roll < 0.35 || common.length === 0) {
      params = [];
    } else if (roll < 0.65) {
      params = [['fundingType', 'GRANT,LOAN,TAX_CREDIT']];
      maxPage = reach(0.5);
    } else {
      const { w, share } = rng.pick(common);
      params = [['search', w]];
      maxPage = reach(share * 0.9);
    }
    const page = Math.max(2, Math.min(maxPage, 500, rng.range(150, 250)));
    deep.push(searchPath([...params, ['page', page], ['limit', 20]]));
  }

  const byId = rng.sample(sample.ids, sample.ids.length).map((id) => `${PREFIX}/grants/${encodeURIComponent(id)}`);
  const usage = [1, 7, 30, 90, 30, 30].map((days) => `${PREFIX}/subscription/usage?days=${days}`);

  // The search mix: the four /grants classes interleaved 40/25/25/10.
  const searchMix: string[] = [];
  for (let i = 0; i < 800; i++) {
    const from = rng.weighted([text, filters, combined, deep], [40, 25, 25, 10]);
    searchMix.push(rng.pick(from));
  }

  // What facets cost: the search mix's requests without facets, and each with the same three.
  const noFacets = searchMix.map((p) => withFacets(p, null));
  const facets = searchMix.map((p) => withFacets(p, 'eligibleProvinces,fundingType,targetBeneficiaries'));

  // What highlights cost: searches (text and text with filters) as pages of 20, without and with highlights.
  const searches = searchMix.filter((p) => p.includes('search='));
  const plainPages = searches.map((p) => highlightedPage(p, false));
  const highlighted = searches.map((p) => highlightedPage(p, true));

  return {
    text,
    filters,
    combined,
    deep,
    searchMix,
    noFacets,
    facets,
    plainPages,
    highlighted,
    byId,
    filterOptions: [`${PREFIX}/grants/filters`],
    usage,
    suggest: suggestPaths(rng, sample, french),
    similar: similarPaths(rng, sample),
  };
}

/**
 * More like this: the similar grants of sampled grants, as a grant's page asks them (limit 10 or
 * 5), a third under filters (a portal showing one province's open grants).
 */
function similarPaths(rng: Random, sample: CatalogSample): string[] {
  return rng.sample(sample.ids, Math.min(400, sample.ids.length)).map((id) => {
    const params: [string, string | number][] = [['limit', rng.pick([10, 10, 5])]];
    const filtered = rng.chance(0.33) ? filterParams(rng, sample) : [];
    return `${PREFIX}/grants/${encodeURIComponent(id)}/similar?${query([...params, ...filtered])}`;
  });
}

/** Two adjacent letters swapped past the first: a typo the prefix's typo rule forgives. */
function swapped(rng: Random, word: string): string {
  if (word.length < 5) return word;
  const at = 1 + rng.int(word.length - 2);
  return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
}

/**
 * Search as you type: a search being typed, cut in its last word (1 to 8 letters typed, the
 * short prefixes most often, as each keystroke sends one), after 0–2 words typed whole; a typo in
 * a tenth of the prefixes of 5 letters or more; filters on a third (a portal showing one
 * province's grants); the kinds or a limit sometimes.
 */
function suggestPaths(rng: Random, sample: CatalogSample, french: string[]): string[] {
  const paths: string[] = [];
  for (let i = 0; i < 400; i++) {
    const words = textWords(rng, sample, french).split(' ');
    const last = words[words.length - 1];
    const cut = Math.min(last.length, rng.weighted([1, 2, 3, 4, 5, 6, 8], [10, 15, 20, 20, 15, 10, 10]));
    let prefix = last.slice(0, cut);
    if (prefix.length >= 5 && rng.chance(0.1)) prefix = swapped(rng, prefix);
    const q = [...words.slice(0, -1), prefix].join(' ');
    const params: [string, string | number][] = [['q', q]];
    if (rng.chance(0.15)) params.push(['type', rng.pick(['words', 'titles', 'funders', 'words,funders'])]);
    if (rng.chance(0.15)) params.push(['limit', rng.pick([8, 10, 20])]);
    const filtered = rng.chance(0.33) ? filterParams(rng, sample) : [];
    paths.push(`${PREFIX}/grants/suggest?${query([...params, ...filtered])}`);
  }
  return paths;
}
