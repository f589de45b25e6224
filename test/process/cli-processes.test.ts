// Both CLIs as an operator runs them: spawned bin/ scripts on temporary folders. A missing
// database is reported and never created, flags a command does not take are usage errors, tier
// and status words in any case, key rotation (with a grace period) and the last-key guard, our own
// messages for bad numbers; grants-indexer's status (size with the WAL, last sync), its shrink
// guard for reindex and sync --prune, and a JSON array with a trailing comma rejected.
import { expect } from 'chai';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTestApi, tempDir, type TestApi } from '../support/api.js';
import { runBin, type BinRun } from '../support/bins.js';
import { ITEM_LABELS, recordMaker, servedIds, startApiOnCatalog, toNdjson } from '../support/catalog.js';

/** Runs bin/<name>.js in `cwd` with `env` on top of this process's, DATA_DIR and SEARCH_ENGINE removed unless given. */
function spawnBin(
  name: 'grants-admin' | 'grants-indexer',
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<BinRun> {
  const base = { ...process.env };
  delete base.DATA_DIR;
  delete base.SEARCH_ENGINE;
  return runBin(name, args, { cwd, env: { ...base, LOG_LEVEL: 'silent', ...env } });
}

const rec = recordMaker(ITEM_LABELS);
const ids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);

