// GET /grants `highlight`, `highlightPreTag`, `highlightPostTag` and `crop` on the embedded engine,
// over a catalog written for them (test/support/highlightCatalog.ts): the matched words marked as
// the search matched them (stems, French, synonyms, typos), the rest escaped, the crop, `fields`
// and cursor pages, the MCP tool, and every bad value a 400 naming it. Both engines alike:
// test/elasticsearch/highlights-parity.test.ts.
import { expect } from 'chai';
import { GRANTS_PATH as G, startCatalogApi, stopCatalogApi, type GrantRecord } from '../support/catalog.js';
import { expectValidation } from '../support/assertions.js';
import { HIGHLIGHT_GRANTS, HIGHLIGHT_IDS as H } from '../support/highlightCatalog.js';
import type { TestApi, TestResponse } from '../support/api.js';
import type { CheckOptions } from '../support/checkedFetch.js';

type Highlighted = GrantRecord & { id: string; highlights?: Record<string, string | null> };

const ok = (res: TestResponse): Highlighted[] => {
  expect(res.status, res.text).to.equal(200);
  return res.body.data as Highlighted[];
};

describe('GET /grants: highlight and crop [sqlite]', function () {
  this.timeout(60_000);
  let api: TestApi;
  const get = (query: string, check: CheckOptions = {}) => api.request(`${G}?${query}`, check);
  /** A request the OpenAPI document refuses, sent on purpose. */
  const refused = (query: string) => get(query, { invalidRequest: true });
  /** The highlights of one grant for a query. */
  const highlightsOf = async (id: string, query: string): Promise<Record<string, string | null>> => {
    const grant = ok(await get(query)).find((g) => g.id === id);
    expect(grant, `${id} in the answer to ${query}`).to.not.equal(undefined);
    return grant!.highlights!;
  };

  before(async () => {
    api = await startCatalogApi(HIGHLIGHT_GRANTS, { prefix: 'grants-highlights-' });
  });
  after(async () => stopCatalogApi(api));

  it('marks each word the search matched, in each field asked, and nothing else', async () => {
    const h = await highlightsOf(H.energy, 'search=energy&highlight=title,funder');
    expect(h).to.deep.equal({ title: 'Clean <mark>Energy</mark> Fund', funder: 'Natural Resources Canada' });
  });

  it('every form of a word (English stem), a phrase only where adjacent, an exclusion never', async () => {
    expect((await highlightsOf(H.energy, 'search=installation&highlight=description')).description).to.contain(
      'solar <mark>installations</mark> &amp; energy',
    );
    const phrase = (await highlightsOf(H.energy, 'search=%22energy%20storage%22&highlight=description')).description!;
    expect(phrase).to.contain('<mark>energy</mark> <mark>storage</mark>');
    expect(phrase).to.contain(' Energy audits');
    expect((await highlightsOf(H.emploi, 'search=employment%20-storage&highlight=title')).title).to.equal(
      'Youth <mark>Employment</mark> Program',
    );
  });

  it('French: the light stem, accents folded, the elided article outside the mark', async () => {
    const h = await highlightsOf(H.emploi, 'search=emplois%20regions&highlight=titleFr,descriptionFr,description');
    expect(h).to.deep.equal({
      description: 'Supports youth employment in rural <mark>regions</mark>.',
      titleFr: 'Programme d&#39;<mark>emploi</mark> des jeunes',
      descriptionFr:
        'Ce programme soutient l&#39;<mark>emploi</mark> des jeunes dans les <mark>régions</mark> rurales.',
    });
  });

  it('the synonyms and the typo alternatives the search ran with', async () => {
    expect((await highlightsOf(H.nonprofit, 'search=nonprofit&highlight=description')).description).to.equal(
      'Open to <mark>not</mark>-<mark>for</mark>-<mark>profit</mark> organizations and registered charities.',
    );
    expect(ok(await get('search=nonprofit&synonyms=false&highlight=description'))).to.deep.equal([]);
    expect((await highlightsOf(H.energy, 'search=enrgy&typos=auto&highlight=title')).title).to.equal(
      'Clean <mark>Energy</mark> Fund',
    );
  });

  it("HTML in the text comes back escaped; the tags are the request's", async () => {
    const h = await highlightsOf(
      H.hostile,
      'search=solar%20arts&highlight=title,description&highlightPreTag=%3Cem%3E&highlightPostTag=%3C%2Fem%3E',
    );
    expect(h.title).to.equal('<em>Arts</em> &lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Quoted&quot; Fund');
    expect(h.description).to.equal(
      '&lt;script&gt;window.__pwned = true&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = ' +
        'true&quot;&gt;<em>Solar</em> panels for community <em>arts</em> centres.',
    );
  });

  it('crop: the passage of that many words with the most matched words, … where cut, highlighted without `highlight`', async () => {
    const h = await highlightsOf(H.energy, 'search=solar%20energy&crop=description:8');
    expect(h).to.deep.equal({
      description: '…It funds <mark>solar</mark> installations &amp; <mark>energy</mark> storage for community…',
    });
    const whole = await highlightsOf(H.emploi, 'search=youth&crop=description:40&highlight=description');
    expect(whole.description).to.equal('Supports <mark>youth</mark> employment in rural regions.');
  });

  it('with `fields`, the highlights still come, last; a field the grant leaves empty is null; no search, no mark', async () => {
    const [grant] = ok(await get(`search=energy&fields=id,deadline&highlight=title,titleFr`));
    expect(Object.keys(grant)).to.deep.equal(['id', 'deadline', 'highlights']);
    expect(grant.highlights).to.deep.equal({ title: 'Clean <mark>Energy</mark> Fund', titleFr: null });
    const plain = ok(await get('highlight=title&fields=id&limit=10'));
    expect(plain.map((g) => g.highlights!.title)).to.include(
      'Arts &lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Quoted&quot; Fund',
    );
    expect(plain.every((g) => !g.highlights!.title!.includes('<mark>'))).to.equal(true);
    expect(ok(await get('search=energy&fields=id')).every((g) => !('highlights' in g))).to.equal(true);
  });

  it('cursor pages carry the highlights too', async () => {
    const first = await get('search=community&cursor=*&limit=1&highlight=title&fields=id');
    const [a] = ok(first);
    expect(a.highlights!.title).to.contain('<mark>Community</mark>');
    const next = await get(
      `search=community&limit=1&highlight=title&fields=id&` +
        `cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`,
    );
    const [b] = ok(next);
    expect(b.id).to.not.equal(a.id);
    expect(b.highlights!.title).to.be.a('string');
  });

  it('a bad highlight, tag or crop is a 400 naming the parameter and the value', async () => {
    const unknown = expectValidation(await refused('search=energy&highlight=title,summary'), ['highlight']);
    expect(unknown[0].message).to.contain('"summary"');
    expectValidation(await refused(`highlightPreTag=${'x'.repeat(33)}&highlightPostTag=${'y'.repeat(33)}`), [
      'highlightPreTag',
      'highlightPostTag',
    ]);
    expect(
      ok(await get(`search=energy&highlight=title&highlightPreTag=${'x'.repeat(32)}`))[0].highlights!.title,
    ).to.contain(`${'x'.repeat(32)}Energy`);
    for (const [crop, named] of [
      ['description', 'description'],
      ['summary:10', '"summary"'],
      ['description:0', 'description:0'],
      ['description:201', 'description:201'],
      ['description:ten', 'description:ten'],
      ['description:5,description:6', 'twice'],
    ]) {
      const [detail] = expectValidation(await refused(`search=energy&crop=${encodeURIComponent(crop)}`), ['crop']);
      expect(detail.message, crop).to.contain(named);
    }
    expectValidation(await refused(`crop=${'description:1,'.repeat(20)}`), ['crop']);
  });
});
