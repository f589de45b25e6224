// The PostgreSQL test support itself: the private throwaway server that the fault tests stop, freeze
// and restart (never the shared one on 5432), and the per-run databases on the shared server.
import { expect } from 'chai';
import {
  createTestDatabase,
  describeWithPostgres,
  describeWithPostgresServer,
  psql,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../support/postgres.js';

describeWithPostgresServer('a private PostgreSQL server for fault tests', function () {
  this.timeout(60_000);
  let pg: PrivatePostgres;

  before(async () => {
    pg = await startPrivatePostgres();
  });
  after(async () => {
    await pg?.dispose();
  });

  it('runs on a port of its own, not the shared 5432, and keeps its data across a crash and restart', async () => {
    expect(pg.port).to.not.equal(5432);
    const url = await pg.createDatabase('survives');
    await psql(url, 'create table t (n int); insert into t values (1), (2), (3)');
    await pg.stop('SIGKILL');
    expect(pg.process).to.equal(null);
    await psql(url, 'select 1', 3000).then(
      () => expect.fail('a stopped server answered'),
      (error: Error) => expect(error.message).to.match(/psql failed|connect|refused/i),
    );
    await pg.start();
    expect(await psql(url, 'select sum(n) from t')).to.equal('6');
  });

  it('hangs without closing connections while paused (SIGSTOP) and answers again once resumed', async () => {
    pg.pause();
    const started = Date.now();
    const outcome = await psql(pg.url, 'select 42', 1500).then(
      () => 'answered',
      () => 'no answer',
    );
    expect(outcome).to.equal('no answer');
    expect(Date.now() - started).to.be.at.least(1000); // it waited: a hang, not a refusal
    pg.resume();
    expect(await psql(pg.url, 'select 42')).to.equal('42');
  });

  it('stops cleanly with a fast shutdown and starts again on the same port', async () => {
    const port = pg.port;
    await pg.stop('SIGINT');
    await pg.start();
    expect(pg.port).to.equal(port);
    expect(await psql(pg.url, 'select 7')).to.equal('7');
  });
});

describeWithPostgres('per-run databases on the shared PostgreSQL', function () {
  this.timeout(30_000);

  it('creates an empty database with a unique name and drops it', async () => {
    const db = await createTestDatabase('pgfleet_support');
    const other = await createTestDatabase('pgfleet_support');
    try {
      expect(db.name).to.match(/^grants_pgfleet_support_[0-9a-f]{10}$/);
      expect(other.name).to.not.equal(db.name);
      expect(
        await psql(db.url, "select count(*) from information_schema.tables where table_schema = 'public'"),
      ).to.equal('0');
    } finally {
      await db.drop();
      await other.drop();
    }
    const left = await psql(
      db.url.replace(/\/[^/]*$/, '/postgres'),
      `select count(*) from pg_database where datname in ('${db.name}', '${other.name}')`,
    );
    expect(left).to.equal('0');
  });
});
