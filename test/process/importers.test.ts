// grants-indexer's importers end to end, as an operator runs them (real processes, a real API over
// the catalog): the format guessed or given, gzip, stdin, CSV through a mapping, date-only
// deadlines, our own CSV export loaded back, and bad input refused with the catalog untouched.
import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Grant } from '../../src/grants/schema.js';
import { REPO_ROOT, tempDir, type TestApi } from '../support/api.js';
import { runBin } from '../support/bins.js';
import { GRANTS_PATH as G, ITEM_LABELS, recordMaker, startApiOnCatalog, toNdjson } from '../support/catalog.js';

const rec = recordMaker(ITEM_LABELS);
const IMPORTS = path.join(REPO_ROOT, 'fixtures/imports');
const PROGRAMS_CSV = path.join(IMPORTS, 'programs.csv');
const PROGRAMS_MAPPING = path.join(IMPORTS, 'programs.mapping.json');
const EXPORT_MAPPING = path.join(REPO_ROOT, 'mappings/grants-export-csv.json');

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

/** The whole catalog the API serves, by id (read through GET /grants/export as NDJSON). */
async function served(api: TestApi): Promise<Map<string, Grant>> {
  const res = await api.request(`${G}/export?format=ndjson`);
  expect(res.status, res.text).to.equal(200);
  return new Map(
    lines(res.text)
      .map((line) => JSON.parse(line) as Grant)
      .map((g) => [g.id, g]),
  );
}

