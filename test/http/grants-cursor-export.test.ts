// Cursor paging on GET /grants and GET /grants/export, through the real HTTP API on
// both engines: one suite body, run over the embedded SQLite engine and over Elasticsearch. The
// orders are checked against offset paging of the same engine (whose order the search suites prove);
// a reindex in the middle of a walk, CSV quoting and formula neutralising use catalogs of their own.
import { expect } from 'chai';
import { apiLayers } from '../../src/app.js';
import { grantStatus } from '../../src/grants/lifecycle.js';
import type { Grant } from '../../src/grants/schema.js';
import { validateGrant } from '../../src/grants/schema.js';
import { fixtureGrants, startTestApi, type TestApi, type TestResponse } from '../support/api.js';
import { expectValidation } from '../support/assertions.js';
import { describeOnEachEngine, type EngineUnderTest } from '../support/eachEngine.js';
import { GRANTS_PATH as G, ITEM_LABELS, recordMaker, type GrantRecord } from '../support/catalog.js';
import { checkOutgoing } from '../support/checkedFetch.js';

const EXPORT = `${G}/export`;
const rec = recordMaker(ITEM_LABELS);

const canonical = (records: readonly GrantRecord[]): Grant[] =>
  records.map((record) => {
    const checked = validateGrant(record);
    if (!checked.ok) throw new Error(`test record invalid: ${JSON.stringify(checked.problems)}`);
    return checked.grant;
  });

const ok = (res: TestResponse): TestResponse => {
  expect(res.status, res.text).to.equal(200);
  return res;
};

/** Every id of a query by offset paging (limit 100): the order cursor paging must give. */
async function offsetIds(api: TestApi, query: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = ok(await api.request(`${G}?${query}&limit=100&page=${page}`));
    ids.push(...res.body.data.map((g: Grant) => g.id));
    if (page >= res.body.pagination.totalPages) return ids;
  }
}

interface Walk {
  ids: string[];
  pages: TestResponse[];
}

/** A cursor walk to the end; `between` runs after the page of that number (to change the catalog mid-walk). */
async function walk(api: TestApi, query: string, between?: (page: number) => Promise<void>): Promise<Walk> {
  const pages: TestResponse[] = [];
  const ids: string[] = [];
  let cursor = '*';
  for (let n = 1; n < 10_000; n++) {
    const res = ok(await api.request(`${G}?${query}&cursor=${encodeURIComponent(cursor)}`));
    pages.push(res);
    ids.push(...res.body.data.map((g: Grant) => g.id));
    expect(res.body.pagination.page).to.equal(n);
    const next = res.body.pagination.nextCursor;
    if (next === null) return { ids, pages };
    expect(next).to.match(/^[A-Za-z0-9_-]+$/);
    await between?.(n);
    cursor = next;
  }
  throw new Error('the walk never ended');
}

