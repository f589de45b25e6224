// The store's promises under concurrency on the embedded SQLite store: the scenario of
// test/support/raceScenario.ts with two API instances on one DATA_DIR.
import Database from 'better-sqlite3';
import { subscriptionsPath } from '../../src/subscriptions/sqlite/database.js';
import { storeRaceScenario } from '../support/raceScenario.js';

describe('store races (SQLite store)', function () {
  this.timeout(30_000);
  storeRaceScenario({
    env: () => ({}),
    async idempotencyRows(env) {
      const db = new Database(subscriptionsPath(env.DATA_DIR), { readonly: true });
      try {
        return db.prepare('SELECT * FROM idempotency_keys').all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
  });
});