describe('grants-indexer importers', function () {
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

  beforeEach(async function () {
    dir = tempDir('grants-importers-');
    api = await startApiOnCatalog(dir);
  });
  afterEach(async function () {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('formats', function () {
    it('says the format it guessed, from the extension or else the first characters; --format chooses', async function () {
      const guessed = await indexer(['reindex', '--source', write('a.ndjson', toNdjson([rec('a-1')]))], dir);
      expect(guessed.code, guessed.err.join('\n')).to.equal(0);
      expect(guessed.err[0]).to.equal(
        `reading ${path.join(dir, 'a.ndjson')} as ndjson (guessed from the extension .ndjson; --format to choose)`,
      );

      const array = await indexer(
        ['reindex', '--source', write('grants.txt', JSON.stringify([rec('b-1'), rec('b-2')]))],
        dir,
      );
      expect(array.code, array.err.join('\n')).to.equal(0);
      expect(array.err[0]).to.match(/ as json \(guessed from the first characters; --format to choose\)$/);
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['b-1', 'b-2']);

      const given = await indexer(
        ['sync', '--source', write('more.data', toNdjson([rec('b-3')])), '--format', 'ndjson'],
        dir,
      );
      expect(given.code, given.err.join('\n')).to.equal(0);
      expect(given.err[0]).to.equal(`reading ${path.join(dir, 'more.data')} as ndjson`);
      expect(given.out).to.deep.equal(['sync: added 1, updated 0, unchanged 0, deleted 0, rejected 0']);
    });

    it('reads a gzipped source as it streams, and stdin with a peek at its first bytes', async function () {
      const gz = write('grants.ndjson.gz', gzipSync(toNdjson([rec('g-1'), rec('g-2')])));
      const run = await indexer(['reindex', '--source', gz], dir);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.err[0]).to.match(/ as ndjson \(guessed from the extension \.ndjson, gzip-compressed;/);
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['g-1', 'g-2']);

      const whole = gzipSync(toNdjson([rec('g-3'), rec('g-4')]));
      const cut = write('cut.ndjson.gz', whole.subarray(0, whole.length - 12));
      const truncated = await indexer(['reindex', '--source', cut, '--skip-invalid'], dir);
      expect(truncated.code).to.equal(3);
      expect(truncated.err.at(-1)).to.match(
        new RegExp(
          `^grants-indexer: ${cut} is not a complete gzip file \\(.*\\): it is damaged or was cut short\\. ` +
            `Nothing was changed\\.$`,
        ),
      );
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['g-1', 'g-2']);

      const csv = readFileSync(PROGRAMS_CSV, 'utf8');
      const piped = await indexer(['sync', '--source', '-', '--mapping', PROGRAMS_MAPPING], dir, csv);
      expect(piped.code, piped.err.join('\n')).to.equal(0);
      expect(piped.err[0]).to.equal(
        'reading standard input as csv (guessed from the first characters; --format to choose)',
      );
      expect(piped.out).to.deep.equal(['sync: added 3, updated 0, unchanged 0, deleted 0, rejected 0']);
    });

    it('bad usage: an unknown format, CSV without a mapping, a mapping for another format, a bad time zone (exit 2, nothing changed)', async function () {
      await seed(['s-1']);
      const ndjson = write('x.ndjson', toNdjson([rec('x-1')]));
      for (const [args, message] of [
        [
          ['--source', ndjson, '--format', 'yaml'],
          '--format must be one of ndjson, json, csv, grants-gov, commongrants, not "yaml"',
        ],
        [['--source', PROGRAMS_CSV], 'is read as CSV, which needs --mapping FILE'],
        [
          ['--source', ndjson, '--mapping', PROGRAMS_MAPPING],
          `--mapping is for CSV sources; ${ndjson} is read as ndjson`,
        ],
        [
          ['--source', ndjson, '--time-zone', 'Mars/Olympus'],
          '--time-zone must be an IANA time zone such as America/Toronto, not "Mars/Olympus"',
        ],
        [
          ['--source', PROGRAMS_CSV, '--mapping', write('bad.json', '{"fields":{"titel":"Name"}}')],
          'fields.titel: is not a field of a grant',
        ],
        [['--source', PROGRAMS_CSV, '--mapping', write('broken.json', '{"fields":')], 'is not valid JSON'],
        [['--source', ndjson, '--rejects', 'r.ndjson'], '--rejects goes with --skip-invalid'],
        [
          ['--source', ndjson, '--skip-invalid', '--rejects', '/nonexistent-folder/r.ndjson'],
          'the folder of the rejects file /nonexistent-folder/r.ndjson does not exist',
        ],
        [['--source', ndjson, '--skip-invalid', '--rejects', '/tmp'], 'the rejects file /tmp is a folder, not a file'],
        [
          ['--source', PROGRAMS_CSV, '--mapping', PROGRAMS_MAPPING, '--time-zone', 'UTC'],
          '--time-zone is for NDJSON, JSON and CommonGrants sources; ' +
            PROGRAMS_CSV +
            " is read as csv, whose dates take the mapping's timeZone",
        ],
      ] as const) {
        const run = await indexer(['reindex', ...args], dir);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.err.join('\n'), args.join(' ')).to.contain(message);
      }
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['s-1']);
    });
  });

  describe('CSV through a mapping', function () {
    it('loads a spreadsheet: columns, value maps, lists, "$1,500.00", a date-only deadline at the end of its day in Toronto', async function () {
      const run = await indexer(['reindex', '--source', PROGRAMS_CSV, '--mapping', PROGRAMS_MAPPING], dir);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['reindex: indexed 3, rejected 0; the new catalog is live']);
      const grants = await served(api);
      expect(grants.get('ON-2027-001')).to.deep.include({
        title: 'Ontario Community Energy Fund',
        description: 'Helps community groups plan local energy projects, from studies to "shovel-ready" designs.',
        funderType: 'PROVINCIAL_TERRITORIAL_GRANT',
        fundingType: 'GRANT',
        amountMin: 5000,
        amountMax: 150000,
        currency: 'CAD',
        deadline: '2027-01-16T04:59:59.999Z',
        eligibleProvinces: ['ONTARIO'],
        targetBeneficiaries: ['NON_PROFIT', 'MUNICIPALITIES'],
        isRecurring: true,
        createdAt: '2026-09-01T04:00:00.000Z',
        source: { name: 'Programs spreadsheet', id: 'ON-2027-001', url: null },
      });
      expect(grants.get('CA-2027-100')).to.deep.include({
        fundingType: 'WAGE_SUBSIDY',
        deadline: null,
        amountMin: 1500,
      });
      expect(grants.get('CA-2027-100')!.eligibleProvinces).to.have.length(13);
      expect(grants.get('QC-2027-014')).to.deep.include({
        amountMin: null,
        isRecurring: false,
        eligibleProvinces: ['QUEBEC'],
      });
    });

    it('our own CSV export loads back with mappings/grants-export-csv.json: the same catalog', async function () {
      const fixtures = await indexer(['reindex', '--source', path.join(REPO_ROOT, 'fixtures/grants.ndjson')], dir);
      expect(fixtures.code, fixtures.err.join('\n')).to.equal(0);
      const before = await served(api);
      const exported = await api.request(`${G}/export?format=csv`);
      expect(exported.status).to.equal(200);
      expect(before.size).to.equal(600);

      const again = await indexer(
        ['reindex', '--source', write('export.csv', exported.text), '--mapping', EXPORT_MAPPING],
        dir,
      );
      expect(again.code, again.err.join('\n')).to.equal(0);
      expect(again.out).to.deep.equal(['reindex: indexed 600, rejected 0; the new catalog is live']);
      const after = await served(api);
      expect([...after.keys()]).to.deep.equal([...before.keys()]);
      for (const [id, grant] of before) expect(after.get(id), id).to.deep.equal(grant);

      const sync = await indexer(['sync', '--source', path.join(dir, 'export.csv'), '--mapping', EXPORT_MAPPING], dir);
      expect(sync.out).to.deep.equal(['sync: added 0, updated 0, unchanged 600, deleted 0, rejected 0']);
    });

    it('a ragged row and an unknown value are rejected naming their line; nothing changes without --skip-invalid', async function () {
      await seed(['s-1', 's-2', 's-3']);
      const csv = readFileSync(PROGRAMS_CSV, 'utf8').split('\n');
      csv[2] = csv[2].replace(',Provincial,', ',Regional,');
      csv[3] = 'CA-9,Too short,only three cells';
      const source = write('bad.csv', csv.join('\n'));
      const run = await indexer(['sync', '--source', source, '--mapping', PROGRAMS_MAPPING], dir);
      expect(run.code).to.equal(1);
      expect(run.err.filter((l) => l.startsWith('rejected'))).to.deep.equal([
        'rejected record 2 (line 3, id "QC-2027-014"): funderType: unknown value "Regional" in column ' +
          '"Funder kind": not one of CORPORATE, FEDERAL_GRANT, FOUNDATION, MUNICIPAL_GRANT, ' +
          "NON_PROFIT_ORGANIZATION, PROVINCIAL_TERRITORIAL_GRANT or one of the mapping's values for it " +
          '("federal", "provincial", "municipal", "foundation")',
        'rejected record 3 (line 4): (row): has 3 cells where the header has 15',
      ]);
      expect(run.err.at(-1)).to.equal(
        'grants-indexer: 2 record(s) rejected; nothing was changed (use --skip-invalid to index the valid ones)',
      );
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['s-1', 's-2', 's-3']);

      const rejects = path.join(dir, 'rejects.ndjson');
      const skipped = await indexer(
        ['sync', '--source', source, '--mapping', PROGRAMS_MAPPING, '--skip-invalid', '--rejects', rejects],
        dir,
      );
      expect(skipped.code, skipped.err.join('\n')).to.equal(0);
      expect(skipped.out).to.deep.equal(['sync: added 1, updated 0, unchanged 0, deleted 0, rejected 2']);
      expect(skipped.err.at(-1)).to.equal(`2 rejected record(s) written to ${rejects}`);
      const report = lines(readFileSync(rejects, 'utf8')).map((l) => JSON.parse(l));
      expect(report.map((r) => [r.record, r.where, r.id])).to.deep.equal([
        [2, 'line 3', 'QC-2027-014'],
        [3, 'line 4', null],
      ]);
      expect(report[0].source['Funder kind']).to.equal('Regional');
      expect(report[1].source).to.deep.include({
        'Program ID': 'CA-9',
        'Program name': 'Too short',
        Summary: 'only three cells',
        Funder: null,
      });
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['ON-2027-001', 's-1', 's-2', 's-3']);
    });

    it('a file that is not UTF-8, or a quote never closed, is refused naming its line (exit 3), even with --skip-invalid', async function () {
      await seed(['s-1']);
      const latin1 = Buffer.from(readFileSync(PROGRAMS_CSV, 'utf8'), 'latin1');
      const source = write('latin1.csv', latin1);
      for (const skip of [[], ['--skip-invalid']]) {
        const run = await indexer(['reindex', '--source', source, '--mapping', PROGRAMS_MAPPING, ...skip], dir);
        expect(run.code).to.equal(3);
        expect(run.err.at(-1)).to.equal(
          `grants-indexer: ${source} is not valid UTF-8 at line 3 (probably saved as Latin-1 or ` +
            `Windows-1252): save it as UTF-8 ("CSV UTF-8" in a spreadsheet) and run again. Nothing was ` +
            `changed.`,
        );
      }
      const unclosed = write('unclosed.csv', `${readFileSync(PROGRAMS_CSV, 'utf8')}X-1,"never closed,\n`);
      const run = await indexer(
        ['reindex', '--source', unclosed, '--mapping', PROGRAMS_MAPPING, '--skip-invalid'],
        dir,
      );
      expect(run.code).to.equal(3);
      expect(run.err.at(-1)).to.match(/cannot be read as CSV after line 4: Quote Not Closed.*Nothing was changed\.$/);
      const missing = await indexer(
        ['reindex', '--source', write('other.csv', 'a,b\n1,2\n'), '--mapping', PROGRAMS_MAPPING],
        dir,
      );
      expect(missing.code).to.equal(3);
      expect(missing.err.at(-1)).to.contain('has no column "Program ID", "Program name"');
      expect([...(await served(api)).keys()].sort()).to.deep.equal(['s-1']);
    });
  });

  describe('date-only deadlines in NDJSON and JSON', function () {
    it('are the end of that day in America/Toronto, or in --time-zone', async function () {
      const source = write(
        'days.ndjson',
        toNdjson([rec('d-1', { deadline: '2027-01-15' }), rec('d-2', { deadline: '2027-07-01T12:00:00Z' })]),
      );
      const run = await indexer(['reindex', '--source', source], dir);
      expect(run.code, run.err.join('\n')).to.equal(0);
      let grants = await served(api);
      expect(grants.get('d-1')!.deadline).to.equal('2027-01-16T04:59:59.999Z');
      expect(grants.get('d-2')!.deadline).to.equal('2027-07-01T12:00:00.000Z');
      const utc = await indexer(['reindex', '--source', source, '--time-zone', 'UTC'], dir);
      expect(utc.code, utc.err.join('\n')).to.equal(0);
      grants = await served(api);
      expect(grants.get('d-1')!.deadline).to.equal('2027-01-15T23:59:59.999Z');
      const impossible = await indexer(
        ['sync', '--source', write('bad-day.ndjson', toNdjson([rec('d-3', { deadline: '2027-02-30' })]))],
        dir,
      );
      expect(impossible.code).to.equal(1);
      expect(impossible.err).to.include('rejected record 1 (id "d-3"): deadline: must match format "date-time"');
    });
  });
});
