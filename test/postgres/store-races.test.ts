// The store's promises under concurrency on the PostgreSQL store: the scenario of
// test/support/raceScenario.ts with two API instances (two pools) on one database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { storeRaceScenario } from '../support/raceScenario.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';

describeWithPostgres('store races (PostgreSQL store)', function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  before(async function () {
    database = await createTestDatabase('races');
  });
  const secretsKey = randomBytes(32).toString('base64');
  storeRaceScenario({
    env: () => ({ DATABASE_URL: database!.url, SECRETS_KEY: secretsKey }),
    async idempotencyRows() {
      const client = new pg.Client({ connectionString: database!.url });
      await client.connect();
      try {
        return (await client.query('SELECT * FROM idempotency_keys')).rows;
      } finally {
        await client.end();
      }
    },
  });
  after(async function () {
    await database?.drop();
  });
});
