// grants-indexer on a real Elasticsearch: timestamped indexes behind an alias, settings restored
// after the load, atomic swaps with --keep N previous indexes, rollback, rejections and empty
// sources leaving nothing behind, duplicates, and sync counts seen through the running API.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runIndexer } from '../../indexer/cli.js';
import { REPO_ROOT, startTestApi, type TestApi } from '../support/api.js';
import { ES_URL, describeWithElasticsearch, dropAlias, testClient, uniqueAlias } from '../support/elasticsearch.js';
import { servedIds } from '../support/catalog.js';

type Rec = Record<string, unknown>;

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-01T00:00:00.000Z';

/** A valid source record; `over` replaces any field. */
const rec = (id: string, over: Rec = {}): Rec => ({
  id,
  title: `Programme ${id}`,
  description: `Support for projects of ${id}.`,
  funder: 'Test Foundation',
  funderType: 'FOUNDATION',
  fundingType: 'GRANT',
  amountMin: 1000,
  amountMax: 5000,
  currency: 'CAD',
  eligibleProvinces: ['QUEBEC'],
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

const ids = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(3, '0')}`);

interface Run {
  code: number;
  out: string[];
  err: string[];
}

const G = '/external/v1/grants';

describeWithElasticsearch('grants-indexer on Elasticsearch', function () {
  this.timeout(120_000);

  let dir: string;
  let fileNo = 0;
  const aliases: string[] = [];
  const apis: TestApi[] = [];
  const client = testClient();

  /** A fresh alias, dropped after the suite. */
  const newAlias = (): string => {
    const alias = uniqueAlias();
    aliases.push(alias);
    return alias;
  };

  /** Writes records (objects or raw lines) as an NDJSON file; returns its path. */
  const source = (records: (Rec | string)[]): string => {
    fileNo += 1;
    const file = path.join(dir, `source-${fileNo}.ndjson`);
    writeFileSync(file, records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
    return file;
  };

  const indexer = async (alias: string, args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const env = {
      ...process.env,
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: ES_URL as string,
      ELASTICSEARCH_INDEX: alias,
    };
    const code = await runIndexer(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };

  /** reindex that must succeed; returns the index the alias points at afterwards. */
  const reindex = async (alias: string, records: Rec[], extra: string[] = []): Promise<string> => {
    const run = await indexer(alias, ['reindex', '--source', source(records), ...extra]);
    expect(run.code, run.err.join('\n')).to.equal(0);
    const targets = await aliasTargets(alias);
    expect(targets).to.have.length(1);
    return targets[0];
  };

  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  /** The status's alias, index, grants and indexes kept; its size and times are checked for shape here. */
  const status = async (
    alias: string,
  ): Promise<{ engine: string; alias: string; index: string | null; grants: number; kept: string[] }> => {
    const run = await indexer(alias, ['status']);
    expect(run.code, run.err.join('\n')).to.equal(0);
    const { lastReindexAt, lastSyncAt, bytes, usage, changes, ...rest } = JSON.parse(run.out.join('\n'));
    // The change log of the feed (its own suite checks it): null before a first run, else its counters.
    if (changes !== null) expect(changes).to.have.keys(['index', 'counter', 'horizon', 'tombstones']);
    expect(bytes).to.be.a('number');
    // The usage sizes of the data directory (none here, or the test APIs' own).
    if (usage !== null) expect(usage).to.have.keys(['usageLogRows', 'usageDailyRows']);
    if (rest.index === null) {
      expect([lastReindexAt, lastSyncAt, bytes]).to.deep.equal([null, null, 0]);
    } else {
      expect(lastReindexAt).to.match(ISO);
      if (lastSyncAt !== null) expect(lastSyncAt).to.match(ISO);
      expect(bytes).to.be.above(0);
    }
    return rest;
  };

  const aliasTargets = async (alias: string): Promise<string[]> => {
    try {
      return Object.keys(await client.indices.getAlias({ name: alias })).sort();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return [];
      throw error;
    }
  };

  /** Every index named after the alias (made by the writer or not), sorted. */
  const indexesOf = async (alias: string): Promise<string[]> => {
    const rows = (await client.cat.indices({
      index: `${alias}-*`,
      format: 'json',
      h: 'index',
    } as never)) as unknown as { index: string }[];
    return rows.map((r) => r.index).sort();
  };

  /** Every document behind the alias, by id (after a refresh). */
  const documents = async (alias: string): Promise<Map<string, Rec>> => {
    await client.indices.refresh({ index: alias });
    const res = await client.search<Rec>({
      index: alias,
      size: 10_000,
      sort: [{ id: 'asc' }],
      query: { match_all: {} },
    });
    return new Map(res.hits.hits.map((h) => [h._id as string, h._source as Rec]));
  };

  const apiOn = async (alias: string): Promise<TestApi> => {
    const api = await startTestApi({
      SEARCH_ENGINE: 'elasticsearch',
      ELASTICSEARCH_URL: ES_URL as string,
      ELASTICSEARCH_INDEX: alias,
      SEED_CATALOG: 'false',
    });
    apis.push(api);
    return api;
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'es-indexer-test-'));
  });

  after(async () => {
    for (const api of apis) await api.stop().catch(() => {});
    for (const alias of aliases) await dropAlias(alias).catch(() => {});
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a Grants.gov extract and a CSV through its mapping; the source of each grant is served', async () => {
    const alias = newAlias();
    const zip = path.join(REPO_ROOT, 'fixtures/imports/grants-gov-extract.zip');
    const run = await indexer(alias, ['reindex', '--source', zip]);
    expect(run.code, run.err.join('\n')).to.equal(0);
    expect(run.out).to.deep.equal(['reindex: indexed 4, rejected 0; the new catalog is live']);
    const csv = await indexer(alias, [
      'sync',
      '--source',
      path.join(REPO_ROOT, 'fixtures/imports/programs.csv'),
      '--mapping',
      path.join(REPO_ROOT, 'fixtures/imports/programs.mapping.json'),
    ]);
    expect(csv.code, csv.err.join('\n')).to.equal(0);
    const api = await apiOn(alias);
    const res = await api.request(`${G}/grants-gov-350001`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.source).to.deep.equal({
      name: 'Grants.gov',
      id: '350001',
      url: 'https://www.grants.gov/search-results-detail/350001',
    });
    const list = await api.request(`${G}?search=Ontario%20Community%20Energy&fields=source`);
    expect(list.body.data).to.deep.equal([
      { id: 'ON-2027-001', source: { name: 'Programs spreadsheet', id: 'ON-2027-001', url: null } },
    ]);
  });

  describe('reindex', () => {
    it('loads a new <alias>-<timestamp>-<hex> index, points the alias at it, restores refresh and replicas; status shows it', async () => {
      const alias = newAlias();
      const before = Date.now();
      const run = await indexer(alias, ['reindex', '--source', source(ids('a', 5).map((id) => rec(id)))]);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['reindex: indexed 5, rejected 0; the new catalog is live']);

      const targets = await aliasTargets(alias);
      expect(targets).to.have.length(1);
      const index = targets[0];
      const match = new RegExp(`^${alias}-(\\d{8})t(\\d{9})-[0-9a-f]{4}$`).exec(index);
      expect(match, index).to.not.equal(null);
      // The timestamp is the UTC time of the run.
      const [, d, t] = match as RegExpExecArray;
      const stamp = Date.parse(
        `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` +
          `T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}.${t.slice(6)}Z`,
      );
      expect(stamp).to.be.within(before - 1000, Date.now() + 1000);
      expect(await indexesOf(alias)).to.deep.equal([index]);

      const settings = await client.indices.getSettings({ index, flat_settings: true, include_defaults: true });
      const own = settings[index].settings as Record<string, string>;
      const effective = { ...(settings[index].defaults as Record<string, string>), ...own };
      expect(own['index.refresh_interval'], 'refresh switched back on after the load').to.not.equal('-1');
      expect(effective['index.refresh_interval']).to.not.equal('-1');
      expect(effective['index.number_of_replicas']).to.equal('0');
      expect(effective['index.number_of_shards']).to.equal('1');

      expect(await status(alias)).to.deep.equal({ engine: 'elasticsearch', alias, index, grants: 5, kept: [] });
      const docs = await documents(alias);
      expect([...docs.keys()].sort()).to.deep.equal(ids('a', 5));
      expect(docs.get('a001')).to.include({ title: 'Programme a001', updatedAt: T0 });
    });

    it('a second reindex swaps the alias and keeps exactly one previous index by default (--keep 1)', async () => {
      const alias = newAlias();
      const api = await apiOn(alias);
      const first = await reindex(
        alias,
        ids('a', 3).map((id) => rec(id)),
      );
      expect(await servedIds(api)).to.deep.equal(ids('a', 3));

      const second = await reindex(
        alias,
        ids('b', 4).map((id) => rec(id)),
      );
      expect(second).to.not.equal(first);
      expect(await aliasTargets(alias)).to.deep.equal([second]);
      expect(await status(alias)).to.deep.equal({
        engine: 'elasticsearch',
        alias,
        index: second,
        grants: 4,
        kept: [first],
      });
      expect(await servedIds(api)).to.deep.equal(ids('b', 4));

      const third = await reindex(
        alias,
        ids('c', 2).map((id) => rec(id)),
      );
      expect(await status(alias)).to.deep.equal({
        engine: 'elasticsearch',
        alias,
        index: third,
        grants: 2,
        kept: [second],
      });
      expect(await indexesOf(alias), 'the oldest index is deleted').to.deep.equal([second, third].sort());
      expect(await servedIds(api)).to.deep.equal(ids('c', 2));

      // --keep 0: nothing but the live index is left.
      const fourth = await reindex(
        alias,
        ids('d', 1).map((id) => rec(id)),
        ['--keep', '0'],
      );
      expect(await indexesOf(alias)).to.deep.equal([fourth]);
      expect((await status(alias)).kept).to.deep.equal([]);
    });

    it('the next reindex deletes an index left by a run that died mid-load, and keeps the stamped previous one', async () => {
      const alias = newAlias();
      const first = await reindex(
        alias,
        ids('a', 2).map((id) => rec(id)),
      );
      // What a killed run leaves: an index of the alias's pattern, started after the live one, never stamped.
      const stamp = new Date().toISOString().replace(/[-:.]/g, '').replace('Z', '').toLowerCase();
      const abandoned = `${alias}-${stamp}-dead`;
      await client.indices.create({ index: abandoned });
      expect(await indexesOf(alias)).to.deep.equal([first, abandoned].sort());

      const run = await indexer(alias, ['reindex', '--source', source(ids('b', 2).map((id) => rec(id)))]);
      expect(run.code, run.err.join('\n')).to.equal(0);
      const [second] = await aliasTargets(alias);
      expect(
        await indexesOf(alias),
        'the abandoned index is gone; the previous live one is kept for rollback',
      ).to.deep.equal([first, second].sort());
    });

    it('--keep 2 keeps the two previous indexes after three reindexes, and only two after a fourth', async () => {
      const alias = newAlias();
      const made: string[] = [];
      for (const prefix of ['a', 'b', 'c'])
        made.push(
          await reindex(
            alias,
            ids(prefix, 2).map((id) => rec(id)),
            ['--keep', '2'],
          ),
        );
      expect(new Set(made).size).to.equal(3);
      let st = await status(alias);
      expect(st.index).to.equal(made[2]);
      expect([...st.kept].sort()).to.deep.equal([made[0], made[1]].sort());
      expect(await indexesOf(alias)).to.deep.equal([...made].sort());

      made.push(
        await reindex(
          alias,
          ids('d', 2).map((id) => rec(id)),
          ['--keep', '2'],
        ),
      );
      st = await status(alias);
      expect(st.index).to.equal(made[3]);
      expect([...st.kept].sort()).to.deep.equal([made[1], made[2]].sort());
      expect(await indexesOf(alias)).to.deep.equal(made.slice(1).sort());
    });

    it('--keep outside 0..20 is bad usage (exit 2) and changes nothing', async () => {
      const alias = newAlias();
      for (const keep of ['-1', '21', 'x', '1.5']) {
        const run = await indexer(alias, ['reindex', '--source', source([rec('k1')]), `--keep=${keep}`]);
        expect(run.code, `--keep ${keep}`).to.equal(2);
      }
      expect(await indexesOf(alias)).to.deep.equal([]);
    });

    it('rejected records without --skip-invalid: exit 1, no new index left behind, the alias unchanged', async () => {
      const alias = newAlias();
      const live = await reindex(
        alias,
        ids('a', 3).map((id) => rec(id)),
      );
      const api = await apiOn(alias);
      const bad = source([
        rec('b001'),
        rec('b002', { amountMin: -5 }),
        rec('b003'),
        rec('b004', { funderType: 'NOPE' }),
      ]);
      const run = await indexer(alias, ['reindex', '--source', bad]);
      expect(run.code, run.err.join('\n')).to.equal(1);
      const rejected = run.err.filter((l) => l.startsWith('rejected record'));
      expect(rejected).to.have.length(2);
      expect(rejected[0]).to.match(/^rejected record 2 \(id "b002"\): amountMin: /);
      expect(rejected[1]).to.match(/^rejected record 4 \(id "b004"\): funderType: /);
      expect(run.err.join('\n')).to.include('2 record(s) rejected; nothing was changed');
      expect(await aliasTargets(alias)).to.deep.equal([live]);
      expect(await indexesOf(alias), 'the half-built index is deleted').to.deep.equal([live]);
      expect(await servedIds(api)).to.deep.equal(ids('a', 3));

      // With --skip-invalid the valid ones replace the catalog.
      const ok = await indexer(alias, ['reindex', '--source', bad, '--skip-invalid']);
      expect(ok.code, ok.err.join('\n')).to.equal(0);
      expect(ok.out).to.deep.equal(['reindex: indexed 2, rejected 2; the new catalog is live']);
      expect(await servedIds(api)).to.deep.equal(['b001', 'b003']);
    });

    it('rejections on a fresh alias: exit 1, no index and no alias created', async () => {
      const alias = newAlias();
      const run = await indexer(alias, ['reindex', '--source', source([rec('x1'), rec('x2', { currency: 'EUR' })])]);
      expect(run.code).to.equal(1);
      expect(await indexesOf(alias)).to.deep.equal([]);
      expect(await aliasTargets(alias)).to.deep.equal([]);
    });

    it('a source with nothing valid exits 3 and leaves nothing behind, with or without --skip-invalid', async () => {
      const alias = newAlias();
      const allBad = source([rec('z1', { title: '' }), '{not json', rec('z3', { currency: 'EUR' })]);
      const empty = source([]);
      for (const args of [
        ['--source', allBad],
        ['--source', allBad, '--skip-invalid'],
        ['--source', empty],
      ]) {
        const run = await indexer(alias, ['reindex', ...args]);
        expect(run.code, `${args.join(' ')}: ${run.err.join('\n')}`).to.equal(3);
        expect(await indexesOf(alias), args.join(' ')).to.deep.equal([]);
        expect(await aliasTargets(alias)).to.deep.equal([]);
      }

      // The same over a live catalog: it stays, and no index is added.
      const live = await reindex(alias, [rec('live1')]);
      for (const args of [
        ['--source', allBad, '--skip-invalid'],
        ['--source', empty],
      ]) {
        const run = await indexer(alias, ['reindex', ...args]);
        expect(run.code, args.join(' ')).to.equal(3);
        expect(run.err.join('\n')).to.match(/no valid record/);
        expect(await indexesOf(alias)).to.deep.equal([live]);
        expect(await aliasTargets(alias)).to.deep.equal([live]);
      }
      expect((await status(alias)).grants).to.equal(1);
    });

    it('a duplicate id: the first is kept and counted as rejected; without --skip-invalid nothing is changed', async () => {
      const alias = newAlias();
      const records = [rec('d1', { title: 'First d1' }), rec('d2'), rec('d1', { title: 'Second d1' }), rec('d3')];
      const strict = await indexer(alias, ['reindex', '--source', source(records)]);
      expect(strict.code).to.equal(1);
      expect(strict.err.filter((l) => l.startsWith('rejected record'))).to.have.length(1);
      expect(strict.err.find((l) => l.startsWith('rejected record'))).to.match(
        /\(id "d1"\): id: appears more than once in the source; the first one was kept$/,
      );
      expect(await indexesOf(alias)).to.deep.equal([]);

      const run = await indexer(alias, ['reindex', '--source', source(records), '--skip-invalid']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['reindex: indexed 3, rejected 1; the new catalog is live']);
      const docs = await documents(alias);
      expect([...docs.keys()].sort()).to.deep.equal(['d1', 'd2', 'd3']);
      expect(docs.get('d1')?.title).to.equal('First d1');
    });

    it('a duplicate report carries its record number (as on the embedded engine)', async () => {
      const alias = newAlias();
      const records = [rec('d1'), rec('d2'), rec('d1', { title: 'Second d1' })];
      const run = await indexer(alias, ['reindex', '--source', source(records), '--skip-invalid']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.err.filter((l) => l.startsWith('rejected record'))).to.deep.equal([
        'rejected record 3 (id "d1"): id: appears more than once in the source; the first one was kept',
      ]);
    });
  });

  describe('rollback', () => {
    it('points the alias back at the previous index, and the running API answers from it', async () => {
      const alias = newAlias();
      const api = await apiOn(alias);
      const first = await reindex(
        alias,
        ids('a', 3).map((id) => rec(id)),
      );
      const second = await reindex(
        alias,
        ids('b', 5).map((id) => rec(id)),
      );
      expect(await servedIds(api)).to.deep.equal(ids('b', 5));

      const run = await indexer(alias, ['rollback']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal([`rollback: the alias now points at ${first} (was ${second})`]);
      expect(await aliasTargets(alias)).to.deep.equal([first]);
      expect(await servedIds(api)).to.deep.equal(ids('a', 3));
      const one = await api.request(`${G}/a002`);
      expect(one.status).to.equal(200);
      expect(one.body.data.id).to.equal('a002');
      expect((await api.request(`${G}/b001`)).status).to.equal(404);
      const st = await status(alias);
      expect(st).to.include({ index: first, grants: 3 });
      expect(st.kept).to.deep.equal([second]);

      // Nothing older than the first index: rollback fails and changes nothing.
      const again = await indexer(alias, ['rollback']);
      expect(again.code).to.equal(3);
      expect(again.err.join('\n')).to.match(/nothing to roll back to/);
      expect(await aliasTargets(alias)).to.deep.equal([first]);
    });

    it('fails (exit 3) on an alias that does not exist', async () => {
      const alias = newAlias();
      const run = await indexer(alias, ['rollback']);
      expect(run.code).to.equal(3);
      expect(run.err.join('\n')).to.match(/does not exist/);
    });
  });

  describe('sync', () => {
    /** Base catalog: s001..s010 at T0. */
    const base = () => ids('s', 10).map((id) => rec(id));
    /** A source: s001..s005 unchanged, s006/s007 changed, s008 rejected, s009/s010 missing, n001/n002 new. */
    const changes = (): Rec[] => [
      ...ids('s', 5).map((id) => rec(id)),
      rec('s006', { title: 'Renamed s006', updatedAt: T1 }),
      rec('s007', { amountMax: 9000, updatedAt: T1 }),
      rec('s008', { amountMin: 10, amountMax: 1, updatedAt: T1 }),
      rec('n001'),
      rec('n002', { title: 'New n002' }),
    ];

    it('counts added, updated, unchanged, deleted (--prune) and rejected exactly; the API sees the changes; a rejected grant is not pruned', async () => {
      const alias = newAlias();
      await reindex(alias, base());
      const api = await apiOn(alias);
      const run = await indexer(alias, ['sync', '--source', source(changes()), '--prune', '--skip-invalid']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 2, updated 2, unchanged 5, deleted 2, rejected 1']);
      expect(run.err.filter((l) => l.startsWith('rejected record'))).to.have.length(1);
      expect(run.err.find((l) => l.startsWith('rejected record'))).to.match(/^rejected record 8 \(id "s008"\)/);

      expect(await servedIds(api)).to.deep.equal([...ids('s', 8), 'n001', 'n002'].sort());
      const s006 = await api.request(`${G}/s006`);
      expect(s006.body.data).to.include({ title: 'Renamed s006', updatedAt: T1 });
      expect((await api.request(`${G}/s007`)).body.data.amountMax).to.equal(9000);
      // The rejected record neither updated nor pruned its grant.
      expect((await api.request(`${G}/s008`)).body.data).to.include({
        amountMin: 1000,
        amountMax: 5000,
        updatedAt: T0,
      });
      expect((await api.request(`${G}/s009`)).status).to.equal(404);
      expect((await api.request(`${G}/n002`)).body.data.title).to.equal('New n002');
      const search = await api.request(`${G}?search=renamed`);
      expect(search.body.pagination.total).to.equal(1);
      expect(search.body.data[0].id).to.equal('s006');

      // The same source again: all unchanged, nothing to delete.
      const again = await indexer(alias, ['sync', '--source', source(changes()), '--prune', '--skip-invalid']);
      expect(again.out).to.deep.equal(['sync: added 0, updated 0, unchanged 9, deleted 0, rejected 1']);
      // The sync wrote into the live index: no new index.
      expect(await indexesOf(alias)).to.have.length(1);
    });

    it('without --prune deletes nothing', async () => {
      const alias = newAlias();
      await reindex(alias, base());
      const run = await indexer(alias, ['sync', '--source', source(changes()), '--skip-invalid']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 2, updated 2, unchanged 5, deleted 0, rejected 1']);
      expect([...(await documents(alias)).keys()].sort()).to.deep.equal([...ids('s', 10), 'n001', 'n002'].sort());
    });

    it('a rejection without --skip-invalid exits 1 and changes nothing (file sources are validated first)', async () => {
      const alias = newAlias();
      await reindex(alias, base());
      const before = await documents(alias);
      const run = await indexer(alias, ['sync', '--source', source(changes()), '--prune']);
      expect(run.code, run.err.join('\n')).to.equal(1);
      expect(run.out).to.deep.equal([]);
      expect(run.err.join('\n')).to.include('1 record(s) rejected; nothing was changed');
      const after = await documents(alias);
      expect([...after.entries()]).to.deep.equal([...before.entries()]);
    });

    it('a duplicate without --skip-invalid exits 1 and changes nothing', async () => {
      // A duplicate id counts as a rejection (docs/cli.md), so the catalog must be left as it was.
      const alias = newAlias();
      await reindex(alias, base());
      const before = await documents(alias);
      const dup = [rec('n001'), rec('s006', { title: 'Renamed s006', updatedAt: T1 }), rec('n001', { title: 'again' })];
      const run = await indexer(alias, ['sync', '--source', source(dup)]);
      expect(run.code, run.err.join('\n')).to.equal(1);
      expect(run.err).to.include(
        'rejected record 3 (id "n001"): id: appears more than once in the source; the first one was kept',
      );
      const after = await documents(alias);
      expect([...after.keys()], 'n001 must not have been added').to.deep.equal([...before.keys()]);
      expect(after.get('s006')?.title, 's006 must not have been updated').to.equal('Programme s006');
    });

    it('a duplicate with --skip-invalid is counted as rejected and the first one wins', async () => {
      const alias = newAlias();
      await reindex(alias, base());
      const dup = [rec('n001', { title: 'First n001' }), rec('n001', { title: 'Second n001' })];
      const run = await indexer(alias, ['sync', '--source', source(dup), '--skip-invalid']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      expect(run.out).to.deep.equal(['sync: added 1, updated 0, unchanged 0, deleted 0, rejected 1']);
      expect((await documents(alias)).get('n001')?.title).to.equal('First n001');
    });

    it('status shows the last reindex and the last sync (kept in the index _meta) and the size in bytes', async () => {
      const alias = newAlias();
      const t0 = Date.now();
      await reindex(alias, base());
      const read = async () => JSON.parse((await indexer(alias, ['status'])).out.join('\n'));
      const first = await read();
      expect(Date.parse(first.lastReindexAt)).to.be.within(t0 - 1000, Date.now() + 1000);
      expect(first.lastSyncAt).to.equal(null);
      expect(first.bytes).to.be.above(0);
      const t1 = Date.now();
      const run = await indexer(alias, ['sync', '--source', source(changes()), '--skip-invalid']);
      expect(run.code, run.err.join('\n')).to.equal(0);
      const after = await read();
      expect(after.lastReindexAt).to.equal(first.lastReindexAt);
      expect(Date.parse(after.lastSyncAt)).to.be.within(t1 - 1000, Date.now() + 1000);
    });

    it('the shrink guard: a reindex or sync --prune losing more than half refuses (exit 4) unless --allow-shrink', async () => {
      const alias = newAlias();
      const live = await reindex(alias, base());
      const small = source(ids('s', 4).map((id) => rec(id)));
      const refused = await indexer(alias, ['reindex', '--source', small]);
      expect(refused.code, refused.err.join('\n')).to.equal(4);
      expect(refused.err.join('\n')).to.contain('would shrink the live catalog from 10 to 4 grants (6 fewer, −60 %)');
      expect(await aliasTargets(alias)).to.deep.equal([live]);
      expect(await indexesOf(alias), 'the refused index is deleted').to.deep.equal([live]);
      const prune = await indexer(alias, ['sync', '--source', small, '--prune']);
      expect(prune.code, prune.err.join('\n')).to.equal(4);
      expect([...(await documents(alias)).keys()].sort()).to.deep.equal(ids('s', 10));
      const allowed = await indexer(alias, ['sync', '--source', small, '--prune', '--allow-shrink']);
      expect(allowed.code, allowed.err.join('\n')).to.equal(0);
      expect(allowed.out).to.deep.equal(['sync: added 0, updated 0, unchanged 4, deleted 6, rejected 0']);
      expect([...(await documents(alias)).keys()].sort()).to.deep.equal(ids('s', 4));
    });

    it('fails (exit 3) when the alias does not exist, creating nothing', async () => {
      const alias = newAlias();
      const run = await indexer(alias, ['sync', '--source', source([rec('q1')])]);
      expect(run.code).to.equal(3);
      expect(run.err.join('\n')).to.match(/does not exist; run reindex first/);
      expect(await indexesOf(alias)).to.deep.equal([]);
      expect(await aliasTargets(alias)).to.deep.equal([]);
    });
  });
});
