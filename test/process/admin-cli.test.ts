// grants-admin: every command, its exit codes and messages, and keys stored only as SHA-256.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { runAdmin } from '../../src/cli/admin.js';
import { openSubscriptionsDb } from '../../src/subscriptions/sqlite/database.js';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { captureCli } from '../support/catalog.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('grants-admin', function () {
  let dataDir: string;

  async function admin(...args: string[]): Promise<Run> {
    const { code, out, err } = await captureCli((io) => runAdmin(args, { ...process.env, DATA_DIR: dataDir }, io));
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  async function createJson(name: string, tier: string, ...extra: string[]) {
    const run = await admin('subscription', 'create', '--name', name, '--tier', tier, '--json', ...extra);
    expect(run.code, run.err).to.equal(0);
    expect(run.err).to.equal('');
    return JSON.parse(run.out);
  }

  /** All bytes of the subscriptions database, WAL and shared-memory files included. */
  function databaseBytes(): string {
    const base = path.join(dataDir, 'subscriptions.sqlite');
    return [base, `${base}-wal`, `${base}-shm`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
  }

  /** The database as the API creates it, with no subscription. */
  const emptyDatabase = () => openSubscriptionsDb(path.join(dataDir, 'subscriptions.sqlite')).close();

  beforeEach(function () {
    dataDir = tempDir('grants-admin-');
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('subscription create', function () {
    it('--json gives subscriptionId, keyId, apiKey and the subscription', async function () {
      const created = await createJson('Acme', 'STARTER');
      expect(created.subscriptionId).to.match(/^sub_[A-Za-z0-9_-]+$/);
      expect(created.keyId).to.match(/^key_[A-Za-z0-9_-]+$/);
      expect(created.apiKey).to.match(/^gk_live_[A-Za-z0-9_-]{32,}$/);
      expect(created.subscription).to.include({
        id: created.subscriptionId,
        name: 'Acme',
        tier: 'STARTER',
        status: 'ACTIVE',
        monthlyLimit: 10_000,
        rateLimit: 10,
        monthlyLimitOverride: null,
        rateLimitOverride: null,
      });
      expect(created.subscription.features).to.deep.equal({
        'grants.read': true,
        'grants.search': true,
        'subscription.read': true,
        'grants.export': false,
        'alerts.manage': true,
      });
    });

    it('with --monthly-limit and --rate-limit overrides', async function () {
      const created = await createJson('Big', 'ENTERPRISE', '--monthly-limit', '5000', '--rate-limit', '7');
      expect(created.subscription).to.include({
        tier: 'ENTERPRISE',
        monthlyLimit: 5000,
        rateLimit: 7,
        monthlyLimitOverride: 5000,
        rateLimitOverride: 7,
      });
    });

    it('without --json prints the id and the key once', async function () {
      const run = await admin('subscription', 'create', '--name', 'Plain', '--tier', 'PROFESSIONAL');
      expect(run.code).to.equal(0);
      expect(run.out).to.match(/created subscription sub_\S+ \(Plain, PROFESSIONAL\)/);
      expect(run.out).to.match(/\n {2}gk_live_[A-Za-z0-9_-]{32,}$/);
    });

    it('every key created is different', async function () {
      const keys = new Set<string>();
      for (let i = 0; i < 5; i += 1) keys.add((await createJson(`S${i}`, 'STARTER')).apiKey);
      expect(keys.size).to.equal(5);
    });

    const badUsage: [string, string[], RegExp][] = [
      [
        'a bad tier',
        ['--name', 'X', '--tier', 'GOLD'],
        /--tier must be one of STARTER, PROFESSIONAL, ENTERPRISE, not "GOLD"/,
      ],
      ['a missing tier', ['--name', 'X'], /--tier must be one of/],
      ['a missing name', ['--tier', 'STARTER'], /--name is required/],
      ['a blank name', ['--name', '   ', '--tier', 'STARTER'], /--name is required/],
      [
        'a bad number',
        ['--name', 'X', '--tier', 'STARTER', '--monthly-limit', 'lots'],
        /--monthly-limit must be an integer from 1 to 1000000000, not "lots"/,
      ],
      [
        'a zero rate',
        ['--name', 'X', '--tier', 'STARTER', '--rate-limit', '0'],
        /--rate-limit must be an integer from 1 to 100000, not "0"/,
      ],
      [
        'a fractional rate',
        ['--name', 'X', '--tier', 'STARTER', '--rate-limit', '1.5'],
        /--rate-limit must be an integer/,
      ],
      [
        'a rate above the maximum',
        ['--name', 'X', '--tier', 'STARTER', '--rate-limit', '100001'],
        /--rate-limit must be an integer from 1 to 100000/,
      ],
      [
        '"default" at creation',
        ['--name', 'X', '--tier', 'STARTER', '--monthly-limit', 'default'],
        /--monthly-limit must be an integer/,
      ],
      [
        'an unknown option',
        ['--name', 'X', '--tier', 'STARTER', '--colour', 'red'],
        /subscription create does not take --colour/,
      ],
      [
        'a negative number',
        ['--name', 'X', '--tier', 'STARTER', '--monthly-limit', '-3'],
        /--monthly-limit must be an integer from 1 to 1000000000, not "-3"/,
      ],
      [
        'a negative number after =',
        ['--name', 'X', '--tier', 'STARTER', '--rate-limit=-3'],
        /--rate-limit must be an integer from 1 to 100000, not "-3"/,
      ],
      ['an option without its value', ['--name', 'X', '--tier'], /--tier needs a value/],
      ['a flag given a value', ['--name', 'X', '--tier', 'STARTER', '--json=yes'], /--json takes no value/],
      ['an extra argument', ['extra', '--name', 'X', '--tier', 'STARTER'], /unexpected argument "extra"/],
    ];
    for (const [label, args, message] of badUsage) {
      it(`${label}: exit 2 with a clear message, nothing created`, async function () {
        const run = await admin('subscription', 'create', ...args);
        expect(run.code).to.equal(2);
        expect(run.err).to.match(message);
        expect(run.err).to.contain('grants-admin --help');
        expect(run.err).not.to.match(/ERR_PARSE_ARGS|ambiguous|Did you forget/);
        expect(run.out).to.equal('');
        expect(existsSync(path.join(dataDir, 'subscriptions.sqlite')), 'no database created').to.equal(false);
      });
    }
  });

  describe('subscription list and show', function () {
    it('list: "no subscriptions", then a header row and one line per subscription; --json lists them all', async function () {
      emptyDatabase();
      expect((await admin('subscription', 'list')).out).to.equal('no subscriptions');
      const a = await createJson('Alpha', 'STARTER');
      const b = await createJson('Beta', 'ENTERPRISE', '--rate-limit', '300');
      const text = await admin('subscription', 'list');
      expect(text.code).to.equal(0);
      const [header, ...lines] = text.out.split('\n');
      expect(header).to.match(/^ID\s+TIER\s+STATUS\s+RATE\s+MONTHLY\s+NAME$/);
      expect(lines).to.have.length(2);
      const lineA = lines.find((l) => l.startsWith(a.subscriptionId))!;
      const lineB = lines.find((l) => l.startsWith(b.subscriptionId))!;
      expect(lineA).to.match(/STARTER\s+ACTIVE\s+10\/s\s+10000\/month\s+Alpha$/);
      expect(lineB).to.match(/ENTERPRISE\s+ACTIVE\s+300\/s\s+1000000\/month\s+Beta$/);
      const json = JSON.parse((await admin('subscription', 'list', '--json')).out);
      expect(json.map((s: { id: string }) => s.id)).to.have.members([a.subscriptionId, b.subscriptionId]);
    });

    it("show: details, keys (without the key itself) and this month's billable calls", async function () {
      const a = await createJson('Shown', 'PROFESSIONAL');
      const run = await admin('subscription', 'show', a.subscriptionId, '--json');
      expect(run.code).to.equal(0);
      const shown = JSON.parse(run.out);
      expect(shown).to.include({
        id: a.subscriptionId,
        name: 'Shown',
        tier: 'PROFESSIONAL',
        status: 'ACTIVE',
        monthlyLimit: 100_000,
        rateLimit: 50,
        billableCallsThisMonth: 0,
      });
      expect(shown.month).to.equal(new Date().toISOString().slice(0, 7));
      expect(shown.keys).to.have.length(1);
      expect(shown.keys[0]).to.include({
        id: a.keyId,
        subscriptionId: a.subscriptionId,
        prefix: a.apiKey.slice(0, 12),
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(run.out).not.to.contain(a.apiKey);
      // Without --json: a readable summary, labelled lines, not the JSON.
      const pretty = await admin('subscription', 'show', a.subscriptionId);
      expect(pretty.code).to.equal(0);
      expect(() => JSON.parse(pretty.out)).to.throw();
      const lines = pretty.out.split('\n');
      expect(lines[0]).to.equal(`${a.subscriptionId}  Shown`);
      expect(pretty.out).to.match(/^ {2}tier +PROFESSIONAL$/m);
      expect(pretty.out).to.match(/^ {2}status +ACTIVE$/m);
      expect(pretty.out).to.match(/^ {2}rate limit +50\/s \(tier default\)$/m);
      expect(pretty.out).to.match(/^ {2}monthly limit +100000 \(tier default\)$/m);
      expect(pretty.out).to.match(new RegExp(`^  this month +0 billable calls in ${shown.month}, 100000 left$`, 'm'));
      expect(pretty.out).to.match(
        /^ {2}features +grants\.read on, grants\.search on, subscription\.read on, grants\.export off, alerts\.manage on$/m,
      );
      expect(pretty.out).to.match(/^ {2}keys +1$/m);
      expect(lines.at(-1)).to.match(
        new RegExp(`^    ${a.keyId}  ${a.apiKey.slice(0, 12)}…  created \\S+  last used never$`),
      );
      expect(pretty.out).not.to.contain(a.apiKey);
    });

    it('show on an unknown id: exit 1 naming the id', async function () {
      emptyDatabase();
      const run = await admin('subscription', 'show', 'sub_nope');
      expect(run.code).to.equal(1);
      expect(run.err).to.equal('grants-admin: no subscription has the id "sub_nope"');
    });

    it('show without an id: exit 2', async function () {
      const run = await admin('subscription', 'show');
      expect(run.code).to.equal(2);
      expect(run.err).to.contain('missing SUBSCRIPTION_ID');
    });
  });

  describe('subscription set-status', function () {
    it('ACTIVE → SUSPENDED → CANCELLED → ACTIVE', async function () {
      const a = await createJson('Status', 'STARTER');
      for (const status of ['SUSPENDED', 'CANCELLED', 'ACTIVE']) {
        const run = await admin('subscription', 'set-status', a.subscriptionId, status);
        expect(run.code).to.equal(0);
        expect(run.out).to.equal(`subscription ${a.subscriptionId} is now ${status}`);
        expect(JSON.parse((await admin('subscription', 'show', a.subscriptionId, '--json')).out).status).to.equal(
          status,
        );
      }
    });

    it('a bad status: exit 2; an unknown id: exit 1', async function () {
      const a = await createJson('Status', 'STARTER');
      const bad = await admin('subscription', 'set-status', a.subscriptionId, 'PAUSED');
      expect(bad.code).to.equal(2);
      expect(bad.err).to.contain('status must be one of ACTIVE, SUSPENDED, CANCELLED, not "PAUSED"');
      const unknown = await admin('subscription', 'set-status', 'sub_nope', 'ACTIVE');
      expect(unknown.code).to.equal(1);
      expect(unknown.err).to.contain('no subscription has the id "sub_nope"');
      expect(JSON.parse((await admin('subscription', 'show', a.subscriptionId, '--json')).out).status).to.equal(
        'ACTIVE',
      );
    });
  });

  describe('subscription set-limits', function () {
    it('sets either or both overrides, and "default" clears one back to the tier', async function () {
      const a = await createJson('Limits', 'PROFESSIONAL');
      const id = a.subscriptionId;
      const show = async () => JSON.parse((await admin('subscription', 'show', id, '--json')).out);

      let run = await admin('subscription', 'set-limits', id, '--monthly-limit', '250');
      expect(run.code).to.equal(0);
      expect(run.out).to.equal(`subscription ${id}: 250 calls a month, 50 requests per second`);
      expect(await show()).to.include({
        monthlyLimit: 250,
        monthlyLimitOverride: 250,
        rateLimit: 50,
        rateLimitOverride: null,
      });

      run = await admin('subscription', 'set-limits', id, '--rate-limit', '9');
      expect(run.out).to.equal(`subscription ${id}: 250 calls a month, 9 requests per second`);
      expect(await show()).to.include({ monthlyLimit: 250, rateLimit: 9, rateLimitOverride: 9 });

      run = await admin('subscription', 'set-limits', id, '--monthly-limit', 'default');
      expect(run.code).to.equal(0);
      expect(await show()).to.include({ monthlyLimit: 100_000, monthlyLimitOverride: null, rateLimit: 9 });

      run = await admin('subscription', 'set-limits', id, '--monthly-limit', '1000000000', '--rate-limit', 'default');
      expect(run.code).to.equal(0);
      expect(await show()).to.include({ monthlyLimit: 1_000_000_000, rateLimit: 50, rateLimitOverride: null });
    });

    const bad: [string, string[], RegExp][] = [
      ['no limit given', [], /give --monthly-limit and\/or --rate-limit/],
      [
        'a bad number',
        ['--monthly-limit', 'ten'],
        /--monthly-limit must be an integer from 1 to 1000000000 \(or "default"\), not "ten"/,
      ],
      [
        'a negative number',
        ['--rate-limit', '-3'],
        /--rate-limit must be an integer from 1 to 100000 \(or "default"\), not "-3"/,
      ],
      ['zero', ['--monthly-limit', '0'], /--monthly-limit must be an integer from 1 to 1000000000/],
      [
        'above the maximum',
        ['--monthly-limit', '1000000001'],
        /--monthly-limit must be an integer from 1 to 1000000000/,
      ],
    ];
    for (const [label, args, message] of bad) {
      it(`${label}: exit 2, limits unchanged`, async function () {
        const a = await createJson('Limits', 'STARTER', '--monthly-limit', '42');
        const run = await admin('subscription', 'set-limits', a.subscriptionId, ...args);
        expect(run.code).to.equal(2);
        expect(run.err).to.match(message);
        const shown = JSON.parse((await admin('subscription', 'show', a.subscriptionId, '--json')).out);
        expect(shown).to.include({ monthlyLimit: 42, rateLimit: 10 });
      });
    }

    it('an unknown id: exit 1', async function () {
      emptyDatabase();
      const run = await admin('subscription', 'set-limits', 'sub_nope', '--monthly-limit', '5');
      expect(run.code).to.equal(1);
      expect(run.err).to.contain('no subscription has the id "sub_nope"');
    });
  });

  describe('subscription set-feature', function () {
    it('switches each feature off and on', async function () {
      const a = await createJson('Features', 'STARTER');
      for (const feature of ['grants.search', 'grants.read', 'subscription.read']) {
        let run = await admin('subscription', 'set-feature', a.subscriptionId, feature, 'off');
        expect(run.code).to.equal(0);
        expect(run.out).to.equal(`subscription ${a.subscriptionId}: ${feature} off`);
        expect(
          JSON.parse((await admin('subscription', 'show', a.subscriptionId, '--json')).out).features[feature],
        ).to.equal(false);
        run = await admin('subscription', 'set-feature', a.subscriptionId, feature, 'on');
        expect(run.code).to.equal(0);
        expect(
          JSON.parse((await admin('subscription', 'show', a.subscriptionId, '--json')).out).features[feature],
        ).to.equal(true);
      }
    });

    it('grants.export: off by default below ENTERPRISE, on for ENTERPRISE, switched on and off per subscription', async function () {
      const starter = await createJson('Export starter', 'STARTER');
      const professional = await createJson('Export professional', 'PROFESSIONAL');
      const enterprise = await createJson('Export enterprise', 'ENTERPRISE');
      const exportFlag = async (id: string) =>
        JSON.parse((await admin('subscription', 'show', id, '--json')).out).features['grants.export'];
      expect(await exportFlag(starter.subscriptionId)).to.equal(false);
      expect(await exportFlag(professional.subscriptionId)).to.equal(false);
      expect(await exportFlag(enterprise.subscriptionId)).to.equal(true);
      let run = await admin('subscription', 'set-feature', starter.subscriptionId, 'grants.export', 'on');
      expect(run.code).to.equal(0);
      expect(run.out).to.equal(`subscription ${starter.subscriptionId}: grants.export on`);
      expect(await exportFlag(starter.subscriptionId)).to.equal(true);
      run = await admin('subscription', 'set-feature', enterprise.subscriptionId, 'grants.export', 'off');
      expect(run.code).to.equal(0);
      expect(await exportFlag(enterprise.subscriptionId)).to.equal(false);
    });

    it('an unknown feature or state: exit 2; an unknown id: exit 1', async function () {
      const a = await createJson('Features', 'STARTER');
      const feature = await admin('subscription', 'set-feature', a.subscriptionId, 'grants.write', 'off');
      expect(feature.code).to.equal(2);
      expect(feature.err).to.contain(
        'feature must be one of grants.read, grants.search, subscription.read, grants.export, alerts.manage, not ' +
          '"grants.write"',
      );
      const state = await admin('subscription', 'set-feature', a.subscriptionId, 'grants.read', 'maybe');
      expect(state.code).to.equal(2);
      expect(state.err).to.contain('state must be one of on, off, not "maybe"');
      const unknown = await admin('subscription', 'set-feature', 'sub_nope', 'grants.read', 'off');
      expect(unknown.code).to.equal(1);
    });
  });

  describe('keys', function () {
    it('key create / list / revoke', async function () {
      const a = await createJson('Keys', 'STARTER');
      const created = await admin('key', 'create', a.subscriptionId, '--json');
      expect(created.code).to.equal(0);
      const second = JSON.parse(created.out);
      expect(second).to.have.keys(['subscriptionId', 'keyId', 'apiKey', 'restrictions']);
      expect(second.restrictions).to.deep.equal({
        scopes: null,
        origins: null,
        ips: null,
        expiresAt: null,
        rateLimit: null,
      });
      expect(second.subscriptionId).to.equal(a.subscriptionId);
      expect(second.apiKey).to.match(/^gk_live_[A-Za-z0-9_-]{32,}$/);
      expect(second.apiKey).not.to.equal(a.apiKey);

      const plain = await admin('key', 'create', a.subscriptionId);
      expect(plain.code).to.equal(0);
      expect(plain.out).to.match(
        new RegExp(
          `^API key key_\\S+ for ${a.subscriptionId} \\(shown only now; store it safely\\):\\n  gk_live_\\S+$`,
        ),
      );

      let list = JSON.parse((await admin('key', 'list', a.subscriptionId, '--json')).out);
      expect(list).to.have.length(3);
      expect(list.map((k: { id: string }) => k.id)).to.include.members([a.keyId, second.keyId]);
      for (const k of list) expect(k.revokedAt).to.equal(null);

      const revoked = await admin('key', 'revoke', second.keyId);
      expect(revoked.code).to.equal(0);
      expect(revoked.out).to.equal(`key ${second.keyId} revoked`);
      list = JSON.parse((await admin('key', 'list', a.subscriptionId, '--json')).out);
      const entry = list.find((k: { id: string }) => k.id === second.keyId);
      expect(entry.revokedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(list.filter((k: { revokedAt: string | null }) => k.revokedAt === null)).to.have.length(2);

      const text = await admin('key', 'list', a.subscriptionId);
      const lines = text.out.split('\n');
      expect(lines).to.have.length(3);
      expect(lines.find((l) => l.startsWith(second.keyId))).to.contain('REVOKED');
      expect(lines.find((l) => l.startsWith(a.keyId))).to.match(
        new RegExp(`${a.apiKey.slice(0, 12)}….*last used never$`),
      );
      expect(text.out).not.to.contain(a.apiKey);

      const twice = await admin('key', 'revoke', second.keyId);
      expect(twice.code).to.equal(0);
      expect(twice.out).to.contain('was already revoked');
    });

    it('key create with restrictions: each bad value is refused (exit 2) naming its option; audit --help is its own', async function () {
      const a = await createJson('Restricted', 'STARTER');
      for (const [args, named] of [
        [['--scopes', 'grants:search,grants:everything'], '--scopes'],
        [['--origins', 'https://a.example/path'], '--origins'],
        [['--ips', '10.0.0.0/33'], '--ips'],
        [['--expires', 'tomorrow'], '--expires'],
        [['--rate-limit', '11'], "--rate-limit may not exceed the subscription's rate (10 per second)"],
      ] as const) {
        const run = await admin('key', 'create', a.subscriptionId, ...args);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.err, args.join(' ')).to.contain(named);
      }
      const made = JSON.parse(
        (
          await admin(
            'key',
            'create',
            a.subscriptionId,
            '--scopes',
            'grants:read',
            '--ips',
            '192.0.2.0/24',
            '--rate-limit',
            '3',
            '--json',
          )
        ).out,
      );
      expect(made.restrictions).to.deep.equal({
        scopes: ['grants:read'],
        origins: null,
        ips: ['192.0.2.0/24'],
        expiresAt: null,
        rateLimit: 3,
      });
      const help = await admin('audit', '--help');
      expect(help.code).to.equal(0);
      expect(help.out.split('\n')[0]).to.match(/^Usage: grants-admin audit /);
    });

    it('unknown ids: key create / key list on an unknown subscription and key revoke on an unknown key exit 1', async function () {
      emptyDatabase();
      for (const args of [
        ['key', 'create', 'sub_nope'],
        ['key', 'list', 'sub_nope'],
      ]) {
        const run = await admin(...args);
        expect(run.code, args.join(' ')).to.equal(1);
        expect(run.err).to.contain('no subscription has the id "sub_nope"');
      }
      const revoke = await admin('key', 'revoke', 'key_nope');
      expect(revoke.code).to.equal(1);
      expect(revoke.err).to.equal('grants-admin: no key has the id "key_nope"');
    });

    it('keys are stored only as SHA-256: no clear key anywhere in the database files', async function () {
      const a = await createJson('Hash', 'STARTER');
      const b = JSON.parse((await admin('key', 'create', a.subscriptionId, '--json')).out);
      const bytes = databaseBytes();
      expect(bytes.length).to.be.above(0);
      for (const key of [a.apiKey, b.apiKey]) {
        expect(bytes.includes(key), 'clear key in the database').to.equal(false);
        // Not even the secret part after the readable prefix.
        expect(bytes.includes(key.slice(12)), 'secret part in the database').to.equal(false);
      }
      const db = new Database(path.join(dataDir, 'subscriptions.sqlite'), { readonly: true });
      try {
        const rows = db.prepare('SELECT id, key_hash, prefix FROM api_keys ORDER BY id').all() as {
          id: string;
          key_hash: string;
          prefix: string;
        }[];
        const byId = new Map(rows.map((r) => [r.id, r]));
        expect(byId.get(a.keyId)).to.deep.equal({
          id: a.keyId,
          key_hash: sha256(a.apiKey),
          prefix: a.apiKey.slice(0, 12),
        });
        expect(byId.get(b.keyId)).to.deep.equal({
          id: b.keyId,
          key_hash: sha256(b.apiKey),
          prefix: b.apiKey.slice(0, 12),
        });
        for (const row of rows) expect(row.key_hash).to.match(/^[0-9a-f]{64}$/);
      } finally {
        db.close();
      }
    });
  });

  describe('usage and help', function () {
    it('no command: prints the help and exits 2; --help exits 0', async function () {
      const none = await admin();
      expect(none.code).to.equal(2);
      expect(none.out).to.contain('Usage: grants-admin');
      const help = await admin('--help');
      expect(help.code).to.equal(0);
      expect(help.out).to.contain('Usage: grants-admin');
    });

    it('each command has its own --help (exit 0, nothing opened or created)', async function () {
      for (const command of [
        'subscription create',
        'subscription list',
        'subscription show',
        'subscription set-status',
        'subscription set-limits',
        'subscription set-feature',
        'key create',
        'key list',
        'key rotate',
        'key revoke',
      ]) {
        for (const flag of ['--help', '-h']) {
          const run = await admin(...command.split(' '), flag);
          expect(run.code, `${command} ${flag}`).to.equal(0);
          expect(run.out).to.match(new RegExp(`^Usage: grants-admin ${command}`));
        }
      }
      expect(existsSync(path.join(dataDir, 'subscriptions.sqlite'))).to.equal(false);
    });

    it('an unknown command: exit 2 naming it', async function () {
      const run = await admin('subscription', 'delete', 'sub_x');
      expect(run.code).to.equal(2);
      expect(run.err).to.contain('unknown command "subscription delete"');
    });

    it('--data-dir selects the database instead of DATA_DIR', async function () {
      const other = tempDir('grants-admin-other-');
      try {
        const { code } = await captureCli((io) =>
          runAdmin(
            ['subscription', 'create', '--name', 'Elsewhere', '--tier', 'STARTER', '--json', '--data-dir', other],
            { ...process.env, DATA_DIR: dataDir },
            io,
          ),
        );
        expect(code).to.equal(0);
        expect(existsSync(path.join(other, 'subscriptions.sqlite'))).to.equal(true);
        expect(existsSync(path.join(dataDir, 'subscriptions.sqlite'))).to.equal(false);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });

    it('the installed bin: node bin/grants-admin.js --help exits 0 and prints the usage', async function () {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [path.join(REPO_ROOT, 'bin/grants-admin.js'), '--help'],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, DATA_DIR: dataDir },
        },
      );
      expect(stderr).to.equal('');
      expect(stdout).to.contain('Usage: grants-admin <command> [options]');
      for (const command of [
        'subscription create',
        'subscription list',
        'subscription show',
        'set-status',
        'set-limits',
        'set-feature',
        'key create',
        'key list',
        'key rotate',
        'key revoke',
      ]) {
        expect(stdout).to.contain(command);
      }
      expect(stdout).to.contain(
        'Exit codes: 0 done; 1 unknown subscription or key, or no database; 2 bad usage or value;\n3 the command ' +
          'failed',
      );
      expect(stdout).to.contain('Only "subscription create" and "migrate" create the SQLite database');
    });

    it('what the help says is true: migrate creates a missing database, list does not; a database it cannot read exits 3', async function () {
      const fresh = tempDir('grants-admin-migrate-');
      try {
        const env = { ...process.env, DATA_DIR: path.join(fresh, 'data') };
        const list = await captureCli((io) => runAdmin(['subscription', 'list'], env, io));
        expect(list.code).to.equal(1);
        expect(existsSync(path.join(fresh, 'data', 'subscriptions.sqlite'))).to.equal(false);
        const migrated = await captureCli((io) => runAdmin(['migrate'], env, io));
        expect(migrated.code).to.equal(0);
        expect(existsSync(path.join(fresh, 'data', 'subscriptions.sqlite'))).to.equal(true);
        writeFileSync(path.join(fresh, 'data', 'subscriptions.sqlite'), 'not a database');
        const broken = await captureCli((io) => runAdmin(['subscription', 'list'], env, io));
        expect(broken.code).to.equal(3);
        expect(broken.err.join('\n')).to.contain('subscription list failed');
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    });
  });
});
