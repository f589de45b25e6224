// The zero-downtime proof on Elasticsearch: while `grants-indexer reindex` runs as a child process
// and replaces catalog A (3,000 "alpha" grants) with catalog B (4,000 "beta" grants), readers
// hammering the API through the alias only ever see all of A or all of B: every response 200,
// every total exactly A's or B's, never empty, never partial, and never A again once B was seen.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { runIndexer } from '../../indexer/cli.js';
import { REPO_ROOT, startTestApi, type TestApi } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, testClient, uniqueAlias } from '../support/elasticsearch.js';

const A_SIZE = 3000;
const B_SIZE = 4000;
const G = '/external/v1/grants';

const FUNDER_TYPES = [
  'CORPORATE',
  'FEDERAL_GRANT',
  'FOUNDATION',
  'MUNICIPAL_GRANT',
  'NON_PROFIT_ORGANIZATION',
  'PROVINCIAL_TERRITORIAL_GRANT',
];
const FUNDING_TYPES = ['EQUITY', 'GRANT', 'LOAN', 'REBATE', 'TAX_CREDIT', 'WAGE_SUBSIDY'];
const PROVINCES = ['ALBERTA', 'BRITISH_COLUMBIA', 'MANITOBA', 'ONTARIO', 'QUEBEC', 'YUKON'];

/** Writes `n` valid grants whose only searchable marker word is `word`; ids are `<word>-00001`.... */
async function writeCatalog(file: string, word: string, n: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 1; i <= n; i += 1) {
    const min = (i % 50) * 1000;
    const grant = {
      id: `${word}-${String(i).padStart(5, '0')}`,
      title: `${word[0].toUpperCase()}${word.slice(1)} programme number ${i}`,
      description: i % 3 === 0 ? null : `Funding for community projects, round ${i % 7}, under the ${word} scheme.`,
      funder: `Funder ${i % 13}`,
      funderType: FUNDER_TYPES[i % FUNDER_TYPES.length],
      fundingType: FUNDING_TYPES[i % FUNDING_TYPES.length],
      amountMin: i % 5 === 0 ? null : min,
      amountMax: i % 5 === 0 ? null : min + 5000,
      currency: i % 4 === 0 ? 'USD' : 'CAD',
      deadline: i % 2 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1 + (i % 28))).toISOString(),
      eligibleProvinces: [PROVINCES[i % PROVINCES.length]],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    if (!out.write(`${JSON.stringify(grant)}\n`))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end();
  await finished(out);
}

type Catalog = 'A' | 'B';

interface Observation {
  reader: number;
  path: string;
  startedAt: number;
  endedAt: number;
  status: number;
  total: number | null;
  firstId: string | null;
  text: string;
}

/** Which catalog a 200 answer came from, or an explanation of why it fits neither. */
function catalogOf(o: Observation): Catalog | string {
  if (o.path.includes('search=alpha')) {
    if (o.total === A_SIZE) return 'A';
    if (o.total === 0) return 'B';
  } else if (o.path.includes('search=beta')) {
    if (o.total === B_SIZE) return 'B';
    if (o.total === 0) return 'A';
  } else {
    if (o.total === A_SIZE && o.firstId?.startsWith('alpha-')) return 'A';
    if (o.total === B_SIZE && o.firstId?.startsWith('beta-')) return 'B';
  }
  return `total ${o.total}, first id ${o.firstId} on ${o.path}`;
}