/** RFC 4180 parsing (quoted fields, doubled quotes, CRLF rows): what a spreadsheet reads. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) throw new Error('the CSV does not end with CRLF');
  return rows;
}

const SORTS = [
  'deadline',
  '-deadline',
  'amountMin',
  '-amountMin',
  'amountMax',
  '-amountMax',
  'title',
  '-title',
  'createdAt',
  '-updatedAt',
];

function suite(engine: EngineUnderTest): void {
  const api = () => engine.api();

  describe('cursor paging', function () {
    for (const sort of SORTS) {
      it(`sort=${sort}: the walk gives every match once, in the order offset paging gives, pages counted 1, 2, 3 …`, async function () {
        const expected = await offsetIds(api(), `sort=${sort}`);
        const { ids, pages } = await walk(api(), `sort=${sort}&limit=37`);
        expect(ids).to.deep.equal(expected);
        expect(pages).to.have.length(Math.ceil(expected.length / 37));
        for (const page of pages) {
          expect(page.body.pagination).to.include({
            limit: 37,
            total: expected.length,
            totalPages: Math.ceil(expected.length / 37),
          });
        }
      });
    }

    it('with filters and search words sorted by a key, and by relevance: the same order as offset paging', async function () {
      for (const query of [
        'funderType=FOUNDATION,CORPORATE&amountMin=1000&sort=-amountMax',
        'search=business&sort=deadline',
        'search=program',
        'search=business&facets=funderType',
      ]) {
        const expected = await offsetIds(api(), query);
        expect(expected.length, query).to.be.greaterThan(0);
        const { ids, pages } = await walk(api(), `${query}&limit=7`);
        expect(ids, query).to.deep.equal(expected);
        if (query.includes('facets')) expect(pages[0].body.facets.funderType).to.be.an('array').that.is.not.empty;
      }
    });

    it('a query with no match: one empty page, nextCursor null', async function () {
      const res = ok(await api().request(`${G}?search=zzzqqqxxx&cursor=*`));
      expect(res.body.data).to.deep.equal([]);
      expect(res.body.pagination).to.deep.equal({ page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null });
    });

    it('the last page has nextCursor null even when it is full; offset pages carry no nextCursor', async function () {
      const total = ok(await api().request(`${G}?limit=1`)).body.pagination.total as number;
      expect(ok(await api().request(`${G}?limit=1`)).body.pagination).to.not.have.property('nextCursor');
      const limit = [100, 75, 60, 50, 40, 30, 25, 20, 10, 5, 2, 1].find((d) => total % d === 0 && total > d) as number;
      const { pages } = await walk(api(), `limit=${limit}`);
      expect(pages).to.have.length(total / limit);
      expect(pages[pages.length - 1].body.data).to.have.length(limit);
    });

    it('a cursor is bound to its query: other filters, search, sort or limit are a 400; other fields are not', async function () {
      const first = ok(await api().request(`${G}?funderType=FOUNDATION&sort=amountMin&limit=5&cursor=*`));
      const cursor = first.body.pagination.nextCursor as string;
      expect(cursor).to.be.a('string');
      for (const other of [
        'funderType=CORPORATE&sort=amountMin&limit=5',
        'funderType=FOUNDATION&sort=amountMax&limit=5',
        'funderType=FOUNDATION&sort=amountMin&limit=6',
        'funderType=FOUNDATION&sort=amountMin&limit=5&search=x',
        'sort=amountMin&limit=5',
      ]) {
        const res = await api().request(`${G}?${other}&cursor=${cursor}`, { invalidRequest: true });
        expectValidation(res, ['cursor']);
        expect(res.body.error.details[0].message).to.match(/another query/);
      }
      const same = ok(
        await api().request(`${G}?sort=amountMin&funderType=FOUNDATION&limit=5&fields=title&cursor=${cursor}`),
      );
      expect(same.body.pagination.page).to.equal(2);
      expect(Object.keys(same.body.data[0])).to.deep.equal(['id', 'title']);
    });

    it('page with cursor is a 400; a cursor the API never gave is a 400', async function () {
      expectValidation(await api().request(`${G}?cursor=*&page=1`, { invalidRequest: true }), ['page']);
      const next = ok(await api().request(`${G}?cursor=*`)).body.pagination.nextCursor as string;
      expectValidation(await api().request(`${G}?cursor=${next}&page=2`, { invalidRequest: true }), ['page']);
      const forged = Buffer.from(JSON.stringify({ v: 1, q: 'x', p: 2, k: 1, i: 'a' })).toString('base64url');
      for (const bad of [
        'abc',
        '%2A%2A',
        'e30',
        forged,
        'x'.repeat(5000),
        Buffer.from('[1,2]').toString('base64url'),
      ]) {
        const res = await api().request(`${G}?cursor=${bad}`, { invalidRequest: true });
        expect(res.status, bad).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      }
    });

    it('across a reindex (non-text sort): every grant unchanged during the walk returned exactly once', async function () {
      const before = fixtureGrants();
      try {
        for (const sort of ['deadline', '-amountMin', 'title']) {
          const visited: string[] = [];
          // The new catalog: a fifth of the grants dropped, a fifth changed (a new deadline, amount and
          // title, so they move in every order), and 50 new grants.
          const dropped = new Set(before.filter((_, i) => i % 5 === 1).map((g) => g.id));
          const changed = new Set(before.filter((_, i) => i % 5 === 2).map((g) => g.id));
          const next = canonical(<GrantRecord[]>[
            ...before
              .filter((g) => !dropped.has(g.id))
              .map((g, i) =>
                changed.has(g.id)
                  ? {
                      ...g,
                      title: `Zz moved ${i}`,
                      deadline: `2031-0${(i % 9) + 1}-01T00:00:00.000Z`,
                      amountMin: (i * 7919) % 100000,
                      amountMax: 200000,
                      updatedAt: '2026-11-01T00:00:00.000Z',
                    }
                  : g,
              ),
            ...Array.from({ length: 50 }, (_, i) =>
              rec(`new-${String(i).padStart(2, '0')}`, {
                deadline: `2027-0${(i % 9) + 1}-15T00:00:00.000Z`,
                amountMin: i * 1000,
              }),
            ),
          ]);
          const { ids } = await walk(api(), `sort=${sort}&limit=40`, async (page) => {
            if (page === 4) await engine.reindex(next);
          });
          visited.push(...ids);
          // An unchanged grant comes once; only a grant whose sort key changed may come again, at its new place.
          const twice = visited.filter((id, i) => visited.indexOf(id) !== i);
          expect(
            twice.filter((id) => !changed.has(id)),
            `${sort}: an unchanged grant came twice`,
          ).to.deep.equal([]);
          const unchanged = before.filter((g) => !dropped.has(g.id) && !changed.has(g.id)).map((g) => g.id);
          const missing = unchanged.filter((id) => !visited.includes(id));
          expect(missing, `${sort}: unchanged grants skipped`).to.deep.equal([]);
          await engine.reindex(before);
        }
      } finally {
        await engine.reindex(before);
      }
    });
  });

  describe('GET /grants/export', function () {
    it('NDJSON by default: every match in order, X-Export-Count, attachment headers', async function () {
      const query = 'funderType=FOUNDATION,FEDERAL_GRANT&sort=-deadline';
      const expected = await offsetIds(api(), query);
      const res = ok(await api().request(`${EXPORT}?${query}`));
      expect(res.headers.get('content-type')).to.equal('application/x-ndjson');
      expect(res.headers.get('content-disposition')).to.match(
        /^attachment; filename="grants-\d{4}-\d{2}-\d{2}\.ndjson"$/,
      );
      expect(res.headers.get('x-export-count')).to.equal(String(expected.length));
      expect(res.text.endsWith('\n')).to.equal(true);
      const lines = res.text.split('\n').slice(0, -1);
      expect(lines.map((line) => JSON.parse(line).id)).to.deep.equal(expected);
      const byId = new Map(fixtureGrants().map((g) => [g.id, g]));
      for (const line of lines) {
        // The stored grant, then its status at the time of the request (none of the fixtures' dates falls within this
        // test).
        const { status, ...stored } = JSON.parse(line);
        expect(stored).to.deep.equal(byId.get(stored.id));
        expect(status).to.equal(grantStatus(stored, Date.now()));
      }
    });

    it('every grant of the catalog, with fields and relevance as in /grants', async function () {
      const all = ok(await api().request(EXPORT));
      expect(Number(all.headers.get('x-export-count'))).to.equal(fixtureGrants().length);
      expect(all.text.split('\n').slice(0, -1)).to.have.length(fixtureGrants().length);
      const expected = await offsetIds(api(), 'search=business');
      const some = ok(await api().request(`${EXPORT}?search=business&fields=title,deadline`));
      const lines = some.text
        .split('\n')
        .slice(0, -1)
        .map((line) => JSON.parse(line));
      expect(lines.map((g) => g.id)).to.deep.equal(expected);
      for (const g of lines) expect(Object.keys(g)).to.deep.equal(['id', 'title', 'deadline']);
    });

    it('CSV: a header row, one row per grant, lists joined with |, the same values as the JSON', async function () {
      const res = ok(
        await api().request(
          `${EXPORT}?format=csv&sort=title&fields=isRecurring,title,amountMin,eligibleProvinces,deadline`,
        ),
      );
      expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="grants-\d{4}-\d{2}-\d{2}\.csv"$/);
      const rows = parseCsv(res.text);
      // Columns in the grant's canonical field order, whatever the order asked.
      expect(rows[0]).to.deep.equal(['id', 'title', 'amountMin', 'deadline', 'eligibleProvinces', 'isRecurring']);
      expect(rows.length - 1).to.equal(Number(res.headers.get('x-export-count')));
      const byId = new Map(fixtureGrants().map((g) => [g.id, g]));
      expect(rows.slice(1).map((r) => r[0])).to.deep.equal(await offsetIds(api(), 'sort=title'));
      for (const [id, title, amountMin, deadline, provinces, recurring] of rows.slice(1)) {
        const g = byId.get(id)!;
        expect(title.replace(/^'(?=[=+\-@\t\r])/, '')).to.equal(g.title);
        expect(amountMin).to.equal(g.amountMin === null ? '' : String(g.amountMin));
        expect(provinces).to.equal(g.eligibleProvinces.join('|'));
        expect(recurring).to.equal(g.isRecurring === null ? '' : String(g.isRecurring));
        expect(deadline).to.equal(g.deadline ?? '');
      }
    });

    it('CSV quoting (RFC 4180) and formula neutralising (OWASP) on hostile titles', async function () {
      const hostile: Record<string, string> = {
        h1: '=HYPERLINK("http://x","click")',
        h2: '+1+2',
        h3: '-2+3',
        h4: '@SUM(A1:A2)',
        h5: '\tTabbed',
        h6: '\rCarriage',
        h7: 'Comma, "quoted" and\nnewline',
        h8: 'Plain title',
      };
      const before = fixtureGrants();
      try {
        await engine.reindex(
          canonical(
            Object.entries(hostile).map(([id, title]) => rec(id, { title, funder: '=cmd|calc', description: '@x' })),
          ),
        );
        const res = ok(await api().request(`${EXPORT}?format=csv&sort=title&fields=title,funder,description`));
        const rows = parseCsv(res.text);
        expect(rows).to.have.length(9);
        const column = (name: string) => rows[0].indexOf(name);
        const byId = new Map(rows.slice(1).map((r) => [r[0], r]));
        for (const [id, title] of Object.entries(hostile)) {
          const row = byId.get(id)!;
          const [cellTitle, funder, description] = [
            row[column('title')],
            row[column('funder')],
            row[column('description')],
          ];
          expect(cellTitle, id).to.equal(/^[=+\-@\t\r]/.test(title) ? `'${title}` : title);
          expect(funder).to.equal("'=cmd|calc");
          expect(description).to.equal("'@x");
        }
        // No cell as sent starts a formula: each hostile one is quoted and begins with the apostrophe.
        expect(res.text).to.include(`"'=HYPERLINK(""http://x"",""click"")"`);
        expect(res.text).to.include('"Comma, ""quoted"" and\nnewline"');
      } finally {
        await engine.reindex(before);
      }
    });

    it('bad parameters: a 400 in the envelope; paging and facets are not parameters of the export', async function () {
      expectValidation(await api().request(`${EXPORT}?format=xml`, { invalidRequest: true }), ['format']);
      expectValidation(await api().request(`${EXPORT}?page=2`, { invalidRequest: true }), ['page']);
      expectValidation(await api().request(`${EXPORT}?cursor=*`, { invalidRequest: true }), ['cursor']);
      expectValidation(await api().request(`${EXPORT}?amountMin=5&amountMax=1`, { invalidRequest: true }), [
        'amountMin',
      ]);
    });

    it('HEAD: the headers of the export, no body', async function () {
      const res = ok(await api().request(EXPORT, { method: 'HEAD' }));
      expect(res.headers.get('x-export-count')).to.equal(String(fixtureGrants().length));
      expect(res.text).to.equal('');
    });

    it('one consistent snapshot: a reindex during the stream changes nothing in it', async function () {
      const before = fixtureGrants();
      const big = canonical(
        Array.from({ length: 6000 }, (_, i) =>
          rec(`big-${String(i).padStart(5, '0')}`, { description: 'x'.repeat(900) }),
        ),
      );
      try {
        await engine.reindex(big);
        // Read as a stream, part by part: the request is checked against the document, the answer by hand.
        const request = new Request(`${api().url}${EXPORT}`, { headers: { Authorization: `Bearer ${api().key}` } });
        await checkOutgoing(request);
        const response = await fetch(request);
        expect(response.status).to.equal(200);
        expect(response.headers.get('x-export-count')).to.equal('6000');
        const reader = response.body!.getReader();
        const first = await reader.read();
        expect(first.done).to.equal(false);
        await engine.reindex(before);
        let text = Buffer.from(first.value!).toString('utf8');
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += Buffer.from(chunk.value).toString('utf8');
        }
        const ids = text
          .split('\n')
          .slice(0, -1)
          .map((line) => JSON.parse(line).id);
        expect(ids).to.deep.equal(big.map((g) => g.id));
        expect(ok(await api().request(`${G}?limit=1`)).body.pagination.total).to.equal(before.length);
      } finally {
        await engine.reindex(before);
      }
    });

    it('the grants.export feature: off for STARTER and PROFESSIONAL (403 FEATURE_NOT_AVAILABLE), on for ENTERPRISE, switched per subscription', async function () {
      const store = api().deps.subscriptions;
      for (const tier of ['STARTER', 'PROFESSIONAL'] as const) {
        const { subscription, apiKey } = store.create({ name: `export ${tier}`, tier });
        const refused = await api().request(`${EXPORT}?format=csv`, { key: apiKey });
        expect(refused.status, refused.text).to.equal(403);
        expect(refused.body.error.code).to.equal('FEATURE_NOT_AVAILABLE');
        expect(
          ok(await api().request('/external/v1/subscription/limits', { key: apiKey })).body.data.features.grants,
        ).to.deep.equal({ read: true, search: true, export: false });
        expect(store.setFeature(subscription.id, 'grants.export', true)).to.equal(true);
        const served = ok(await api().request(`${EXPORT}?format=csv`, { key: apiKey }));
        expect(Number(served.headers.get('x-export-count'))).to.equal(fixtureGrants().length);
        expect(
          ok(await api().request('/external/v1/subscription/limits', { key: apiKey })).body.data.features.grants.export,
        ).to.equal(true);
      }
      const enterprise = store.create({ name: 'export enterprise', tier: 'ENTERPRISE' });
      ok(await api().request(EXPORT, { key: enterprise.apiKey }));
      store.setFeature(enterprise.subscription.id, 'grants.export', false);
      const off = await api().request(EXPORT, { key: enterprise.apiKey });
      expect(off.status).to.equal(403);
      expect(off.body.error.code).to.equal('FEATURE_NOT_AVAILABLE');
    });

    it('one export counts as one call', async function () {
      const calls = async () =>
        ok(await api().request('/external/v1/subscription/limits')).body.data.limits.monthly.current as number;
      const start = await calls();
      ok(await api().request(`${EXPORT}?format=csv`));
      expect(await calls()).to.equal(start + 1);
    });
  });
}

describeOnEachEngine('cursor paging and export', suite);

// A failure after the first grants were sent cannot change the status: the connection is closed, so
// the partner holds fewer grants than X-Export-Count said (and an unterminated response).
describe('GET /grants/export: a failure mid-stream [sqlite]', function () {
  this.timeout(60_000);
  let api: TestApi;
  let logged = '';
  before(async () => {
    const logDestination = { write: (line: string) => void (logged += line) };
    api = await startTestApi(
      { LOG_LEVEL: 'info' },
      {
        logDestination,
        layers: (deps) =>
          apiLayers({
            ...deps,
            engine: {
              ...deps.engine,
              name: deps.engine.name,
              // The real export, whose reading fails after its first batch.
              async exportJson(query) {
                const real = await deps.engine.exportJson(query);
                return {
                  total: real.total,
                  close: real.close,
                  batches: (async function* () {
                    for await (const batch of real.batches) {
                      yield batch;
                      throw new Error('the disk went away');
                    }
                  })(),
                };
              },
            },
          }),
      },
    );
  });
  after(async () => {
    await api?.stop();
  });

  it('the stream stops: fewer grants than the count, the response cut, the failure logged', async function () {
    // Read as a stream that breaks: the request is checked against the document, the cut answer by hand.
    const request = new Request(`${api.url}${EXPORT}`, { headers: { Authorization: `Bearer ${api.key}` } });
    await checkOutgoing(request);
    const response = await fetch(request);
    expect(response.status).to.equal(200);
    const count = Number(response.headers.get('x-export-count'));
    expect(count).to.equal(fixtureGrants().length);
    const reader = response.body!.getReader();
    let text = '';
    let cut = false;
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += Buffer.from(chunk.value).toString('utf8');
      }
    } catch {
      cut = true;
    }
    expect(cut, 'the response ended normally').to.equal(true);
    const lines = text.split('\n').filter((line) => line !== '');
    expect(lines.length).to.be.lessThan(count);
    expect(logged).to.include('export cut short');
    expect(logged).to.include('the disk went away');
    // The server goes on serving.
    expect(ok(await api.request(`${G}?limit=1`)).body.data).to.have.length(1);
  });
});
