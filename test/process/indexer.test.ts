// grants-indexer end to end: reindex (NDJSON, JSON array, stdin), the rejection report and exit
// codes, sync counts, status, help, and the atomic replacement of a catalog the API is serving.
import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_RECORD_CHARS } from '../../indexer/source.js';
import { openSubscriptionsDb, subscriptionsPath } from '../../src/subscriptions/sqlite/database.js';
import { tempDir, type TestApi } from '../support/api.js';
import { runBin } from '../support/bins.js';
import {
  GRANTS_PATH as G,
  ITEM_LABELS,
  recordMaker,
  runSqliteIndexer as indexer,
  servedIds,
  startApiOnCatalog,
  toNdjson as ndjson,
  type GrantRecord as Rec,
} from '../support/catalog.js';

const rec = recordMaker(ITEM_LABELS);

interface Run {
  code: number | null;
  out: string[];
  err: string[];
}

/** Runs bin/grants-indexer.js as a child process, optionally piping `input` to its stdin. */
async function spawnIndexer(args: string[], dir: string, input?: string): Promise<Run> {
  const run = await runBin('grants-indexer', args, {
    env: { ...process.env, SEARCH_ENGINE: 'sqlite', DATA_DIR: dir, LOG_LEVEL: 'silent' },
    input,
  });
  const lines = (s: string) => s.split('\n').filter((l) => l !== '');
  return { code: run.code, out: lines(run.out), err: lines(run.err) };
}

const rejectionLines = (run: Run): string[] => run.err.filter((l) => l.startsWith('rejected record'));