describeWithElasticsearch('atomic alias swap under load', function () {
  this.timeout(180_000);

  const alias = uniqueAlias();
  let dir: string;
  let fileA: string;
  let fileB: string;
  let api: TestApi | undefined;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'es-swap-test-'));
    fileA = path.join(dir, 'a.ndjson');
    fileB = path.join(dir, 'b.ndjson');
    await writeCatalog(fileA, 'alpha', A_SIZE);
    await writeCatalog(fileB, 'beta', B_SIZE);
    const err: string[] = [];
    const env = {
      ...process.env,
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: ES_URL as string,
      ELASTICSEARCH_INDEX: alias,
    };
    const code = await runIndexer(['reindex', '--source', fileA], env, { out: () => {}, err: (l) => err.push(l) });
    expect(code, err.join('\n')).to.equal(0);
    // A generous timeout: this suite proves atomicity, not latency under a bulk load.
    api = await startTestApi({
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: ES_URL as string,
      ELASTICSEARCH_INDEX: alias,
      ELASTICSEARCH_TIMEOUT_MS: '10000',
      SEED_CATALOG: 'false',
    });
  });

  after(async () => {
    await api?.stop();
    await dropAlias(alias);
    rmSync(dir, { recursive: true, force: true });
  });

  it('readers see exactly A or exactly B while reindex swaps the alias, then B', async () => {
    const live = api as TestApi;
    const first = await live.request(`${G}?limit=1`);
    expect(first.status, first.text).to.equal(200);
    expect(first.body.pagination.total).to.equal(A_SIZE);

    const paths = [`${G}?limit=1`, `${G}?search=alpha&limit=1`, `${G}?search=beta&limit=1`];
    const observations: Observation[] = [];
    let stop = false;
    const reader = async (id: number) => {
      for (let i = id; !stop; i += 1) {
        const p = paths[i % paths.length];
        const startedAt = performance.now();
        let o: Observation;
        try {
          const res = await live.request(p);
          o = {
            reader: id,
            path: p,
            startedAt,
            endedAt: performance.now(),
            status: res.status,
            total: res.body?.pagination?.total ?? null,
            firstId: res.body?.data?.[0]?.id ?? null,
            text: res.text.slice(0, 300),
          };
        } catch (error) {
          o = {
            reader: id,
            path: p,
            startedAt,
            endedAt: performance.now(),
            status: -1,
            total: null,
            firstId: null,
            text: String(error),
          };
        }
        observations.push(o);
      }
    };
    // Reader 0 is sequential: its answers must switch from A to B exactly once. 1..3 run beside it.
    const readers = [0, 1, 2, 3].map((id) => reader(id));

    const waitFor = async (predicate: () => boolean, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    let childOut = '';
    let childErr = '';
    let code: number | null;
    try {
      await waitFor(() => observations.filter((o) => o.reader === 0).length >= 30, 'the readers to start');
      const child = spawn(
        process.execPath,
        [path.join(REPO_ROOT, 'bin/grants-indexer.js'), 'reindex', '--source', fileB],
        {
          env: {
            ...process.env,
            SEARCH_ENGINE: 'elasticsearch',
            ELASTICSEARCH_URL: ES_URL as string,
            ELASTICSEARCH_INDEX: alias,
            LOG_LEVEL: 'silent',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.setEncoding('utf8').on('data', (d: string) => (childOut += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (childErr += d));
      code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', resolve);
      });
      // Keep reading a little after the swap.
      const seen = observations.length;
      await waitFor(
        () => observations.filter((o) => o.reader === 0).length >= 30 && observations.length >= seen + 60,
        'reads after the swap',
      );
    } finally {
      stop = true;
      await Promise.all(readers);
    }

    expect(code, `grants-indexer reindex: ${childErr}`).to.equal(0);
    expect(childOut).to.include(`reindex: indexed ${B_SIZE}, rejected 0; the new catalog is live`);

    const failures = observations.filter((o) => o.status !== 200);
    expect(
      failures.map((o) => `${o.status} ${o.path}: ${o.text}`),
      `${failures.length} of ${observations.length} responses were not 200`,
    ).to.deep.equal([]);
    const misfits = observations.map((o) => ({ o, c: catalogOf(o) })).filter(({ c }) => c !== 'A' && c !== 'B');
    expect(
      misfits.map(({ c }) => c),
      'answers that are neither all of A nor all of B',
    ).to.deep.equal([]);

    const tagged = observations.map((o) => ({ o, c: catalogOf(o) as Catalog }));
    const countA = tagged.filter((t) => t.c === 'A').length;
    const countB = tagged.filter((t) => t.c === 'B').length;
    expect(countA, 'answers from A').to.be.greaterThan(0);
    expect(countB, 'answers from B').to.be.greaterThan(0);

    // The sequential reader switched once: A…A B…B.
    const sequence = tagged
      .filter((t) => t.o.reader === 0)
      .map((t) => t.c)
      .join('');
    expect(sequence, 'sequential reader').to.match(/^A+B+$/);
    // No reader, sequential or not, saw A in a request started after any B answer had arrived.
    const firstB = Math.min(...tagged.filter((t) => t.c === 'B').map((t) => t.o.endedAt));
    const staleA = tagged.filter((t) => t.c === 'A' && t.o.startedAt > firstB);
    expect(staleA.length, 'A answered after B had been served').to.equal(0);

    // Afterwards the API serves B, and A's index is kept for rollback.
    const total = await live.request(`${G}?limit=1`);
    expect(total.body.pagination.total).to.equal(B_SIZE);
    expect((await live.request(`${G}?search=beta`)).body.pagination.total).to.equal(B_SIZE);
    expect((await live.request(`${G}?search=alpha`)).body.pagination.total).to.equal(0);
    expect((await live.request(`${G}/beta-04000`)).status).to.equal(200);
    expect((await live.request(`${G}/alpha-00001`)).status).to.equal(404);
    const client = testClient();
    try {
      const targets = Object.keys(await client.indices.getAlias({ name: alias }));
      expect(targets).to.have.length(1);
      expect((await client.count({ index: targets[0] })).count).to.equal(B_SIZE);
      const own = (
        (await client.cat.indices({ index: `${alias}-*`, format: 'json', h: 'index' } as never)) as unknown as {
          index: string;
        }[]
      ).map((r) => r.index);
      expect(own, 'the live index and the one kept for rollback').to.have.length(2);
    } finally {
      await client.close();
    }
    process.stderr.write(`      (${observations.length} reads: ${countA} from A, ${countB} from B)\n`);
  });
});
