// grants-indexer on the Grants.gov XML extract, as an operator runs it (real processes, a real API
// over the catalog): the XML and its zip, the latest version of each opportunity, forecasts, and
// the bad extracts (an unmappable record, malformed XML, a truncated zip, a zip bomb) refused with
// the catalog untouched.
import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ServedGrant } from '../../src/grants/schema.js';
import { REPO_ROOT, tempDir, type TestApi } from '../support/api.js';
import { runBin } from '../support/bins.js';
import { GRANTS_PATH as G, ITEM_LABELS, recordMaker, startApiOnCatalog, toNdjson } from '../support/catalog.js';

const rec = recordMaker(ITEM_LABELS);
const IMPORTS = path.join(REPO_ROOT, 'fixtures/imports');
const XML = path.join(IMPORTS, 'grants-gov-extract.xml');
const ZIP = path.join(IMPORTS, 'grants-gov-extract.zip');
const BOMB = path.join(IMPORTS, 'zip-bomb.zip');

interface Run {
  code: number | null;
  out: string[];
  err: string[];
}
const lines = (s: string) => s.split('\n').filter((l) => l !== '');

async function indexer(args: string[], dir: string, input?: string): Promise<Run> {
  const run = await runBin('grants-indexer', args, {
    cwd: dir,
    env: { ...process.env, SEARCH_ENGINE: 'sqlite', DATA_DIR: dir, LOG_LEVEL: 'silent' },
    input,
  });
  return { code: run.code, out: lines(run.out), err: lines(run.err) };
}

async function served(api: TestApi): Promise<Map<string, ServedGrant>> {
  const res = await api.request(`${G}/export?format=ndjson`);
  expect(res.status, res.text).to.equal(200);
  return new Map(
    lines(res.text)
      .map((line) => JSON.parse(line) as ServedGrant)
      .map((g) => [g.id, g]),
  );
}

/** The fixture extract with `edit` applied to its text. */
const extract = (edit: (xml: string) => string): string => edit(readFileSync(XML, 'utf8'));

