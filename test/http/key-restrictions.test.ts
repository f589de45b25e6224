// Keys with restrictions on the embedded SQLite store: scopes, origins, IP ranges (TRUST_PROXY on
// and off), expiry, per-key rate, /keys, the calling key in /subscription/limits and the audit log,
// over real HTTP with two API instances on one DATA_DIR (the scenario: test/support/keyScenario.ts).
import { keyRestrictionScenario } from '../support/keyScenario.js';

describe('keys with restrictions (SQLite store)', function () {
  this.timeout(30_000);
  keyRestrictionScenario({ env: () => ({}) });
});
