// The search contract, replayed through the real HTTP API on both engines: every recorded case of
// fixtures/queries (expectations computed by the reference model in fixtures/queries/record.ts,
// never by an engine) against the embedded SQLite engine and against Elasticsearch, and then the
// two engines against each other. A case that pins its clock (`now`) is sent while the API's
// injected clock reads that instant; every other case sees a clock that throws nothing but reads
// the real time (such cases never depend on it: the model refuses `open` or `status` without `now`).
import { expect } from 'chai';
import { DEFAULT_CATALOG, readCatalog, referenceModel } from '../../fixtures/queries/record.js';
import { API_PREFIX, checkResponse, loadCases } from '../../scripts/replay.js';
import { FIXTURES, startTestApi, type TestApi } from '../support/api.js';
import type { LoadedCase } from '../../fixtures/queries/record.js';
import type { CheckOptions } from '../support/checkedFetch.js';
import { describeWithElasticsearch } from '../support/elasticsearch.js';
import { bothEngines } from '../support/parity.js';

const cases = loadCases();

/** The clock of the APIs under test: the instant of the case being sent, else the real time. */
let pinnedNow: Date | null = null;
const clock = (): Date => pinnedNow ?? new Date();

/** Runs `send` with the APIs' clock pinned to the case's `now`, if it has one. */
async function atCaseTime<T>(c: LoadedCase, send: () => Promise<T>): Promise<T> {
  pinnedNow = c.now === undefined ? null : new Date(c.now);
  try {
    return await send();
  } finally {
    pinnedNow = null;
  }
}

describe('search contract: recorded cases', () => {
  it('are recorded over fixtures/grants.ndjson as it is now', () => {
    expect(DEFAULT_CATALOG).to.equal(FIXTURES);
    const model = referenceModel(readCatalog(DEFAULT_CATALOG));
    const stale = cases
      .filter((c) => JSON.stringify(model.expectationOf(c)) !== JSON.stringify(c.expect))
      .map((c) => c.name);
    expect(stale, 'stale expectations: run node dist/fixtures/queries/record.js').to.deep.equal([]);
  });

  it('cover filters, paging, text, errors and the partner-search parameters', () => {
    expect(cases.length).to.be.at.least(140);
    const asks = (p: string) =>
      cases.filter((c) => new RegExp(`[?&]${p}(\\[\\d*\\])?=`).test(c.request) && c.expect.status === 200);
    for (const p of [
      'open',
      'status',
      'deadlineFrom',
      'deadlineTo',
      'updatedSince',
      'targetBeneficiaries',
      'currency',
      'applicationComplexity',
      'sdgAlignment',
      'isRecurring',
      'sort',
      'facets',
      'fields',
    ]) {
      expect(asks(p), p).to.not.be.empty;
    }
    for (const sort of ['deadline', 'opensAt', 'amountMin', 'amountMax', 'createdAt', 'updatedAt', 'title']) {
      expect(
        asks('sort').filter((c) => c.request.includes(`sort=${sort}`)),
        sort,
      ).to.not.be.empty;
      expect(
        asks('sort').filter((c) => c.request.includes(`sort=-${sort}`)),
        `-${sort}`,
      ).to.not.be.empty;
    }
    expect(cases.filter((c) => c.now !== undefined)).to.not.be.empty;
    expect(cases.filter((c) => c.expect.facets !== undefined)).to.not.be.empty;
    expect(cases.filter((c) => c.expect.fields !== undefined && !c.request.includes('fields=id'))).to.not.be.empty;
    expect(cases.filter((c) => c.compare === 'set')).to.not.be.empty;
    expect(cases.filter((c) => c.expect.status === 400)).to.not.be.empty;
    expect(cases.filter((c) => c.expect.status === 404)).to.not.be.empty;
  });
});

/**
 * How the test client checks a case's request: the refusals are sent as refusals; the others may
 * write lists in the forms the server also accepts (repeated, bracketed, indexed), which several
 * cases are about, and are otherwise checked against the document.
 */
const checkOf = (c: LoadedCase): CheckOptions =>
  c.expect.status >= 400 ? { invalidRequest: true } : { tolerantLists: true };

/** The one suite body both engines run: every case through the HTTP API. */
function contractSuite(api: () => TestApi): void {
  for (const c of cases) {
    it(`${c.name}  (${c.request.length > 90 ? `${c.request.slice(0, 90)}…` : c.request})`, async () => {
      const res = await atCaseTime(c, () => api().request(API_PREFIX + c.request, checkOf(c)));
      expect(checkResponse(c, res.status, res.body), res.text.slice(0, 500)).to.deep.equal([]);
    });
  }
}

describe('search contract [sqlite]', function () {
  this.timeout(60_000);
  let api: TestApi | undefined;
  before(async () => {
    api = await startTestApi({}, { clock });
  });
  after(async () => {
    await api?.stop();
  });
  contractSuite(() => api as TestApi);
});

describeWithElasticsearch('search contract', function () {
  this.timeout(120_000);
  // The bundled fixtures on both engines, at the clock of the case being sent.
  const engines = bothEngines({ api: { clock } });
  before(async () => {
    expect(await engines.es().deps.engine.count()).to.equal(await engines.sqlite().deps.engine.count());
  });

  contractSuite(() => engines.es());

  describe('both engines give the same answer', () => {
    for (const c of cases) {
      it(c.name, async () => {
        const [a, b] = await atCaseTime(c, () => engines.both(API_PREFIX + c.request, checkOf(c)));
        const summary = (res: { status: number; body: any }) => ({
          status: res.status,
          total: res.body?.pagination?.total ?? null,
          totalPages: res.body?.pagination?.totalPages ?? null,
          error: res.body?.error?.code ?? null,
          facets: res.body?.facets ?? null,
          ...(c.compare === 'ordered'
            ? {
                ids: Array.isArray(res.body?.data)
                  ? res.body.data.map((g: { id: string }) => g.id)
                  : (res.body?.data?.id ?? null),
              }
            : {}),
        });
        expect(summary(b), 'elasticsearch (actual) vs sqlite (expected)').to.deep.equal(summary(a));
      });
    }
  });
});
