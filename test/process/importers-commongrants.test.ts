// grants-indexer reading CommonGrants opportunities, as an operator runs it (real processes, a real
// API): our catalog served as CommonGrants loads back as the same catalog, in each layout (list
// responses, a JSON array, one opportunity a line); an opportunity of another server is read by
// the protocol's fields; bad opportunities are rejected by name, bad JSON refused.
import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Grant } from '../../src/grants/schema.js';
import { REPO_ROOT, tempDir, type TestApi } from '../support/api.js';
import { runBin } from '../support/bins.js';
import {
  API_PREFIX,
  GRANTS_PATH as G,
  ITEM_LABELS,
  recordMaker,
  startApiOnCatalog,
  toNdjson,
} from '../support/catalog.js';

const rec = recordMaker(ITEM_LABELS);
const CG = `${API_PREFIX}/common-grants/opportunities`;

interface Run {
  code: number | null;
  out: string[];
  err: string[];
}

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

async function indexer(args: string[], dir: string): Promise<Run> {
  const run = await runBin('grants-indexer', args, {
    cwd: dir,
    env: { ...process.env, SEARCH_ENGINE: 'sqlite', DATA_DIR: dir, LOG_LEVEL: 'silent' },
  });
  return { code: run.code, out: lines(run.out), err: lines(run.err) };
}

async function served(api: TestApi): Promise<Map<string, Grant>> {
  const res = await api.request(`${G}/export?format=ndjson`);
  expect(res.status, res.text).to.equal(200);
  return new Map(
    lines(res.text)
      .map((line) => JSON.parse(line) as Grant)
      .map((g) => [g.id, g]),
  );
}

/** Every page of GET /common-grants/opportunities, as served (bodies as text). */
async function pages(api: TestApi, pageSize: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let page = 1; ; page += 1) {
    const res = await api.request(`${CG}?page=${page}&pageSize=${pageSize}`);
    expect(res.status, res.text).to.equal(200);
    bodies.push(res.text);
    if (page >= res.body.paginationInfo.totalPages) return bodies;
  }
}

/**
 * Grants whose every field the fixtures leave out somewhere: a source (with and without url), milliseconds, French, a
 * date-only-looking deadline.
 */
const EXTRA = [
  rec('x-1', {
    source: { name: 'Programs spreadsheet', id: 'ON-1', url: 'https://example.org/programs/on-1' },
    deadline: '2027-01-16T04:59:59.999Z',
    opensAt: '2026-12-01T05:00:00.000Z',
    titleFr: 'Programme',
    descriptionFr: 'Une description',
  }),
  rec('x-2', {
    source: { name: 'Grants.gov', id: '350001', url: null },
    amountMin: null,
    amountMax: null,
    currency: 'USD',
    description: null,
    applicationUrl: null,
  }),
  rec('x-3', {
    amountMin: 0.5,
    amountMax: 1500000.25,
    currency: 'CAD',
    isRecurring: false,
    applicationComplexity: 'HIGH',
    createdAt: '2025-02-25T23:09:32.948Z',
    updatedAt: '2025-03-01T00:00:00.001Z',
  }),
];

