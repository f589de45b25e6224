// A session PostgreSQL ends under a transaction (a restart, a fast shutdown, an administrator's
// pg_terminate_backend) fails that transaction and nothing else: before, the pooled client emitted
// 'error' with no listener while checked out, which ended the API process, and every connection it
// held was closed without an answer.
import { expect } from 'chai';
import pg from 'pg';
import { createPool, inTransaction } from '../../src/subscriptions/postgres/database.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithPostgres('postgres pool: a session ended by the server under a transaction', function () {
  let database: TestDatabase;
  let admin: pg.Client;

  before(async function () {
    database = await createTestDatabase('poolerr');
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  after(async function () {
    await admin?.end().catch(() => undefined);
    await database?.drop();
  });

  for (const moment of ['between two statements', 'during a statement'] as const) {
    it(`${moment}: the transaction fails, the process lives on, and the pool serves the next transaction`, async function () {
      const pool = createPool(database.url, 2);
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      // Mocha's own handler would report the error; ours records it so the assertion says what happened.
      const mochaHandlers = process.listeners('uncaughtException');
      process.removeAllListeners('uncaughtException');
      process.on('uncaughtException', onUncaught);
      try {
        const failed = await inTransaction(pool, async (client) => {
          const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
          if (moment === 'between two statements') {
            await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
            await sleep(200);
            await client.query('SELECT 1');
          } else {
            const slow = client.query('SELECT pg_sleep(5)');
            await sleep(200);
            await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
            await slow;
          }
        }).then(
          () => null,
          (error: Error) => error,
        );
        await sleep(200);
        expect(uncaught.map(String)).to.deep.equal([]);
        expect(failed, 'the transaction should fail').to.be.instanceOf(Error);
        expect(
          await inTransaction(pool, async (client) => (await client.query('SELECT 41 + 1 AS n')).rows[0].n),
        ).to.equal(42);
      } finally {
        process.off('uncaughtException', onUncaught);
        for (const handler of mochaHandlers) process.on('uncaughtException', handler);
        await pool.end();
      }
    });
  }
});