describe('CLIs as spawned processes', function () {
  this.timeout(60_000);
  let cwd: string;

  beforeEach(function () {
    cwd = tempDir('grants-cli-cwd-');
  });
  afterEach(function () {
    rmSync(cwd, { recursive: true, force: true });
  });

  describe('read-only commands on a missing database', function () {
    it('grants-admin list, show and key list from another folder: exit 1, "no database at …", nothing created', async function () {
      const file = path.join(cwd, 'data', 'subscriptions.sqlite');
      for (const args of [
        ['subscription', 'list'],
        ['subscription', 'show', 'sub_x'],
        ['key', 'list', 'sub_x'],
        ['key', 'revoke', 'key_x'],
      ]) {
        const run = await spawnBin('grants-admin', args, cwd);
        expect(run.code, args.join(' ')).to.equal(1);
        expect(run.err.trim()).to.equal(`grants-admin: no database at ${file}; set DATA_DIR or --data-dir`);
        expect(run.out).to.equal('');
        expect(readdirSync(cwd), 'no data/ folder appeared').to.deep.equal([]);
      }
      const elsewhere = path.join(cwd, 'nowhere');
      const withFlag = await spawnBin('grants-admin', ['subscription', 'list', '--data-dir', elsewhere], cwd);
      expect(withFlag.code).to.equal(1);
      expect(withFlag.err).to.contain(`no database at ${path.join(elsewhere, 'subscriptions.sqlite')}`);
      expect(existsSync(elsewhere)).to.equal(false);
    });

    it('grants-indexer status from another folder: non-zero exit, "no database at …", nothing created', async function () {
      const run = await spawnBin('grants-indexer', ['status'], cwd);
      expect(run.code).to.equal(3);
      expect(run.err.trim()).to.equal(
        `grants-indexer: no database at ${path.join(cwd, 'data', 'catalog.sqlite')}; set DATA_DIR or --data-dir`,
      );
      expect(readdirSync(cwd)).to.deep.equal([]);
    });

    it('subscription create still creates DATA_DIR and the database', async function () {
      const run = await spawnBin(
        'grants-admin',
        ['subscription', 'create', '--name', 'First', '--tier', 'starter', '--json'],
        cwd,
      );
      expect(run.code, run.err).to.equal(0);
      expect(existsSync(path.join(cwd, 'data', 'subscriptions.sqlite'))).to.equal(true);
    });
  });

  describe('grants-admin usage and values', function () {
    let env: Record<string, string>;
    beforeEach(function () {
      env = { DATA_DIR: path.join(cwd, 'data') };
    });
    const admin = (...args: string[]) => spawnBin('grants-admin', args, cwd, env);
    const create = async (tier = 'STARTER') => {
      const run = await admin('subscription', 'create', '--name', 'Acme', '--tier', tier, '--json');
      expect(run.code, run.err).to.equal(0);
      return JSON.parse(run.out) as {
        subscriptionId: string;
        keyId: string;
        apiKey: string;
        subscription: { tier: string };
      };
    };

    it('flags a command does not take are a usage error (exit 2), naming the flag', async function () {
      const sub = await create();
      for (const [args, flag] of [
        [['subscription', 'list', '--rate-limit', '5'], '--rate-limit'],
        [['subscription', 'show', sub.subscriptionId, '--tier', 'STARTER'], '--tier'],
        [['key', 'revoke', sub.keyId, '--json'], '--json'],
        [['subscription', 'set-status', sub.subscriptionId, 'ACTIVE', '--grace', '5'], '--grace'],
        [['key', 'create', sub.subscriptionId, '--force'], '--force'],
      ] as [string[], string][]) {
        const run = await admin(...args);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.err).to.contain(`${args.slice(0, 2).join(' ')} does not take ${flag}`);
        expect(run.out).to.equal('');
      }
      // Nothing was changed by the refused commands.
      const keys = JSON.parse((await admin('key', 'list', sub.subscriptionId, '--json')).out);
      expect(keys).to.have.length(1);
      expect(keys[0].revokedAt).to.equal(null);
    });

    it('tier and status words are accepted in lower case', async function () {
      const sub = await create('professional');
      expect(sub.subscription.tier).to.equal('PROFESSIONAL');
      const run = await admin('subscription', 'set-status', sub.subscriptionId, 'suspended');
      expect(run.code, run.err).to.equal(0);
      expect(run.out.trim()).to.equal(`subscription ${sub.subscriptionId} is now SUSPENDED`);
      expect(JSON.parse((await admin('subscription', 'show', sub.subscriptionId, '--json')).out).status).to.equal(
        'SUSPENDED',
      );
    });

    it("bad numbers get our own message, never Node's", async function () {
      const sub = await create();
      for (const value of ['-3', '0', '1e3', '2.5', '', ' 7']) {
        const run = await admin('subscription', 'set-limits', sub.subscriptionId, '--monthly-limit', value);
        expect(run.code, JSON.stringify(value)).to.equal(2);
        expect(run.err).to.contain(
          `--monthly-limit must be an integer from 1 to 1000000000 (or "default"), not "${value}"`,
        );
        expect(run.err).not.to.match(/ERR_|ambiguous|Did you forget/);
      }
    });

    it('revoking the last active key asks for --force; with --force it is revoked', async function () {
      const sub = await create();
      const refused = await admin('key', 'revoke', sub.keyId);
      expect(refused.code).to.equal(2);
      expect(refused.err).to.contain(`key ${sub.keyId} is the last active key of ${sub.subscriptionId}`);
      expect(refused.err).to.contain('--force');
      expect(JSON.parse((await admin('key', 'list', sub.subscriptionId, '--json')).out)[0].revokedAt).to.equal(null);
      const forced = await admin('key', 'revoke', sub.keyId, '--force');
      expect(forced.code, forced.err).to.equal(0);
      expect(forced.out.trim()).to.equal(`key ${sub.keyId} revoked`);
    });

    describe('key rotate', function () {
      let api: TestApi | undefined;
      afterEach(async function () {
        await api?.stop();
        api = undefined;
      });

      it('creates the new key and revokes the old one in one step: the old key is refused at once', async function () {
        const sub = await create();
        api = await startTestApi({ DATA_DIR: env.DATA_DIR, SEED_CATALOG: 'false' });
        expect((await api.request('/external/v1/subscription/limits', { key: sub.apiKey })).status).to.equal(200);
        const run = await admin('key', 'rotate', sub.keyId, '--json');
        expect(run.code, run.err).to.equal(0);
        const rotated = JSON.parse(run.out);
        expect(rotated).to.include({ subscriptionId: sub.subscriptionId, oldKeyId: sub.keyId });
        expect(rotated.apiKey).to.match(/^gk_live_/);
        expect(Date.parse(rotated.oldKeyRevokedAt)).to.be.at.most(Date.now());
        expect((await api.request('/external/v1/subscription/limits', { key: sub.apiKey })).status).to.equal(401);
        expect((await api.request('/external/v1/subscription/limits', { key: rotated.apiKey })).status).to.equal(200);
        // Rotating a revoked key is refused.
        const again = await admin('key', 'rotate', sub.keyId);
        expect(again.code).to.equal(1);
        expect(again.err).to.contain('already revoked');
      });

      it('--grace SECONDS keeps the old key valid that long, then the API refuses it', async function () {
        const sub = await create();
        let offsetMs = 0;
        api = await startTestApi(
          { DATA_DIR: env.DATA_DIR, SEED_CATALOG: 'false' },
          { clock: () => new Date(Date.now() + offsetMs) },
        );
        const before = Date.now();
        const run = await admin('key', 'rotate', sub.keyId, '--grace', '600');
        expect(run.code, run.err).to.equal(0);
        const newKey = /\n {2}(gk_live_\S+)\n/.exec(run.out)?.[1];
        expect(newKey, run.out).to.be.a('string');
        expect(run.out).to.match(new RegExp(`key ${sub.keyId} stays valid until \\S+Z, then is revoked`));
        const old = JSON.parse((await admin('key', 'list', sub.subscriptionId, '--json')).out).find(
          (k: { id: string }) => k.id === sub.keyId,
        );
        expect(Date.parse(old.revokedAt)).to.be.within(before + 600_000 - 1000, Date.now() + 600_000 + 1000);
        const limits = (key: string) => api!.request('/external/v1/subscription/limits', { key });
        expect((await limits(sub.apiKey)).status, 'the old key during the grace period').to.equal(200);
        expect((await limits(newKey as string)).status).to.equal(200);
        const list = await admin('key', 'list', sub.subscriptionId);
        expect(list.out).to.contain(`REVOKED FROM ${old.revokedAt}`);
        offsetMs = 601_000;
        expect((await limits(sub.apiKey)).status, 'the old key after the grace period').to.equal(401);
        expect((await limits(newKey as string)).status).to.equal(200);
      });

      it('a plain revoke during the grace period takes effect at once', async function () {
        const sub = await create();
        api = await startTestApi({ DATA_DIR: env.DATA_DIR, SEED_CATALOG: 'false' });
        expect((await admin('key', 'rotate', sub.keyId, '--grace', '600')).code).to.equal(0);
        expect((await api.request('/external/v1/subscription/limits', { key: sub.apiKey })).status).to.equal(200);
        const run = await admin('key', 'revoke', sub.keyId);
        expect(run.code, run.err).to.equal(0);
        expect((await api.request('/external/v1/subscription/limits', { key: sub.apiKey })).status).to.equal(401);
      });

      it('bad --grace values and unknown keys', async function () {
        const sub = await create();
        for (const grace of ['-1', 'soon', '2592001', '1.5']) {
          const run = await admin('key', 'rotate', sub.keyId, '--grace', grace);
          expect(run.code, grace).to.equal(2);
          expect(run.err).to.contain(`--grace must be a number of seconds from 0 to 2592000, not "${grace}"`);
        }
        const unknown = await admin('key', 'rotate', 'key_nope');
        expect(unknown.code).to.equal(1);
        expect(unknown.err.trim()).to.equal('grants-admin: no key has the id "key_nope"');
        expect(JSON.parse((await admin('key', 'list', sub.subscriptionId, '--json')).out)).to.have.length(1);
      });
    });
  });

  describe('grants-indexer', function () {
    let api: TestApi;
    let env: Record<string, string>;
    const indexer = (...args: string[]) => spawnBin('grants-indexer', args, cwd, env);
    const write = (name: string, content: string) => {
      const file = path.join(cwd, name);
      writeFileSync(file, content);
      return file;
    };
    const status = async () => {
      const run = await indexer('status');
      expect(run.code, run.err).to.equal(0);
      return JSON.parse(run.out);
    };

    beforeEach(async function () {
      env = { DATA_DIR: path.join(cwd, 'data'), SEARCH_ENGINE: 'sqlite' };
      const seeded = await indexer(
        'reindex',
        '--source',
        write('seed.ndjson', toNdjson(ids('a', 10).map((id) => rec(id)))),
      );
      expect(seeded.code, seeded.err).to.equal(0);
      api = await startApiOnCatalog(env.DATA_DIR);
    });
    afterEach(async function () {
      await api?.stop();
    });

    it('status: the size counts the write-ahead log, and the last sync is shown beside the last reindex', async function () {
      const first = await status();
      expect(first.lastSyncAt).to.equal(null);
      expect(first.lastReindexAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const t0 = Date.now();
      const sync = await indexer(
        'sync',
        '--source',
        write('sync.ndjson', toNdjson([rec('a-01', { updatedAt: '2026-05-01T00:00:00.000Z' })])),
      );
      expect(sync.code, sync.err).to.equal(0);
      const after = await status();
      expect(Date.parse(after.lastSyncAt)).to.be.within(t0 - 1000, Date.now() + 1000);
      expect(after.lastReindexAt).to.equal(first.lastReindexAt);
      const file = path.join(env.DATA_DIR, 'catalog.sqlite');
      // The API holds the catalog open, so the recent writes are still in the WAL.
      const wal = statSync(`${file}-wal`).size;
      expect(wal).to.be.above(0);
      expect(after.walBytes).to.equal(wal);
      expect(after.bytes).to.equal(statSync(file).size + wal);
    });

    it('a reindex that would shrink the catalog by more than half is refused (exit 4, by how much) unless --allow-shrink', async function () {
      const small = write('small.ndjson', toNdjson(ids('b', 4).map((id) => rec(id))));
      const refused = await indexer('reindex', '--source', small);
      expect(refused.code).to.equal(4);
      expect(refused.out).to.equal('');
      expect(refused.err.trim().split('\n').at(-1)).to.equal(
        'grants-indexer: this reindex would shrink the live catalog from 10 to 4 grants (6 fewer, −60 %); ' +
          'nothing was changed (use --allow-shrink if that is intended)',
      );
      expect(await servedIds(api)).to.deep.equal(ids('a', 10));
      // Exactly half is not more than half.
      const half = await indexer(
        'reindex',
        '--source',
        write('half.ndjson', toNdjson(ids('c', 5).map((id) => rec(id)))),
      );
      expect(half.code, half.err).to.equal(0);
      expect(await servedIds(api)).to.deep.equal(ids('c', 5));
      const twoOfFive = write('two.ndjson', toNdjson(ids('d', 2).map((id) => rec(id))));
      expect((await indexer('reindex', '--source', twoOfFive)).code).to.equal(4);
      const allowed = await indexer('reindex', '--source', twoOfFive, '--allow-shrink');
      expect(allowed.code, allowed.err).to.equal(0);
      expect(await servedIds(api)).to.deep.equal(ids('d', 2));
    });

    it('sync --prune that would delete more than half is refused unless --allow-shrink', async function () {
      const source = write('keep4.ndjson', toNdjson(ids('a', 4).map((id) => rec(id))));
      const refused = await indexer('sync', '--source', source, '--prune');
      expect(refused.code).to.equal(4);
      expect(refused.err).to.contain('this sync would shrink the live catalog from 10 to 4 grants (6 fewer, −60 %)');
      expect(await servedIds(api)).to.deep.equal(ids('a', 10));
      const allowed = await indexer('sync', '--source', source, '--prune', '--allow-shrink');
      expect(allowed.code, allowed.err).to.equal(0);
      expect(allowed.out.trim()).to.equal('sync: added 0, updated 0, unchanged 4, deleted 6, rejected 0');
      expect(await servedIds(api)).to.deep.equal(ids('a', 4));
    });

    it('a JSON array with a trailing comma (or an empty element) is invalid JSON: rejected, nothing changed', async function () {
      const [x, y] = [JSON.stringify(rec('x-1')), JSON.stringify(rec('x-2'))];
      for (const [content, line] of [
        [`[${x}, ${y},]`, 'rejected record 3: (record): not valid JSON (a trailing comma before "]")'],
        [`[\n${x},\n${y},\n]\n`, 'rejected record 3: (record): not valid JSON (a trailing comma before "]")'],
        [`[${x},,${y}]`, 'rejected record 2: (record): not valid JSON (an empty element between commas)'],
        ['[,]', 'rejected record 1: (record): not valid JSON (an empty element between commas)'],
      ]) {
        const run = await indexer('reindex', '--source', write('comma.json', content), '--allow-shrink');
        expect(run.code, content).to.not.equal(0);
        expect(run.err.split('\n')).to.include(line);
        expect(await servedIds(api)).to.deep.equal(ids('a', 10));
      }
    });
  });
});