describe('grants-indexer: the Grants.gov extract', function () {
  this.timeout(60_000);
  let dir: string;
  let api: TestApi;
  const write = (name: string, content: string | Buffer): string => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };
  const seed = async (ids: string[]) => {
    const run = await indexer(['reindex', '--source', write('seed.ndjson', toNdjson(ids.map((id) => rec(id))))], dir);
    expect(run.code, run.err.join('\n')).to.equal(0);
  };
  const SEEDED = ['s-1', 's-2', 's-3'];

  beforeEach(async function () {
    dir = tempDir('grants-gov-');
    api = await startApiOnCatalog(dir);
  });
  afterEach(async function () {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the XML: the latest version of each opportunity, synopses and forecasts, every decision of the guide', async function () {
    const run = await indexer(['reindex', '--source', XML], dir);
    expect(run.code, run.err.join('\n')).to.equal(0);
    expect(run.err).to.deep.equal([
      `reading ${XML} as grants-gov (guessed from the extension .xml; --format to choose)`,
      'grants-gov: 2 older version(s) of opportunities skipped (the latest Version of each wins)',
    ]);
    expect(run.out).to.deep.equal(['reindex: indexed 4, rejected 0; the new catalog is live']);
    const grants = await served(api);
    expect([...grants.keys()].sort()).to.deep.equal([
      'grants-gov-350001',
      'grants-gov-350002',
      'grants-gov-350003',
      'grants-gov-350004',
    ]);
    expect(grants.get('grants-gov-350001')).to.deep.include({
      title: 'Rural Broadband Community Connect',
      funder: 'Rural Utilities Service',
      funderType: 'FEDERAL_GRANT',
      fundingType: 'GRANT',
      amountMin: 100000,
      amountMax: 3000000,
      currency: 'USD',
      deadline: '2027-03-16T03:59:59.000Z',
      applicationUrl: 'https://www.rd.usda.gov/programs-services/community-connect-grants',
      eligibleProvinces: [],
      targetBeneficiaries: ['CHARITIES', 'INDIGENOUS_COMMUNITIES', 'MUNICIPALITIES', 'NON_PROFIT'],
      createdAt: '2027-01-05T05:00:00.000Z',
      source: { name: 'Grants.gov', id: '350001', url: 'https://www.grants.gov/search-results-detail/350001' },
    });
    expect(grants.get('grants-gov-350001')!.description).to.equal(
      'Grants to provide broadband service in rural communities & tribal lands.\n\n * Community centers\n * ' +
        'Public safety\n\nEligibility: Applicants must serve a rural area <20,000 people.\n\nOpportunity number: ' +
        'USDA-RUS-CC-2027.\n\nAssistance Listings: 10.863.',
    );
    // Version 2 of 350002 wins over version 1; its floor of 0 is no floor.
    expect(grants.get('grants-gov-350002')).to.deep.include({
      title: 'Small Business Innovation Research Phase I',
      amountMin: null,
      amountMax: 305000,
      updatedAt: '2027-01-10T05:00:00.000Z',
    });
    expect(grants.get('grants-gov-350002')!.applicationUrl).to.equal(
      'https://www.grants.gov/search-results-detail/350002',
    );
    // A forecast alone: imported with its estimated dates, a forecasted grant until its EstimatedSynopsisPostDate.
    expect(grants.get('grants-gov-350003')!.description).to.contain(
      'Forecast: the opportunity is expected to be posted on 2027-02-01 (fiscal year 2027).',
    );
    expect(grants.get('grants-gov-350003')!.deadline).to.equal('2027-05-04T03:59:59.000Z');
    expect(grants.get('grants-gov-350003')!.opensAt).to.equal('2027-02-01T05:00:00.000Z');
    // A synopsis was posted: no opensAt.
    for (const id of ['grants-gov-350001', 'grants-gov-350002', 'grants-gov-350004'])
      expect(grants.get(id)!.opensAt, id).to.equal(null);
    // A forecast then its synopsis: the synopsis wins; 99 (Unrestricted) is every beneficiary.
    expect(grants.get('grants-gov-350004')!.deadline).to.equal('2027-02-06T04:59:59.000Z');
    expect(grants.get('grants-gov-350004')!.description).not.to.contain('Forecast');
    expect(grants.get('grants-gov-350004')!.targetBeneficiaries).to.have.length(12);

    // The API's status on a day before the forecast opens (and before 350001's PostDate): the forecast
    // FORECASTED, the synopses OPEN.
    await api.stop();
    api = await startApiOnCatalog(dir, {}, { clock: () => new Date('2026-12-01T12:00:00.000Z') });
    const before = await served(api);
    expect([...before.values()].map((g) => [g.id, g.status]).sort()).to.deep.equal([
      ['grants-gov-350001', 'OPEN'],
      ['grants-gov-350002', 'OPEN'],
      ['grants-gov-350003', 'FORECASTED'],
      ['grants-gov-350004', 'OPEN'],
    ]);
    const forecasted = await api.request(`${G}?status=FORECASTED&fields=id,opensAt,status`);
    expect(forecasted.status, forecasted.text).to.equal(200);
    expect(forecasted.body.data).to.deep.equal([
      { id: 'grants-gov-350003', opensAt: '2027-02-01T05:00:00.000Z', status: 'FORECASTED' },
    ]);
    // From 00:00 US Eastern on its EstimatedSynopsisPostDate, it is open.
    await api.stop();
    api = await startApiOnCatalog(dir, {}, { clock: () => new Date('2027-02-01T05:00:00.000Z') });
    expect((await served(api)).get('grants-gov-350003')!.status).to.equal('OPEN');
  });

  it('the zip loads the same catalog as the XML inside it, and a second sync changes nothing', async function () {
    expect((await indexer(['reindex', '--source', XML], dir)).code).to.equal(0);
    const fromXml = await served(api);
    const run = await indexer(['reindex', '--source', ZIP], dir);
    expect(run.code, run.err.join('\n')).to.equal(0);
    expect(run.err[0]).to.equal(
      `reading ${ZIP} as grants-gov (guessed from its first bytes (a zip archive); --format to choose)`,
    );
    expect(await served(api)).to.deep.equal(fromXml);
    const sync = await indexer(['sync', '--source', ZIP], dir);
    expect(sync.out).to.deep.equal(['sync: added 0, updated 0, unchanged 4, deleted 0, rejected 0']);
  });

  it('a record that cannot be mapped is reported with its OpportunityID and why; nothing changes without --skip-invalid', async function () {
    await seed(SEEDED);
    const source = write(
      'unmappable.xml',
      extract((xml) =>
        xml
          .replace('<EligibleApplicants>07</EligibleApplicants>', '<EligibleApplicants>77</EligibleApplicants>')
          .replace(
            '<FundingInstrumentType>CA</FundingInstrumentType>\n    <CategoryOfFundingActivity>ENV',
            '<FundingInstrumentType>PC</FundingInstrumentType>\n    <CategoryOfFundingActivity>ENV',
          ),
      ),
    );
    const run = await indexer(['sync', '--source', source], dir);
    expect(run.code).to.equal(1);
    expect(run.err.filter((l) => l.startsWith('rejected'))).to.deep.equal([
      'rejected record 1 (OpportunityID 350001, id "grants-gov-350001"): EligibleApplicants: unknown code "77" ' +
        '(known: 00, 01, 02, 04, 05, 06, 07, 08, 11, 12, 13, 20, 21, 22, 23, 25, 99)',
      'rejected record 3 (OpportunityID 350003, id "grants-gov-350003"): FundingInstrumentType: only a ' +
        'procurement contract (PC): a purchase, not funding the catalog lists',
    ]);
    expect([...(await served(api)).keys()].sort()).to.deep.equal(SEEDED);

    const rejects = path.join(dir, 'gg-rejects.ndjson');
    const skipped = await indexer(['sync', '--source', source, '--skip-invalid', '--rejects', rejects], dir);
    expect(skipped.code, skipped.err.join('\n')).to.equal(0);
    expect(skipped.out).to.deep.equal(['sync: added 2, updated 0, unchanged 0, deleted 0, rejected 2']);
    const report = lines(readFileSync(rejects, 'utf8')).map((l) => JSON.parse(l));
    expect(report.map((r) => r.where)).to.deep.equal(['OpportunityID 350001', 'OpportunityID 350003']);
    expect(report[0].source).to.deep.include({ OpportunityID: '350001', EligibleApplicants: ['01', '77', '12'] });
    expect([...(await served(api)).keys()].sort()).to.deep.equal(['grants-gov-350002', 'grants-gov-350004', ...SEEDED]);
  });

  it('malformed XML, a truncated zip, a zip bomb, a zip on stdin: refused in one sentence, the catalog untouched even with --skip-invalid', async function () {
    await seed(SEEDED);
    const xml = readFileSync(XML, 'utf8');
    const cut = write('cut.xml', xml.slice(0, xml.indexOf('<OpportunityID>350003')));
    const broken = write(
      'broken.xml',
      xml.replace(
        '<AgencyName>National Science Foundation</AgencyName>',
        '<AgencyName>National Science & Foundation</AgencyName>',
      ),
    );
    const zip = readFileSync(ZIP);
    const truncated = write('truncated.zip', zip.subarray(0, Math.floor(zip.length / 2)));
    for (const [source, message] of [
      [
        cut,
        new RegExp(
          `^grants-indexer: ${cut} is not well-formed XML: .*unclosed tag.* ` +
            `\\(the last OpportunityID read: 350002\\)\\. Nothing was changed\\.$`,
        ),
      ],
      [
        broken,
        new RegExp(
          `^grants-indexer: ${broken} is not well-formed XML: ${broken}:\\d+:\\d+: .* ` +
            `\\(the last OpportunityID read: 350002\\)\\. Nothing was changed\\.$`,
        ),
      ],
      [
        truncated,
        new RegExp(
          `^grants-indexer: ${truncated} is not a complete zip archive \\(.*\\): ` +
            `it is damaged or was cut short\\. Nothing was changed\\.$`,
        ),
      ],
      [
        BOMB,
        new RegExp(
          `^grants-indexer: ${BOMB} is refused: its entry GrantsDBExtract.xml would inflate \\d+ times ` +
            `\\(47\\.\\d KB to 47\\.7 MB\\), more than the 200 times allowed \\(a zip bomb\\)\\. ` +
            `Nothing was changed\\.$`,
        ),
      ],
    ] as const) {
      for (const skip of [[], ['--skip-invalid']]) {
        const run = await indexer(['reindex', '--source', source, ...skip], dir);
        expect(run.code, `${source} ${skip.join(' ')}`).to.equal(3);
        expect(run.err.at(-1)).to.match(message);
      }
    }
    const stdin = await indexer(['reindex', '--source', '-'], dir, xml);
    expect(stdin.code).to.equal(2);
    expect(stdin.err.join('\n')).to.contain('a Grants.gov extract is read from a file');
    expect([...(await served(api)).keys()].sort()).to.deep.equal(SEEDED);

    // The shrink guard holds for every format: 4 opportunities would replace 10 grants.
    const ten = Array.from({ length: 10 }, (_, i) => `t-${i}`);
    await seed(ten);
    const shrink = await indexer(['reindex', '--source', ZIP], dir);
    expect(shrink.code).to.equal(4);
    expect(shrink.err.at(-1)).to.contain('this reindex would shrink the live catalog from 10 to 4 grants');
    expect([...(await served(api)).keys()].sort()).to.deep.equal(ten);
  });
});
