// Keys with restrictions on the PostgreSQL store: the scenario of test/support/keyScenario.ts with
// two API instances sharing one database (a revocation through DELETE /keys on one is refused by
// the other within a second, through the store's change notifications).
import { randomBytes } from 'node:crypto';
import { keyRestrictionScenario } from '../support/keyScenario.js';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from '../support/postgres.js';
import { deleteKeys, REDIS_URL, uniquePrefix } from '../support/redis.js';

describeWithPostgres('keys with restrictions (PostgreSQL store)', function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  before(async function () {
    database = await createTestDatabase('keys');
  });
  // A fleet seals webhook secrets with SECRETS_KEY: without it the alert endpoints answer 503. With
  // Redis (as CI runs it), the two instances share the per-second budgets, the keys' own included.
  const secretsKey = randomBytes(32).toString('base64');
  const redis: Record<string, string> =
    REDIS_URL === undefined ? {} : { REDIS_URL, REDIS_KEY_PREFIX: uniquePrefix(), API_INSTANCES: '2' };
  keyRestrictionScenario({ env: () => ({ DATABASE_URL: database!.url, SECRETS_KEY: secretsKey, ...redis }) });
  after(async function () {
    await database?.drop();
    if (redis.REDIS_KEY_PREFIX !== undefined) await deleteKeys(redis.REDIS_KEY_PREFIX);
  });
});
