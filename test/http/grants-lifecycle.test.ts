// A grant's lifecycle through the HTTP API, on both engines: opensAt and the status derived at the
// time of the request (FORECASTED, OPEN, CLOSED) on every grant object, the status filter and facet,
// open=true as status OPEN, the opensAt sort, and time passing: the API's clock is moved across an
// opensAt and a deadline between requests, and every answer (pages, cursors, facets, the grant by
// id, exports, the changes feed) follows it with no stale status kept anywhere.
import { expect } from 'chai';
import { validateGrant, type Grant } from '../../src/grants/schema.js';
import type { TestResponse } from '../support/api.js';
import { expectValidation } from '../support/assertions.js';
import { describeOnEachEngine, type EngineUnderTest } from '../support/eachEngine.js';
import { GRANTS_PATH as G, grantRecord } from '../support/catalog.js';

const HOUR = 3_600_000;
const T = Date.parse('2026-06-15T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** At T: two forecasted (opening in 1 h and in 5 h), three open (opened, never said, rolling), two closed. */
const RECORDS = [
  grantRecord('f-soon', { opensAt: iso(T + HOUR), deadline: iso(T + 100 * HOUR), eligibleProvinces: ['ONTARIO'] }),
  grantRecord('f-later', { opensAt: iso(T + 5 * HOUR), deadline: iso(T + 200 * HOUR), eligibleProvinces: ['QUEBEC'] }),
  grantRecord('o-opened', { opensAt: iso(T - HOUR), deadline: iso(T + 2 * HOUR), eligibleProvinces: ['ONTARIO'] }),
  grantRecord('o-plain', { deadline: iso(T + 50 * HOUR), eligibleProvinces: ['QUEBEC'] }),
  grantRecord('o-rolling', { eligibleProvinces: ['ONTARIO'] }),
  grantRecord('c-past', { opensAt: iso(T - 100 * HOUR), deadline: iso(T - HOUR), eligibleProvinces: ['ONTARIO'] }),
  grantRecord('c-plain', { deadline: iso(T - 2 * HOUR), eligibleProvinces: ['QUEBEC'] }),
];

const grants = (): Grant[] =>
  RECORDS.map((record) => {
    const result = validateGrant(record);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    return result.grant;
  });

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

/** The clock of the API under test, moved by the cases. */
let now = T;
const clock = () => new Date(now);

function suite(engine: EngineUnderTest): void {
  const get = async (query: string) => ok(await engine.api().request(`${G}?${query}`));
  const ids = async (query: string) => ((await get(query)).body.data as { id: string }[]).map((g) => g.id);
  const statusFacet = async (query: string) => (await get(`${query}&facets=status&limit=0`)).body.facets.status;

  before(async () => {
    await engine.reindex(grants());
  });
  beforeEach(() => {
    now = T;
  });

  it('every grant carries opensAt and its status at the time of the request, last', async () => {
    const res = await get('limit=100&sort=title');
    const byId = Object.fromEntries((res.body.data as { id: string; status: string }[]).map((g) => [g.id, g]));
    expect(Object.fromEntries(Object.entries(byId).map(([id, g]) => [id, g.status]))).to.deep.equal({
      'c-past': 'CLOSED',
      'c-plain': 'CLOSED',
      'f-later': 'FORECASTED',
      'f-soon': 'FORECASTED',
      'o-opened': 'OPEN',
      'o-plain': 'OPEN',
      'o-rolling': 'OPEN',
    });
    expect(Object.keys(byId['f-soon']).at(-1)).to.equal('status');
    expect(byId['f-soon']).to.include({ opensAt: iso(T + HOUR) });
    expect(byId['o-plain']).to.include({ opensAt: null });
    const one = ok(await engine.api().request(`${G}/f-soon`));
    expect(one.body.data).to.deep.equal(byId['f-soon']);
  });

  it('status filters as a list (union within, intersection with the others); open=true is status OPEN', async () => {
    expect(await ids('status=FORECASTED')).to.deep.equal(['f-soon', 'f-later']);
    expect(await ids('status=FORECASTED,CLOSED&eligibleProvinces=ONTARIO')).to.deep.equal(['c-past', 'f-soon']);
    expect(await ids('open=true')).to.deep.equal(['o-opened', 'o-plain', 'o-rolling']);
    expect(await ids('status=OPEN')).to.deep.equal(await ids('open=true'));
    expect(await ids('open=false')).to.deep.equal(['c-plain', 'c-past', 'f-soon', 'f-later']);
    expect(await ids('open=true&status=FORECASTED')).to.deep.equal([]);
  });

  it('the status facet: counted without the status filter, with open and the other filters', async () => {
    expect(await statusFacet('status=CLOSED')).to.deep.equal([
      { value: 'OPEN', count: 3 },
      { value: 'CLOSED', count: 2 },
      { value: 'FORECASTED', count: 2 },
    ]);
    expect(await statusFacet('eligibleProvinces=QUEBEC')).to.deep.equal([
      { value: 'CLOSED', count: 1 },
      { value: 'FORECASTED', count: 1 },
      { value: 'OPEN', count: 1 },
    ]);
    expect(await statusFacet('open=true')).to.deep.equal([{ value: 'OPEN', count: 3 }]);
  });

  it('sort=opensAt: the forecasted grants opening soonest first, grants without opensAt last either way', async () => {
    expect(await ids('status=FORECASTED&sort=opensAt')).to.deep.equal(['f-soon', 'f-later']);
    expect(await ids('sort=-opensAt')).to.deep.equal([
      'f-later',
      'f-soon',
      'o-opened',
      'c-past',
      'c-plain',
      'o-plain',
      'o-rolling',
    ]);
  });

  it('time passing: at opensAt a grant opens, at its deadline it closes, and every answer follows the clock', async () => {
    const before = await get('status=FORECASTED&facets=status');
    const tag = before.headers.get('etag');
    now = T + HOUR - 1;
    expect(await ids('status=FORECASTED')).to.deep.equal(['f-soon', 'f-later']);
    now = T + HOUR; // f-soon's opensAt
    expect(await ids('status=FORECASTED')).to.deep.equal(['f-later']);
    expect(await ids('open=true&eligibleProvinces=ONTARIO')).to.deep.equal(['o-opened', 'f-soon', 'o-rolling']);
    expect(ok(await engine.api().request(`${G}/f-soon`)).body.data.status).to.equal('OPEN');
    const after = await get('status=FORECASTED&facets=status');
    expect(after.headers.get('etag')).to.not.equal(tag);
    expect(after.body.facets.status).to.deep.equal([
      { value: 'OPEN', count: 4 },
      { value: 'CLOSED', count: 2 },
      { value: 'FORECASTED', count: 1 },
    ]);
    now = T + 2 * HOUR + 1; // past o-opened's deadline
    expect(await ids('status=CLOSED')).to.deep.equal(['c-plain', 'c-past', 'o-opened']);
    now = T; // and back: nothing was kept from the later answers
    expect(await statusFacet('eligibleProvinces=ONTARIO')).to.deep.equal([
      { value: 'OPEN', count: 2 },
      { value: 'CLOSED', count: 1 },
      { value: 'FORECASTED', count: 1 },
    ]);
  });

  it('cursor paging by status walks every match once, at the time of each page', async () => {
    const walk: string[] = [];
    let res = await get('status=OPEN,FORECASTED&limit=2&cursor=*');
    for (;;) {
      walk.push(...(res.body.data as { id: string }[]).map((g) => g.id));
      const next = res.body.pagination.nextCursor as string | null;
      if (next === null) break;
      res = await get(`status=OPEN,FORECASTED&limit=2&cursor=${next}`);
    }
    expect(walk).to.deep.equal(['o-opened', 'o-plain', 'f-soon', 'f-later', 'o-rolling']);
    // A cursor of one status list is not a cursor of another.
    const first = await get('status=OPEN&limit=2&cursor=*');
    const other = await engine
      .api()
      .request(`${G}?status=CLOSED&limit=2&cursor=${first.body.pagination.nextCursor}`, { invalidRequest: true });
    expectValidation(other, ['cursor']);
  });

  it('exports and the changes feed carry the status at the time of the request', async () => {
    const ndjson = ok(await engine.api().request(`${G}/export?status=FORECASTED&fields=opensAt,status`));
    expect(
      ndjson.text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
    ).to.deep.equal([
      { id: 'f-soon', opensAt: iso(T + HOUR), status: 'FORECASTED' },
      { id: 'f-later', opensAt: iso(T + 5 * HOUR), status: 'FORECASTED' },
    ]);
    const csv = ok(await engine.api().request(`${G}/export?format=csv&status=CLOSED`));
    const [header, first] = csv.text.split('\r\n');
    expect(header.split(',').at(-1)).to.equal('status');
    expect(header.split(',')).to.include('opensAt');
    expect(first.split(',').at(-1)).to.equal('CLOSED');
    const changes = ok(await engine.api().request(`${G}/changes?since=0&limit=100`));
    const fromFeed = Object.fromEntries(
      (changes.body.data as { id: string; grant: { status: string } }[]).map((e) => [e.id, e.grant.status]),
    );
    expect(fromFeed['f-soon']).to.equal('FORECASTED');
    now = T + HOUR;
    const later = ok(await engine.api().request(`${G}/changes?since=0&limit=100`));
    expect(
      (later.body.data as { id: string; grant: { status: string } }[]).find((e) => e.id === 'f-soon')!.grant.status,
    ).to.equal('OPEN');
  });

  it('a status outside FORECASTED, OPEN, CLOSED is a 400 naming status', async () => {
    expectValidation(await engine.api().request(`${G}?status=ARCHIVED`, { invalidRequest: true }), ['status']);
    expectValidation(await engine.api().request(`${G}?status=open`, { invalidRequest: true }), ['status']);
  });
}

describeOnEachEngine('a grant lifecycle over HTTP', suite, { env: { SEED_CATALOG: 'false' }, api: { clock } });
