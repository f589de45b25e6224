// GET /external/v1/grants/:id/similar on the embedded engine, over a catalog made so that the
// order is known by construction: which grants come back, in which order, with the filters,
// fields and limit of a search; its errors, scope and billing.
import { expect } from 'chai';
import { expectError, expectValidation } from '../support/assertions.js';
import {
  GRANTS_PATH as G,
  API_PREFIX as P,
  recordMaker,
  startCatalogApi,
  stopCatalogApi,
  ITEM_LABELS,
  type GrantRecord,
} from '../support/catalog.js';
import type { TestApi } from '../support/api.js';

const rec = recordMaker(ITEM_LABELS);
const NOW = new Date('2026-06-15T12:00:00.000Z');

/**
 * The source grant talks of kelp (5 times, title included), seagrass (twice) and divers (once).
 * Each other grant holds some of these words in a known field; fillers hold none, so that no word
 * is too common to choose.
 */
const RECORDS: GrantRecord[] = [
  rec('src', {
    title: 'Kelp Restoration',
    funder: 'Placeholder Body',
    description: 'Kelp with seagrass beds: kelp, kelp, seagrass, divers.',
    eligibleProvinces: ['QUEBEC'],
  }),
  rec('kelp-title', { title: 'Kelp Farming', description: 'Seaweed growers.', eligibleProvinces: ['ONTARIO'] }),
  rec('kelp-text', {
    title: 'Coastal Work',
    description: 'Growing kelp near the shore.',
    eligibleProvinces: ['QUEBEC'],
  }),
  rec('seagrass-title', {
    title: 'Seagrass Meadows',
    description: 'Meadows under water.',
    eligibleProvinces: ['QUEBEC'],
  }),
  rec('divers', { title: 'Diving Schools', description: 'For divers and instructors.', eligibleProvinces: ['QUEBEC'] }),
  rec('kelp-seagrass', { title: 'Kelp and Seagrass Survey', description: 'A survey.', eligibleProvinces: ['QUEBEC'] }),
  rec('unrelated', { title: 'Orchard Grants', description: 'Apples and pears.', eligibleProvinces: ['QUEBEC'] }),
  ...Array.from({ length: 13 }, (_, i) =>
    rec(`filler-${String(i).padStart(2, '0')}`, { title: `Filler ${i}`, description: `Topic number ${i}.` }),
  ),
];

describe('GET /grants/:id/similar (embedded engine)', function () {
  let api: TestApi;
  before(async function () {
    api = await startCatalogApi(RECORDS, {
      prefix: 'grants-similar-',
      failureLabel: 'grants-indexer reindex',
      clock: () => NOW,
    });
  });
  after(() => stopCatalogApi(api));

  const similar = async (id: string, query = ''): Promise<string[]> => {
    const res = await api.request(`${G}/${id}/similar${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.map((g: { id: string }) => g.id);
  };

  it('lists the grants sharing its distinctive words, the heaviest shared first, never the grant itself', async function () {
    // kelp outweighs seagrass (used more), which outweighs divers; a word in a title counts 3, in a description 1.
    expect(await similar('src')).to.deep.equal([
      'kelp-seagrass',
      'kelp-title',
      'seagrass-title',
      'kelp-text',
      'divers',
    ]);
    const res = await api.request(`${G}/src/similar`);
    expect(res.body.pagination).to.deep.equal({ page: 1, limit: 10, total: 5, totalPages: 1 });
    // Asked from another grant, the source is listed like any other.
    expect(await similar('kelp-title')).to.include('src');
    expect(await similar('kelp-title')).not.to.include('kelp-title');
  });

  it('takes the filters and fields of a search, and limit', async function () {
    expect(await similar('src', '?eligibleProvinces=ONTARIO')).to.deep.equal(['kelp-title']);
    expect(await similar('src', '?limit=2')).to.deep.equal(['kelp-seagrass', 'kelp-title']);
    const res = await api.request(`${G}/src/similar?fields=title&limit=1`);
    expect(res.body.data).to.deep.equal([{ id: 'kelp-seagrass', title: 'Kelp and Seagrass Survey' }]);
    expect(res.body.pagination).to.deep.equal({ page: 1, limit: 1, total: 5, totalPages: 1 });
  });

  it('a grant sharing no word with another has an empty list', async function () {
    const res = await api.request(`${G}/filler-00/similar`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.pagination).to.deep.equal({ page: 1, limit: 10, total: 0, totalPages: 0 });
  });

  it('an unknown id is a 404 in the envelope; bad parameters are a 400 naming them', async function () {
    expectError(await api.request(`${G}/nothere/similar`), 404, 'NOT_FOUND', { contentType: true });
    expectError(await api.request(`${G}/${'x'.repeat(300)}/similar`), 404, 'NOT_FOUND');
    expectValidation(await api.request(`${G}/src/similar?limit=51`, { invalidRequest: true }), ['limit']);
    expectValidation(await api.request(`${G}/src/similar?limit=0`, { invalidRequest: true }), ['limit']);
    expectValidation(await api.request(`${G}/src/similar?search=kelp&page=2&sort=title`, { invalidRequest: true }), [
      'search',
      'page',
      'sort',
    ]);
    expectValidation(await api.request(`${G}/src/similar?fields=nope`, { invalidRequest: true }), ['fields']);
  });

  it('needs the grants:search scope, and is billed like a search', async function () {
    const make = (scopes: string[]) =>
      api.request(`${P}/keys`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: scopes.join(' '), scopes }),
      });
    const reader = await make(['grants:read']);
    expect(reader.status, reader.text).to.equal(201);
    expectError(await api.request(`${G}/src/similar`, { key: reader.body.data.apiKey }), 403, 'SCOPE_NOT_ALLOWED');
    const searcher = await make(['grants:search']);
    expect((await api.request(`${G}/src/similar`, { key: searcher.body.data.apiKey })).status).to.equal(200);
    const usage = await api.request(`${P}/subscription/usage?days=1`);
    expect(usage.body.data.statistics.daily.at(-1).byEndpoint['/grants/:id/similar']).to.be.at.least(1);
  });
});
