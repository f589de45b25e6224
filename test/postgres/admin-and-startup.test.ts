// grants-admin against DATABASE_URL (migrate, then the usual commands), and the API's start-up
// with a PostgreSQL it cannot reach or a DATABASE_URL that is not one: one sentence, no password.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../src/config.js';
import { SCHEMA_VERSION } from '../../src/subscriptions/postgres/database.js';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { runBin } from '../support/bins.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';
import { freePort, launch } from '../support/processes.js';

describeWithPostgres('grants-admin and start-up on DATABASE_URL', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let dir: string;

  beforeEach(async () => {
    database = await createTestDatabase();
    dir = tempDir('pg-admin');
  });
  afterEach(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runBin('grants-admin', args, {
      cwd: dir,
      env: { ...process.env, DATA_DIR: path.join(dir, 'data'), DATABASE_URL: database.url, ...env },
    });

  it('migrate applies the schema and says its version (twice: nothing more to do); the commands then work on PostgreSQL, not on DATA_DIR', async () => {
    for (let i = 0; i < 2; i += 1) {
      const migrated = await admin(['migrate']);
      expect(migrated.code, migrated.err).to.equal(0);
      expect(migrated.out.trim()).to.equal(`postgres store at schema version ${SCHEMA_VERSION}`);
    }
    const created = await admin(['subscription', 'create', '--name', 'Pg', '--tier', 'professional', '--json']);
    expect(created.code, created.err).to.equal(0);
    const { subscriptionId, keyId } = JSON.parse(created.out);
    const listed = await admin(['subscription', 'list', '--json']);
    expect(JSON.parse(listed.out).map((s: { id: string }) => s.id)).to.deep.equal([subscriptionId]);
    const shown = JSON.parse((await admin(['subscription', 'show', subscriptionId, '--json'])).out);
    expect(shown).to.include({ id: subscriptionId, tier: 'PROFESSIONAL', billableCallsThisMonth: 0 });
    expect(shown.keys.map((k: { id: string }) => k.id)).to.deep.equal([keyId]);
    const refused = await admin(['key', 'revoke', keyId]);
    expect(refused.code).to.equal(2);
    expect((await admin(['key', 'revoke', keyId, '--force'])).out).to.include(`key ${keyId} revoked`);
    expect((await admin(['subscription', 'show', 'sub_nope'])).code).to.equal(1);
    // Nothing was written to DATA_DIR: the SQLite store was never opened.
    const sqliteList = await admin(['subscription', 'list'], { DATABASE_URL: '' });
    expect(sqliteList.code).to.equal(1);
    expect(sqliteList.err).to.include('no database at');
  });

  it('the API with an unreachable PostgreSQL exits 1 with one sentence naming DATABASE_URL, without its password', async () => {
    const port = await freePort();
    const child = launch(process.execPath, ['dist/src/main.js'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: 'postgres://grants:s3cret-pw@127.0.0.1:1/grants',
        DATA_DIR: path.join(dir, 'data'),
        PORT: String(port),
        HOST: '127.0.0.1',
        SEED_CATALOG: 'false',
        LOG_LEVEL: 'warn',
      },
    });
    const exit = await child.exited;
    expect(exit.code).to.equal(1);
    expect(child.stderr()).to.match(
      /cannot start: the PostgreSQL database of DATABASE_URL \(127\.0\.0\.1:1\/grants\) cannot be used/,
    );
    expect(child.stderr() + child.stdout()).to.not.include('s3cret-pw');
  });
});

describe('config: DATABASE_URL', () => {
  it('accepts postgres:// and postgresql:// URLs; anything else is a problem that does not repeat the value', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/grants' }).databaseUrl).to.equal(
      'postgres://u:p@db:5432/grants',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/grants' }).databaseUrl).to.equal('postgresql://db/grants');
    expect(loadConfig({}).databaseUrl).to.equal(null);
    try {
      loadConfig({ DATABASE_URL: 'mysql://u:hunter22@db/grants' });
      expect.fail('accepted a mysql URL');
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).problems.join(' '))
        .to.include('DATABASE_URL must be a postgres://')
        .and.not.include('hunter22');
    }
  });
});