describe('grants-indexer: CommonGrants opportunities', function () {
  this.timeout(90_000);
  let dir: string;
  let api: TestApi;
  const write = (name: string, content: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };

  beforeEach(async function () {
    dir = tempDir('grants-commongrants-');
    api = await startApiOnCatalog(dir);
  });
  afterEach(async function () {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('our catalog served as CommonGrants loads back as the same catalog: list responses, an array, one a line', async function () {
    const fixtures = readFileSync(path.join(REPO_ROOT, 'fixtures/grants.ndjson'), 'utf8');
    const seeded = await indexer(['reindex', '--source', write('seed.ndjson', fixtures + toNdjson(EXTRA))], dir);
    expect(seeded.code, seeded.err.join('\n')).to.equal(0);
    const before = await served(api);
    expect(before.size).to.equal(603);

    const bodies = await pages(api, 100);
    expect(bodies).to.have.length(7);
    const items = bodies.flatMap((b) => JSON.parse(b).items as unknown[]);
    const layouts = {
      'pages.json': bodies.join('\n'),
      'array.json': JSON.stringify(items, null, 2),
      'opportunities.ndjson': items.map((o) => JSON.stringify(o)).join('\n'),
    };
    for (const [name, text] of Object.entries(layouts)) {
      const run = await indexer(['reindex', '--source', write(name, text)], dir);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.err[0]).to.equal(
        `reading ${path.join(dir, name)} as commongrants (guessed from its first characters (CommonGrants ` +
          `opportunities); --format to choose)`,
      );
      expect(run.out).to.deep.equal(['reindex: indexed 603, rejected 0; the new catalog is live']);
      const after = await served(api);
      expect([...after.keys()].sort(), name).to.deep.equal([...before.keys()].sort());
      for (const [id, grant] of before) expect(after.get(id), `${name}: ${id}`).to.deep.equal(grant);
    }
    const sync = await indexer(['sync', '--source', path.join(dir, 'pages.json')], dir);
    expect(sync.out).to.deep.equal(['sync: added 0, updated 0, unchanged 603, deleted 0, rejected 0']);
  });

  it("reads an opportunity of another server by the protocol's fields: its UUID, Money, keyDates, applicant types, source", async function () {
    const uuid = '0F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B';
    const opportunity = {
      id: uuid,
      title: 'Rural Broadband Pilot',
      status: { value: 'forecasted' },
      description: 'Funds broadband for rural towns.',
      funding: {
        minAwardAmount: { amount: '10000.00', currency: 'USD' },
        maxAwardAmount: { amount: '250000', currency: 'USD' },
      },
      keyDates: {
        postDate: { name: 'Opens', eventType: 'singleDate', date: '2027-02-01' },
        closeDate: { name: 'Closes', eventType: 'singleDate', date: '2027-04-30', time: '17:00:00' },
      },
      acceptedApplicantTypes: [
        { value: 'government_county' },
        { value: 'non_profit_with_501c3' },
        { value: 'custom', customValue: 'STUDENTS' },
      ],
      source: 'https://example.gov/opportunities/42',
      customFields: {
        agency: { name: 'agency', fieldType: 'string', value: 'Department of Agriculture' },
        funderType: { name: 'funderType', fieldType: 'string', value: 'FEDERAL_GRANT' },
        fundingType: { name: 'fundingType', fieldType: 'string', value: 'GRANT' },
      },
      createdAt: '2026-11-01T00:00:00Z',
      lastModifiedAt: '2026-11-02T00:00:00Z',
    };
    const run = await indexer(
      [
        'reindex',
        '--source',
        write(
          'other.json',
          JSON.stringify({
            status: 200,
            message: 'Success',
            items: [opportunity],
            paginationInfo: { page: 1, pageSize: 1, totalItems: 1, totalPages: 1 },
          }),
        ),
      ],
      dir,
    );
    expect(run.code, run.err.join('\n')).to.equal(0);
    const grant = (await served(api)).get(`commongrants-${uuid.toLowerCase()}`);
    expect(grant).to.deep.include({
      title: 'Rural Broadband Pilot',
      funder: 'Department of Agriculture',
      funderType: 'FEDERAL_GRANT',
      amountMin: 10000,
      amountMax: 250000,
      currency: 'USD',
      opensAt: '2027-02-01T05:00:00.000Z', // the start of the day in America/Toronto
      deadline: '2027-04-30T21:00:00.000Z', // 17:00 in America/Toronto (EDT)
      targetBeneficiaries: ['CHARITIES', 'MUNICIPALITIES', 'NON_PROFIT', 'STUDENTS'],
      eligibleProvinces: [],
      updatedAt: '2026-11-02T00:00:00.000Z',
      source: { name: 'CommonGrants', id: uuid.toLowerCase(), url: 'https://example.gov/opportunities/42' },
    });
  });

  it('rejects an opportunity that cannot be a grant by name (nothing changes), and writes it to the rejects file with --skip-invalid', async function () {
    const seeded = await indexer(
      ['reindex', '--source', write('seed.ndjson', toNdjson(['s-1', 's-2', 's-3'].map((id) => rec(id))))],
      dir,
    );
    expect(seeded.code).to.equal(0);
    await api.request(`${CG}?pageSize=3`);
    const body = JSON.parse((await api.request(`${CG}?pageSize=3`)).text);
    body.items[1].funding = { minAwardAmount: { amount: '12', currency: 'EUR' } };
    delete body.items[2].customFields.funderType;
    const uuid1 = body.items[1].id;
    const source = write('bad.json', JSON.stringify(body));
    const run = await indexer(['sync', '--source', source], dir);
    expect(run.code).to.equal(1);
    expect(run.err).to.include(
      `rejected record 2 (opportunity ${uuid1}, id "${body.items[1].customFields.grantsApiId.value}"): ` +
        `funding.minAwardAmount.currency: "EUR" is not one of CAD, USD`,
    );
    expect(
      run.err.some((l) => l.startsWith('rejected record 3 (') && l.includes('customFields.funderType: is missing')),
    ).to.equal(true);

    const rejectsFile = path.join(dir, 'rejects.ndjson');
    const skipped = await indexer(['sync', '--source', source, '--skip-invalid', '--rejects', rejectsFile], dir);
    expect(skipped.code, skipped.err.join('\n')).to.equal(0);
    const rejects = lines(readFileSync(rejectsFile, 'utf8')).map((l) => JSON.parse(l));
    expect(rejects.map((r) => r.record)).to.deep.equal([2, 3]);
    expect(rejects[0].source.id).to.equal(uuid1);
  });

  it('refuses JSON that is malformed or cut short, naming it (exit 3), even with --skip-invalid', async function () {
    const seeded = await indexer(
      ['reindex', '--source', write('seed.ndjson', toNdjson(['s-1'].map((id) => rec(id))))],
      dir,
    );
    expect(seeded.code).to.equal(0);
    const body = (await api.request(`${CG}?pageSize=1`)).text;
    const cut = write('cut.json', body.slice(0, body.length - 40));
    const run = await indexer(['sync', '--source', cut, '--skip-invalid'], dir);
    expect(run.code).to.equal(3);
    expect(run.err.at(-1)).to.equal(
      `grants-indexer: ${cut} ends in the middle of a JSON value: it was cut short. Nothing was changed.`,
    );
    const broken = write('broken.json', body.replace('"items":[', '"items":[}'));
    const bad = await indexer(['sync', '--source', broken, '--skip-invalid'], dir);
    expect(bad.code).to.equal(3);
    expect(bad.err.at(-1)).to.match(
      new RegExp(
        `^grants-indexer: ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: .+\\. Nothing ` +
          `was changed\\.$`,
      ),
    );
  });
});
