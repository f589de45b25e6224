// Searches on worker threads, their time budget and overload shedding, over a real 30,000-grant
// SQLite catalog and a real HTTP port. A search + facets on that catalog takes tens of ms, so a
// 1 ms budget cannot be met (the message to a worker and back alone takes longer).
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import { generateGrants } from '../../fixtures/generate.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import type { Grant } from '../../src/grants/schema.js';
import { catalogPath } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { SearchWorkerPool } from '../../src/search/sqlite/runtime/workerPool.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { tempDir, type TestApi } from '../support/api.js';
import { GRANTS_PATH, startApiOnCatalog } from '../support/catalog.js';

const CATALOG_SIZE = 30_000;
const HEAVY = 'search=research&facets=funderType,fundingType,eligibleProvinces,currency&limit=50';
// A search this worker has never run: each of its words' postings is read from the catalog first
// (the first search of a term per build), so it cannot finish within a 1 ms budget.
const UNSEEN =
  'search=eligible provides include project projects repayable contributions organizations community businesses ' +
  'funding ranges&facets=funderType,fundingType,eligibleProvinces,currency&limit=50&page=20';
const heavyQuery = (extra = '') => parseGrantQuery(parseQueryString(HEAVY + extra), Date.parse('2026-11-01T00:00:00Z'));

async function buildCatalog(dataDir: string, grants: Iterable<Grant>): Promise<void> {
  const writer = SqliteCatalogWriter.open(catalogPath(dataDir), {});
  try {
    await writer.reindex(
      (async function* () {
        yield* grants;
      })(),
    );
  } finally {
    await writer.close();
  }
}