describe('grants-indexer', function () {
  this.timeout(30_000);
  let dir: string;
  let api: TestApi;
  const write = (name: string, content: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };
  /** Reindexes the given records; the test fails if that does not succeed. */
  const seed = async (records: Rec[]) => {
    const run = await indexer(['reindex', '--source', write('seed.ndjson', ndjson(records))], dir);
    expect(run.code, run.err.join('\n')).to.equal(0);
  };
  const A = ['a-1', 'a-2', 'a-3'];

  beforeEach(async function () {
    dir = tempDir('grants-indexer-');
    api = await startApiOnCatalog(dir);
  });
  afterEach(async function () {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('reindex', function () {
    it('from NDJSON: indexes every record and replaces the whole catalog', async function () {
      await seed(A.map((id) => rec(id)));
      expect(await servedIds(api)).to.deep.equal(A);
      const run = await indexer(['reindex', '--source', write('b.ndjson', ndjson([rec('b-2'), rec('b-1')]))], dir);
      expect(run.code).to.equal(0);
      expect(run.out).to.deep.equal(['reindex: indexed 2, rejected 0; the new catalog is live']);
      expect(rejectionLines(run)).to.deep.equal([]);
      expect(await servedIds(api)).to.deep.equal(['b-1', 'b-2']);
    });

    it('from NDJSON with CRLF line ends and blank lines', async function () {
      const run = await indexer(
        [
          'reindex',
          '--source',
          write('crlf.ndjson', `\r\n${JSON.stringify(rec('c-1'))}\r\n\r\n${JSON.stringify(rec('c-2'))}`),
        ],
        dir,
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['reindex: indexed 2, rejected 0; the new catalog is live']);
      expect(await servedIds(api)).to.deep.equal(['c-1', 'c-2']);
    });

    it('from a pretty-printed JSON array spanning many read chunks, with JSON syntax inside strings', async function () {
      const tricky = 'Brackets ] [ } { , "quoted, \\"escaped\\"" and a backslash \\ — Québec ✓';
      const records = Array.from({ length: 400 }, (_, i) =>
        rec(`j-${String(i).padStart(3, '0')}`, {
          description: `${'Long description é '.repeat(40)}${i}`,
          title: i === 217 ? tricky : `Array item ${i}`,
        }),
      );
      const run = await indexer(
        ['reindex', '--source', write('array.json', `  \n${JSON.stringify(records, null, 2)}\n`)],
        dir,
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['reindex: indexed 400, rejected 0; the new catalog is live']);
      const ids = await servedIds(api);
      expect(ids).to.have.length(400);
      expect(ids).to.deep.equal(records.map((r) => r.id));
      const one = await api.request(`${G}/j-217`);
      expect(one.body.data.title).to.equal(tricky);
      expect(one.body.data.description).to.equal(`${'Long description é '.repeat(40)}217`);
    });

    it('ignores a UTF-8 byte-order mark at the start of the source, NDJSON or JSON array', async function () {
      const bom = '\uFEFF';
      const asArray = await indexer(
        ['reindex', '--source', write('bom.json', `${bom}${JSON.stringify([rec('m-1'), rec('m-2')])}`)],
        dir,
      );
      expect(asArray.code, asArray.err.join('\n')).to.equal(0);
      expect(await servedIds(api)).to.deep.equal(['m-1', 'm-2']);
      const asNdjson = await indexer(
        ['reindex', '--source', write('bom.ndjson', `${bom}${ndjson([rec('n-1'), rec('n-2')])}`)],
        dir,
      );
      expect(asNdjson.code, asNdjson.err.join('\n')).to.equal(0);
      expect(asNdjson.out).to.deep.equal(['reindex: indexed 2, rejected 0; the new catalog is live']);
      expect(await servedIds(api)).to.deep.equal(['n-1', 'n-2']);
    });

    it('from a compact one-line JSON array', async function () {
      const run = await indexer(
        [
          'reindex',
          '--source',
          write('compact.json', JSON.stringify([rec('k-1'), rec('k-2', { eligibleProvinces: ['QUEBEC', 'ONTARIO'] })])),
        ],
        dir,
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(await servedIds(api)).to.deep.equal(['k-1', 'k-2']);
    });

    it('from stdin (--source -), NDJSON and JSON array, through bin/grants-indexer.js', async function () {
      const fromNdjson = await spawnIndexer(
        ['reindex', '--source', '-'],
        dir,
        ndjson([rec('s-1'), rec('s-2'), rec('s-3')]),
      );
      expect(fromNdjson.code, fromNdjson.err.join('\n')).to.equal(0);
      expect(fromNdjson.out).to.deep.equal(['reindex: indexed 3, rejected 0; the new catalog is live']);
      expect(await servedIds(api)).to.deep.equal(['s-1', 's-2', 's-3']);
      const fromArray = await spawnIndexer(
        ['reindex', '--source', '-'],
        dir,
        JSON.stringify([rec('t-1'), rec('t-2')], null, 1),
      );
      expect(fromArray.code, fromArray.err.join('\n')).to.equal(0);
      expect(await servedIds(api)).to.deep.equal(['t-1', 't-2']);
    });

    describe('rejections', function () {
      const source = [
        JSON.stringify(rec('ok-1')),
        JSON.stringify({ ...rec('bad-title'), title: undefined }),
        '{"id": "broken", not json',
        JSON.stringify(rec('bad-enum', { funderType: 'STATE_GRANT' })),
        JSON.stringify(rec('ok-2')),
        '42',
        JSON.stringify(rec('bad-amounts', { amountMin: 10, amountMax: 5 })),
        JSON.stringify(rec('bad-field', { foo: 1 })),
        JSON.stringify(rec('bad-date', { deadline: 'next tuesday' })),
        JSON.stringify(rec('bad id')),
        JSON.stringify({ ...rec('two-problems', { currency: 'EUR', amountMin: 10, amountMax: 5 }), funder: undefined }),
      ].join('\n');
      const expectedLines: RegExp[] = [
        /^rejected record 2 \(id "bad-title"\): title: is required$/,
        /^rejected record 3: \(record\): not valid JSON \(.+\)$/,
        /^rejected record 4 \(id "bad-enum"\): funderType: must be one of CORPORATE, FEDERAL_GRANT, FOUNDATION, MUNICIPAL_GRANT, NON_PROFIT_ORGANIZATION, PROVINCIAL_TERRITORIAL_GRANT$/,
        /^rejected record 6: \(record\): must be a JSON object$/,
        /^rejected record 7 \(id "bad-amounts"\): amountMin: must not exceed amountMax$/,
        /^rejected record 8 \(id "bad-field"\): foo: is not a field of a grant$/,
        /^rejected record 9 \(id "bad-date"\): deadline: must match format "date-time"$/,
        /^rejected record 10 \(id "bad id"\): id: must match pattern/,
        /^rejected record 11 \(id "two-problems"\): (?=.*funder: is required)(?=.*currency: must be one of CAD, USD)(?=.*amountMin: must not exceed amountMax).*; .*$/,
      ];

      it('reports one line per bad record (number, id, field, reason), exits 1 and leaves the catalog unchanged', async function () {
        await seed(A.map((id) => rec(id)));
        const run = await indexer(['reindex', '--source', write('bad.ndjson', source)], dir);
        expect(run.code).to.equal(1);
        expect(run.out).to.deep.equal([]);
        const lines = rejectionLines(run);
        expect(lines, run.err.join('\n')).to.have.length(expectedLines.length);
        lines.forEach((line, i) => expect(line).to.match(expectedLines[i]));
        expect(run.err.at(-1)).to.equal(
          'grants-indexer: 9 record(s) rejected; nothing was changed (use --skip-invalid to index the valid ones)',
        );
        expect(await servedIds(api)).to.deep.equal(A);
      });

      it('with --skip-invalid indexes the valid records and reports the same lines', async function () {
        await seed(A.map((id) => rec(id)));
        const rejects = path.join(dir, 'rejects.ndjson');
        const run = await indexer(
          ['reindex', '--source', write('bad.ndjson', source), '--skip-invalid', '--rejects', rejects],
          dir,
        );
        expect(run.code, run.err.join('\n')).to.equal(0);
        expect(run.out).to.deep.equal(['reindex: indexed 2, rejected 9; the new catalog is live']);
        const lines = rejectionLines(run);
        expect(lines).to.have.length(expectedLines.length);
        lines.forEach((line, i) => expect(line).to.match(expectedLines[i]));
        expect(await servedIds(api)).to.deep.equal(['ok-1', 'ok-2']);
        // The rejects file keeps each record as the source held it: a line that is not JSON as its text.
        const report = readFileSync(rejects, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l));
        expect(report.map((r) => r.record)).to.deep.equal([2, 3, 4, 6, 7, 8, 9, 10, 11]);
        expect(report[1]).to.deep.include({ record: 3, where: null, id: null, source: '{"id": "broken", not json' });
        expect(report[1].problems[0].reason).to.match(/^not valid JSON \(/);
        expect(report[3].source).to.equal(42);
      });

      it('with --skip-invalid, a line longer than 1,000,000 characters is in the rejects file without its text', async function () {
        const long = `{"id": "huge", "title": "${'x'.repeat(MAX_RECORD_CHARS)}"`;
        const rejects = path.join(dir, 'rejects.ndjson');
        const run = await indexer(
          [
            'reindex',
            '--source',
            write('long.ndjson', [JSON.stringify(rec('ok-1')), long].join('\n')),
            '--skip-invalid',
            '--rejects',
            rejects,
          ],
          dir,
        );
        expect(run.code, run.err.join('\n')).to.equal(0);
        const report = JSON.parse(readFileSync(rejects, 'utf8'));
        expect(report).to.deep.include({ record: 2, source: null });
        expect(report.problems[0].reason).to.equal(`record longer than ${MAX_RECORD_CHARS} characters`);
      });

      it('a source with no valid record exits 3 and leaves the catalog unchanged', async function () {
        await seed(A.map((id) => rec(id)));
        const allBad = await indexer(
          ['reindex', '--source', write('allbad.ndjson', ndjson([rec('x', { currency: 'EUR' }), 7])), '--skip-invalid'],
          dir,
        );
        expect(allBad.code).to.equal(3);
        expect(rejectionLines(allBad)).to.have.length(2);
        expect(allBad.out).to.deep.equal([]);
        for (const content of ['', '\n\n  \n', '[]', '[ ]']) {
          const empty = await indexer(['reindex', '--source', write('empty.ndjson', content)], dir);
          expect(empty.code, JSON.stringify(content)).to.equal(3);
          expect(empty.out).to.deep.equal([]);
        }
        const missing = await indexer(['reindex', '--source', path.join(dir, 'does-not-exist.ndjson')], dir);
        expect(missing.code).to.equal(3);
        expect(await servedIds(api)).to.deep.equal(A);
      });

      it('a truncated JSON array is reported and nothing changes', async function () {
        await seed(A.map((id) => rec(id)));
        const run = await indexer(
          [
            'reindex',
            '--source',
            write('cut.json', `[${JSON.stringify(rec('c-1'))}, ${JSON.stringify(rec('c-2')).slice(0, 30)}`),
          ],
          dir,
        );
        expect(run.code).to.equal(1);
        expect(rejectionLines(run)).to.have.length(1);
        expect(rejectionLines(run)[0]).to.match(/^rejected record 2: \(record\): .*not closed/);
        expect(await servedIds(api)).to.deep.equal(A);
      });

      it('a duplicate id is reported with its record number, exits 1 and changes nothing; with --skip-invalid the first is kept', async function () {
        await seed(A.map((id) => rec(id)));
        const file = write(
          'dup.ndjson',
          ndjson([rec('d-1', { title: 'First copy' }), rec('d-2'), rec('d-1', { title: 'Second copy' })]),
        );
        const run = await indexer(['reindex', '--source', file], dir);
        expect(run.code).to.equal(1);
        expect(await servedIds(api)).to.deep.equal(A);
        const skipped = await indexer(['reindex', '--source', file, '--skip-invalid'], dir);
        expect(skipped.code).to.equal(0);
        expect(skipped.out).to.deep.equal(['reindex: indexed 2, rejected 1; the new catalog is live']);
        expect(await servedIds(api)).to.deep.equal(['d-1', 'd-2']);
        expect((await api.request(`${G}/d-1`)).body.data.title).to.equal('First copy');
        const lines = rejectionLines(run);
        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(/"d-1"/);
        expect(lines[0]).to.match(/more than once/);
        expect(lines[0], 'the report names the record number of the duplicate').to.match(
          /^rejected record 3 \(id "d-1"\): id: /,
        );
      });

      it('a record with a leap-second timestamp (valid RFC 3339) is indexed or rejected, never aborts the run', async function () {
        await seed(A.map((id) => rec(id)));
        const run = await indexer(
          [
            'reindex',
            '--source',
            write('leap.ndjson', ndjson([rec('l-1'), rec('l-2', { deadline: '2026-12-31T23:59:60Z' })])),
            '--skip-invalid',
            '--allow-shrink',
          ],
          dir,
        );
        expect(run.code, run.err.join('\n')).to.equal(0);
        const lines = rejectionLines(run);
        if (lines.length === 0) {
          expect(run.out).to.deep.equal(['reindex: indexed 2, rejected 0; the new catalog is live']);
          expect(await servedIds(api)).to.deep.equal(['l-1', 'l-2']);
        } else {
          expect(lines).to.have.length(1);
          expect(lines[0]).to.match(/^rejected record 2 \(id "l-2"\): deadline: /);
          expect(run.out).to.deep.equal(['reindex: indexed 1, rejected 1; the new catalog is live']);
          expect(await servedIds(api)).to.deep.equal(['l-1']);
        }
      });
    });
  });

  describe('sync', function () {
    const OLD = '2026-01-01T00:00:00.000Z';
    const NEW = '2026-03-01T00:00:00.000Z';
    const start = () =>
      seed([
        rec('s1', { title: 'Unchanged walrus' }),
        rec('s2', { title: 'Original otter' }),
        rec('s3', { title: 'Vanishing heron' }),
        rec('s4', { title: 'Protected puffin' }),
      ]);
    // s1 same updatedAt (written differently), s2 changed, s3 absent, s4 rejected, s5 new.
    const changes = () =>
      ndjson([
        rec('s1', { title: 'Unchanged walrus but edited', updatedAt: '2026-01-01T00:00:00Z' }),
        rec('s2', { title: 'Renamed zebra', updatedAt: NEW }),
        rec('s4', { title: 'Protected puffin', funderType: 'NOT_A_TYPE' }),
        rec('s5', { title: 'Brand new lynx', updatedAt: NEW }),
      ]);
    const title = async (id: string) => (await api.request(`${G}/${id}`)).body.data?.title;
    const found = async (word: string) => (await api.request(`${G}?search=${word}`)).body.data.map((g: Rec) => g.id);

    it('without --skip-invalid a rejection exits 1 and changes nothing', async function () {
      await start();
      const run = await indexer(['sync', '--source', write('sync.ndjson', changes()), '--prune'], dir);
      expect(run.code).to.equal(1);
      expect(rejectionLines(run)).to.have.length(1);
      expect(rejectionLines(run)[0]).to.match(/^rejected record 3 \(id "s4"\): funderType: must be one of /);
      expect(run.out).to.deep.equal([]);
      expect(await servedIds(api)).to.deep.equal(['s1', 's2', 's3', 's4']);
      expect(await title('s2')).to.equal('Original otter');
    });

    it('counts added, updated, unchanged, deleted (--prune) and rejected exactly; a rejected record is not pruned', async function () {
      await start();
      const run = await indexer(
        ['sync', '--source', write('sync.ndjson', changes()), '--prune', '--skip-invalid'],
        dir,
      );
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 1, updated 1, unchanged 1, deleted 1, rejected 1']);
      expect(await servedIds(api)).to.deep.equal(['s1', 's2', 's4', 's5']);
      expect(await title('s1')).to.equal('Unchanged walrus');
      expect(await title('s2')).to.equal('Renamed zebra');
      expect(await title('s4')).to.equal('Protected puffin');
      expect(await title('s5')).to.equal('Brand new lynx');
      expect((await api.request(`${G}/s2`)).body.data.updatedAt).to.equal(NEW);
      // The text index follows the rows.
      expect(await found('zebra')).to.deep.equal(['s2']);
      expect(await found('otter')).to.deep.equal([]);
      expect(await found('heron')).to.deep.equal([]);
      expect(await found('lynx')).to.deep.equal(['s5']);
      expect(await found('walrus')).to.deep.equal(['s1']);
      expect(await found('edited')).to.deep.equal([]);

      const again = await indexer(
        ['sync', '--source', write('sync.ndjson', changes()), '--prune', '--skip-invalid'],
        dir,
      );
      expect(again.out).to.deep.equal(['sync: added 0, updated 0, unchanged 3, deleted 0, rejected 1']);
      expect(await servedIds(api)).to.deep.equal(['s1', 's2', 's4', 's5']);
    });

    it('without --prune nothing is deleted', async function () {
      await start();
      const run = await indexer(['sync', '--source', write('sync.ndjson', changes()), '--skip-invalid'], dir);
      expect(run.code).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 1, updated 1, unchanged 1, deleted 0, rejected 1']);
      expect(await servedIds(api)).to.deep.equal(['s1', 's2', 's3', 's4', 's5']);
      expect(await found('heron')).to.deep.equal(['s3']);
    });

    it('prunes everything missing from a valid source, and counts duplicates as rejected', async function () {
      await start();
      const run = await indexer(
        [
          'sync',
          '--source',
          write('sync.ndjson', ndjson([rec('s2', { updatedAt: OLD }), rec('s2', { updatedAt: NEW })])),
          '--prune',
          '--skip-invalid',
          '--allow-shrink',
        ],
        dir,
      );
      expect(run.code).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 0, updated 0, unchanged 1, deleted 3, rejected 1']);
      expect(await servedIds(api)).to.deep.equal(['s2']);
    });

    it('refuses to prune from an empty source (exit 3) and changes nothing', async function () {
      await start();
      const run = await indexer(['sync', '--source', write('empty.ndjson', ''), '--prune'], dir);
      expect(run.code).to.equal(3);
      expect(await servedIds(api)).to.deep.equal(['s1', 's2', 's3', 's4']);
      const noPrune = await indexer(['sync', '--source', write('empty.ndjson', '')], dir);
      expect(noPrune.code).to.equal(0);
      expect(noPrune.out).to.deep.equal(['sync: added 0, updated 0, unchanged 0, deleted 0, rejected 0']);
    });

    it('syncs from stdin', async function () {
      await start();
      const run = await spawnIndexer(['sync', '--source', '-', '--skip-invalid'], dir, changes());
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 1, updated 1, unchanged 1, deleted 0, rejected 1']);
    });
  });

  describe('status, help and usage', function () {
    it('status describes the live catalog', async function () {
      const empty = await indexer(['status'], dir);
      expect(empty.code).to.equal(0);
      const before = JSON.parse(empty.out.join('\n'));
      expect(before).to.deep.include({
        engine: 'sqlite',
        file: path.join(dir, 'catalog.sqlite'),
        grants: 0,
        lastReindexAt: null,
      });
      expect(before.usage, 'the API serving this data directory has a subscriptions database').to.have.keys([
        'usageLogRows',
        'usageDailyRows',
      ]);
      const t0 = Date.now();
      await seed(A.map((id) => rec(id)));
      const run = await indexer(['status'], dir);
      expect(run.code).to.equal(0);
      const status = JSON.parse(run.out.join('\n'));
      expect(Object.keys(status)).to.have.members([
        'engine',
        'file',
        'grants',
        'lastReindexAt',
        'lastSyncAt',
        'bytes',
        'walBytes',
        'changes',
        'usage',
      ]);
      expect(status.engine).to.equal('sqlite');
      expect(status.file).to.equal(path.join(dir, 'catalog.sqlite'));
      expect(status.grants).to.equal(3);
      expect(status.changes).to.deep.equal({ counter: 3, horizon: 0, tombstones: 0 });
      expect(status.lastReindexAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(status.lastReindexAt)).to.be.within(t0 - 1000, Date.now() + 1000);
      expect(status.bytes).to.be.a('number').above(0);
    });

    it('status shows the usage log sizes of the data directory', async function () {
      const db = openSubscriptionsDb(subscriptionsPath(dir));
      db.prepare(
        `INSERT INTO usage_log (at, day, subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms,
          request_id)
         VALUES ('2026-11-01T00:00:00.000Z', '2026-11-01', 's', 'k', 'p', '/grants', 1, 200, 1, 'r1'),
                ('2026-11-02T00:00:00.000Z', '2026-11-02', 's', 'k', 'p', '/grants', 1, 200, 1, 'r2'),
                ('2026-11-02T00:00:01.000Z', '2026-11-02', 's', 'k', 'p', '/grants', 1, 200, 1, 'r3')`,
      ).run();
      db.close();
      const run = await indexer(['status'], dir);
      expect(run.code).to.equal(0);
      expect(JSON.parse(run.out.join('\n')).usage).to.deep.equal({ usageLogRows: 3, usageDailyRows: 2 });
    });

    for (const command of ['reindex', 'sync', 'status', 'rollback']) {
      it(`${command} --help prints that command's usage and exits 0`, async function () {
        for (const flag of ['--help', '-h']) {
          const run = await indexer([command, flag], dir);
          expect(run.code).to.equal(0);
          expect(run.out.join('\n')).to.match(new RegExp(`^Usage: grants-indexer ${command}`));
        }
      });
    }

    it('--help, -h and help print the main usage and exit 0; no command exits 2', async function () {
      for (const args of [['--help'], ['-h'], ['help']]) {
        const run = await indexer(args, dir);
        expect(run.code, args.join(' ')).to.equal(0);
        expect(run.out.join('\n')).to.match(/^Usage: grants-indexer <command>/);
      }
      expect((await indexer([], dir)).code).to.equal(2);
    });

    it('an unknown command exits 2 and names it', async function () {
      for (const command of ['frobnicate', 'main', 'REINDEX', 'toString', '__proto__']) {
        const run = await indexer([command], dir);
        expect(run.code, command).to.equal(2);
        expect(run.err.join('\n')).to.contain(`unknown command "${command}"`);
      }
      const child = await spawnIndexer(['frobnicate'], dir);
      expect(child.code).to.equal(2);
      expect(child.err.join('\n')).to.contain('unknown command "frobnicate"');
    });

    it('bad usage exits 2 and changes nothing', async function () {
      await seed(A.map((id) => rec(id)));
      const file = write('b.ndjson', ndjson([rec('b-1')]));
      for (const args of [
        ['reindex'],
        ['sync'],
        ['reindex', '--source', file, '--bogus'],
        ['reindex', '--source', file, '--prune'],
        ['sync', '--source', file, '--keep', '1'],
        ['status', '--source', file],
        ['rollback', '--prune'],
        ['reindex', '--source'],
        ['reindex', '--source', file, '--skip-invalid=yes'],
        ['reindex', '--source', file, 'extra'],
        ['reindex', '--source', file, '--engine', 'nope'],
      ]) {
        const run = await indexer(args, dir);
        expect(run.code, args.join(' ')).to.equal(2);
      }
      expect(await servedIds(api)).to.deep.equal(A);
    });

    it('a source it cannot read (missing, a folder): one sentence naming the file and what to do, exit 3, nothing changed', async function () {
      await seed(A.map((id) => rec(id)));
      const missing = path.join(dir, 'nope.ndjson');
      for (const [args, problem] of [
        [['reindex', '--source', missing], `the source file ${missing} does not exist`],
        [['sync', '--source', missing], `the source file ${missing} does not exist`],
        [['reindex', '--source', dir], `the source file ${dir} is a folder, not a file`],
        [['sync', '--source', '/etc'], 'the source file /etc is a folder, not a file'],
      ] as const) {
        const run = await spawnIndexer([...args], dir);
        expect(run.code, args.join(' ')).to.equal(3);
        expect(run.err, args.join(' ')).to.deep.equal([
          `grants-indexer: ${problem}; give --source a file of grants (NDJSON, a JSON array, CSV with ` +
            `--mapping, a Grants.gov extract) or - to read standard input. Nothing was changed.`,
        ]);
        expect(run.err.join('\n')).not.to.match(/ENOENT|EISDIR/);
      }
      expect(await servedIds(api)).to.deep.equal(A);
    });
  });
});

describe('grants-indexer: atomic replacement under load', function () {
  this.timeout(45_000);
  let dir: string;
  let api: TestApi;

  /** Valid records whose titles all hold `word` and the common word "program". */
  const generate = (word: string, count: number): string => {
    const lines: string[] = [];
    for (let i = 0; i < count; i += 1) {
      lines.push(
        JSON.stringify({
          id: `${word}-${String(i).padStart(5, '0')}`,
          title: `${word} program ${i}`,
          description: `The ${word} catalog, record ${i}, for the atomic replacement test.`,
          funder: `${word} funder ${i % 17}`,
          funderType: i % 2 === 0 ? 'FEDERAL_GRANT' : 'FOUNDATION',
          fundingType: 'GRANT',
          amountMin: i,
          amountMax: i + 1000,
          currency: 'CAD',
          deadline: new Date(Date.UTC(2027, 0, 1) + (i % 300) * 86_400_000).toISOString(),
          eligibleProvinces: ['ONTARIO'],
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        }),
      );
    }
    return `${lines.join('\n')}\n`;
  };

  before(async function () {
    dir = tempDir('grants-atomic-');
    writeFileSync(path.join(dir, 'a.ndjson'), generate('alpha', 3000));
    writeFileSync(path.join(dir, 'b.ndjson'), generate('beta', 4000));
    const run = await indexer(['reindex', '--source', path.join(dir, 'a.ndjson')], dir);
    expect(run.code, run.err.join('\n')).to.equal(0);
    api = await startApiOnCatalog(dir);
  });
  after(async function () {
    await api?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('readers see the whole old catalog or the whole new one, never an empty or partial one', async function () {
    const queries = [
      `${G}?limit=1`,
      `${G}?search=program&limit=1`,
      `${G}?limit=5&page=3&funderType=FEDERAL_GRANT,FOUNDATION`,
      `${G}?search=program&amountMin=0&limit=2&page=7`,
    ];
    let childDone = false;
    const child = spawnIndexer(['reindex', '--source', path.join(dir, 'b.ndjson')], dir).then((run) => {
      childDone = true;
      return run;
    });
    const rounds: { total: number; catalog: string }[][] = [];
    let roundsWhileRunning = 0;
    let extra = 0;
    while (extra < 2) {
      if (childDone) extra += 1;
      else roundsWhileRunning += 1;
      const results = await Promise.all(queries.map((q) => api.request(q)));
      rounds.push(
        results.map((res, i) => {
          expect(res.status, `${queries[i]}: ${res.text}`).to.equal(200);
          const first = res.body.data[0];
          return { total: res.body.pagination.total, catalog: first ? String(first.id).split('-')[0] : 'none' };
        }),
      );
    }
    const run = await child;
    expect(run.code, run.err.join('\n')).to.equal(0);
    expect(run.out).to.deep.equal(['reindex: indexed 4000, rejected 0; the new catalog is live']);

    const all = rounds.flat();
    for (const { total, catalog } of all) {
      expect([3000, 4000]).to.include(total);
      // The page and its total come from the same catalog.
      expect(catalog).to.equal(total === 3000 ? 'alpha' : 'beta');
    }
    expect(
      all.some((r) => r.total === 3000),
      'saw the old catalog',
    ).to.equal(true);
    expect(
      all.some((r) => r.total === 4000),
      'saw the new catalog',
    ).to.equal(true);
    // Once a round has seen the new catalog, no later round sees the old one.
    const firstNew = rounds.findIndex((round) => round.some((r) => r.total === 4000));
    for (const round of rounds.slice(firstNew + 1))
      expect(round.map((r) => r.total)).to.deep.equal(queries.map(() => 4000));
    expect(roundsWhileRunning, 'queries ran while the reindex was running').to.be.above(3);

    const beta = await api.request(`${G}?search=beta&limit=1`);
    expect(beta.body.pagination.total).to.equal(4000);
    const alpha = await api.request(`${G}?search=alpha&limit=1`);
    expect(alpha.body.pagination.total).to.equal(0);
    const filters = await api.request(`${G}/filters`);
    expect(filters.body.data.funderTypes).to.deep.equal(['FEDERAL_GRANT', 'FOUNDATION']);
  });
});