/** The value of one sample of a metric in a scrape (0 when absent). */
function metricValue(scrape: string, sample: string): number {
  const line = scrape.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

describe('searches on worker threads, their time budget and overload shedding', function () {
  this.timeout(120_000);
  let dataDir: string;
  let someId: string;

  before(async () => {
    dataDir = tempDir('grants-workers-');
    const grants = [...generateGrants(CATALOG_SIZE, 7)];
    someId = grants[123].id;
    await buildCatalog(dataDir, grants);
  });

  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('SEARCH_WORKERS defaults to the number of cores; the search and overload settings are bounded integers', () => {
    expect(loadConfig({}).searchLoad).to.deep.equal({
      workers: availableParallelism(),
      timeoutMs: 2000,
      queueLimit: 64,
      eventLoopDelayMs: 500,
      workerNice: 10,
    });
    expect(
      loadConfig({
        SEARCH_WORKERS: '0',
        SEARCH_TIMEOUT_MS: '50',
        SEARCH_QUEUE_LIMIT: '0',
        OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
        SEARCH_WORKER_NICE: '0',
      }).searchLoad,
    ).to.deep.equal({
      workers: 0,
      timeoutMs: 50,
      queueLimit: 0,
      eventLoopDelayMs: 0,
      workerNice: 0,
    });
    let thrown: unknown;
    try {
      loadConfig({
        SEARCH_WORKERS: '65',
        SEARCH_TIMEOUT_MS: '0',
        SEARCH_QUEUE_LIMIT: '-1',
        OVERLOAD_EVENT_LOOP_DELAY_MS: 'soon',
        SEARCH_WORKER_NICE: '20',
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(ConfigError);
    expect((thrown as ConfigError).problems.map((p) => p.split(' ')[0])).to.deep.equal([
      'SEARCH_WORKERS',
      'SEARCH_TIMEOUT_MS',
      'SEARCH_QUEUE_LIMIT',
      'OVERLOAD_EVENT_LOOP_DELAY_MS',
      'SEARCH_WORKER_NICE',
    ]);
  });

  describe('the pool', () => {
    it('answers as the plain engine does, and recovers after a timeout: the worker is replaced and later searches answer again', async () => {
      const file = catalogPath(dataDir);
      const plain = SqliteSearchEngine.open(file);
      const pool = await SearchWorkerPool.start({ file, size: 1, timeoutMs: 60_000 });
      try {
        const expected = await plain.searchJson(heavyQuery());
        expect(expected.total).to.be.greaterThan(100);
        expect(await pool.run({ op: 'search', query: heavyQuery() })).to.deep.equal(expected);

        const late = await pool
          .run(
            { op: 'search', query: parseGrantQuery(parseQueryString(UNSEEN), Date.parse('2026-11-01T00:00:00Z')) },
            1,
          )
          .then(
            () => null,
            (error: unknown) => error,
          );
        expect(late).to.be.instanceOf(ServiceUnavailableError);
        expect((late as ServiceUnavailableError).retryAfterSeconds).to.be.greaterThan(0);

        // The only worker was terminated with the search; its replacement answers the next ones.
        expect(await pool.run({ op: 'search', query: heavyQuery() })).to.deep.equal(expected);
        expect(await pool.run({ op: 'filterOptions' })).to.deep.equal(await plain.filterOptions());
        expect(pool.load).to.deep.equal({ workers: 1, busy: 0, queued: 0 });
      } finally {
        await pool.close();
        await plain.close();
      }
    });

    it('fails what is queued when closed, and refuses new work', async () => {
      const pool = await SearchWorkerPool.start({ file: catalogPath(dataDir), size: 1, timeoutMs: 60_000 });
      const pending = [1, 2, 3].map(() =>
        pool.run({ op: 'search', query: heavyQuery() }).then(
          () => 'answered',
          (e: unknown) => e,
        ),
      );
      await pool.close();
      for (const outcome of await Promise.all(pending)) expect(outcome).to.be.instanceOf(ServiceUnavailableError);
      const after = await pool.run({ op: 'filterOptions' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(after).to.be.instanceOf(ServiceUnavailableError);
    });

    it('switches catalog builds whole: every answer during a reindex is all old or all new, and the first after it is new', async () => {
      const dir = tempDir('grants-workers-swap-');
      const file = catalogPath(dir);
      const before = [...generateGrants(2_000, 11)].map((g) => ({ ...g, id: `old-${g.id}` }));
      const next = [...generateGrants(3_000, 12)].map((g) => ({ ...g, id: `new-${g.id}` }));
      await buildCatalog(dir, before);
      const pool = await SearchWorkerPool.start({ file, size: 2, timeoutMs: 60_000 });
      try {
        const query = parseGrantQuery(parseQueryString('limit=100&facets=currency'), Date.now());
        const answers: { total: number; ids: string[] }[] = [];
        let reindexing = true;
        const searching = (async () => {
          while (reindexing) {
            const page = await pool.run<{ total: number; grantsJson: string[] }>({ op: 'search', query });
            answers.push({ total: page.total, ids: page.grantsJson.map((json) => (JSON.parse(json) as Grant).id) });
          }
        })();
        await buildCatalog(dir, next);
        reindexing = false;
        await searching;
        const first = await pool.run<{ total: number; grantsJson: string[] }>({ op: 'search', query });
        expect(first.total).to.equal(3_000);
        expect(first.grantsJson.every((json) => (JSON.parse(json) as Grant).id.startsWith('new-'))).to.equal(true);
        expect(answers.length).to.be.greaterThan(0);
        for (const answer of answers) {
          const prefix = answer.total === 2_000 ? 'old-' : 'new-';
          expect([2_000, 3_000]).to.include(answer.total);
          expect(
            answer.ids.every((id) => id.startsWith(prefix)),
            `a page of ${answer.total} grants mixes builds`,
          ).to.equal(true);
        }
      } finally {
        await pool.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('over HTTP', () => {
    let api: TestApi | undefined;
    afterEach(async () => {
      await api?.stop();
      api = undefined;
    });

    it('a search past SEARCH_TIMEOUT_MS is a 503 SERVICE_UNAVAILABLE with Retry-After; /grants/:id is still served; the timeouts are counted', async () => {
      api = await startApiOnCatalog(dataDir, { SEARCH_WORKERS: '2', SEARCH_TIMEOUT_MS: '1', METRICS_PUBLIC: 'true' });
      const late = await api.request(`${GRANTS_PATH}?${HEAVY}`);
      expect(late.status, late.text).to.equal(503);
      expect(late.body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(Number(late.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(late.text).not.to.contain('ms');
      const one = await api.request(`${GRANTS_PATH}/${encodeURIComponent(someId)}`);
      expect(one.status, one.text).to.equal(200);
      expect(one.body.data.id).to.equal(someId);
      const again = await api.request(`${GRANTS_PATH}?${HEAVY}&page=2`);
      expect(again.status, again.text).to.equal(503);
      expect(again.body.error.message, 'a timeout, not a shed request').not.to.contain('overloaded');
      const scrape = (await fetch(`${api.url}/metrics`).then((r) => r.text())) as string;
      expect(metricValue(scrape, 'search_timeouts_total')).to.equal(2);
      expect(metricValue(scrape, 'http_service_unavailable_total{cause="search_engine"}')).to.equal(2);
    });

    it('/grants/:id is served while every search worker is busy', async () => {
      api = await startApiOnCatalog(dataDir, {
        SEARCH_WORKERS: '1',
        SEARCH_TIMEOUT_MS: '60000',
        SEARCH_QUEUE_LIMIT: '100',
      });
      const finished: string[] = [];
      const searches = Array.from({ length: 8 }, (_, page) =>
        api!.request(`${GRANTS_PATH}?${HEAVY}&page=${page + 1}`).then((res) => {
          finished.push('search');
          return res;
        }),
      );
      const one = await api.request(`${GRANTS_PATH}/${encodeURIComponent(someId)}`).then((res) => {
        finished.push('byId');
        return res;
      });
      const answered = await Promise.all(searches);
      expect(one.status).to.equal(200);
      for (const res of answered) expect(res.status, res.text).to.equal(200);
      // Eight searches queued on one worker; the read by id did not wait for them.
      expect(finished.indexOf('byId')).to.be.lessThan(finished.length - 1);
    });

    it('past SEARCH_QUEUE_LIMIT a search gets a fast 503 with Retry-After, counted as shed and not against the allowance; /grants/:id is still served', async () => {
      api = await startApiOnCatalog(dataDir, {
        SEARCH_WORKERS: '1',
        SEARCH_QUEUE_LIMIT: '0',
        SEARCH_TIMEOUT_MS: '60000',
        METRICS_PUBLIC: 'true',
      });
      const limitsBefore = await api.request('/external/v1/subscription/limits');
      const callsBefore = limitsBefore.body.data.limits.monthly.current as number;
      const burst = await Promise.all([
        ...Array.from({ length: 12 }, (_, i) => api!.request(`${GRANTS_PATH}?${HEAVY}&page=${i + 1}`)),
        api.request(`${GRANTS_PATH}/${encodeURIComponent(someId)}`),
      ]);
      const byId = burst.pop()!;
      expect(byId.status).to.equal(200);
      const served = burst.filter((r) => r.status === 200);
      const shed = burst.filter((r) => r.status === 503);
      expect(served.length + shed.length).to.equal(burst.length);
      expect(served.length).to.be.at.least(1);
      expect(shed.length).to.be.at.least(1);
      for (const res of shed) {
        expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
        expect(res.headers.get('retry-after')).to.equal('1');
      }
      const limitsAfter = await api.request('/external/v1/subscription/limits');
      expect(limitsAfter.body.data.limits.monthly.current).to.equal(callsBefore + served.length + 1);
      const scrape = (await fetch(`${api.url}/metrics`).then((r) => r.text())) as string;
      expect(metricValue(scrape, 'http_requests_shed_total{reason="search_queue"}')).to.equal(shed.length);
      expect(metricValue(scrape, 'search_queue_length')).to.equal(0);
      expect(metricValue(scrape, 'search_requests_in_flight')).to.equal(0);

      // One search at a time is never refused: there is room for it.
      for (let i = 0; i < 10; i++)
        expect((await api.request(`${GRANTS_PATH}?${HEAVY}&page=${i + 1}`)).status).to.equal(200);
    });

    it("while the event loop's delay (mean over a second) is past OVERLOAD_EVENT_LOOP_DELAY_MS new requests get a fast 503; once it catches up they are served", async () => {
      api = await startApiOnCatalog(dataDir, {
        SEARCH_WORKERS: '0',
        OVERLOAD_EVENT_LOOP_DELAY_MS: '200',
        METRICS_PUBLIC: 'true',
      });
      const { port } = new URL(api.url);
      const path = `${GRANTS_PATH}/${encodeURIComponent(someId)}`;
      // Raw sockets: the requests are in the kernel before this thread blocks its own event loop.
      const sockets = await Promise.all(
        [1, 2, 3].map(
          () =>
            new Promise<net.Socket>((resolve, reject) => {
              const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
              socket.once('error', reject);
            }),
        ),
      );
      const replies = sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket.setEncoding('utf8');
            socket.on('data', (chunk) => (text += chunk));
            socket.on('end', () => resolve(text));
          }),
      );
      // The loop kept busy turn after turn (as by synchronous searches back to back): 400 ms
      // blocks, one loop iteration apart, the requests written before the last one.
      const blockFor = (ms: number) => {
        const until = performance.now() + ms;
        while (performance.now() < until) {
          // the event loop is blocked
        }
      };
      for (let turn = 0; turn < 4; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        if (turn === 3) {
          for (const socket of sockets)
            socket.write(
              `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.key}\r\nConnection: close\r\n\r\n`,
            );
        }
        blockFor(400);
      }
      for (const reply of await Promise.all(replies)) {
        expect(reply).to.match(/^HTTP\/1\.1 503 /);
        expect(reply).to.match(/\r\nretry-after: 1\r\n/i);
        expect(reply).to.contain('"SERVICE_UNAVAILABLE"');
      }
      // A second later the window holds prompt samples only.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const served = await api.request(path);
      expect(served.status).to.equal(200);
      const scrape = (await fetch(`${api.url}/metrics`).then((r) => r.text())) as string;
      expect(metricValue(scrape, 'http_requests_shed_total{reason="event_loop_delay"}')).to.equal(3);
    });
  });
});
