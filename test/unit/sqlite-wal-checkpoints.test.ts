// The SQLite store's write-ahead log checkpointed on a thread of its own
// (src/subscriptions/sqlite/walCheckpoints.ts, walCheckpointer.ts): while it runs, the serving
// connection's commits leave the log to it (their automatic checkpoint raised to a backstop), and
// the committed pages reach the database file within the interval; stopped, it checkpoints once
// more and the connection checkpoints by itself again.
import { expect } from 'chai';
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log.js';
import { openSubscriptionsDb, type Db } from '../../src/subscriptions/sqlite/database.js';
import { WalCheckpoints } from '../../src/subscriptions/sqlite/walCheckpoints.js';
import { tempDir } from '../support/api.js';

const PAGE = 4096;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Commits `count` small write transactions (a usage row each, as the group commit does under light load). */
function commit(db: Db, count: number, from = 0): void {
  const insert = db.prepare(
    `INSERT INTO usage_log
       (subscription_id, key_id, key_prefix, endpoint, billable, status, latency_ms, request_id, at, day)
     VALUES ('sub_c', 'key_c', 'gk_live_c', '/grants/:id', 1, 200, 1, ?, ?, ?)`,
  );
  const one = db.transaction((i: number) =>
    insert.run(`req_${i}_${'x'.repeat(400)}`, new Date().toISOString(), new Date().toISOString().slice(0, 10)),
  );
  for (let i = from; i < from + count; i++) one.immediate(i);
}

describe('unit: WalCheckpoints (the write-ahead log checkpointed off the event loop)', function () {
  let dir: string;
  let file: string;
  let db: Db;
  const log = createLogger('silent');
  const fileBytes = () => statSync(file).size;
  const autocheckpoint = () => db.pragma('wal_autocheckpoint', { simple: true }) as number;

  beforeEach(() => {
    dir = tempDir('wal-checkpoints-');
    file = path.join(dir, 'subscriptions.sqlite');
    db = openSubscriptionsDb(file);
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the thread brings committed pages into the database file; the commits checkpoint nothing themselves', async function () {
    const checkpoints = WalCheckpoints.start(db, log, { intervalMs: 50, startBytes: 0 });
    try {
      expect(autocheckpoint()).to.equal(10_000);
      const before = fileBytes();
      // About 1,500 pages of log: past SQLite's default threshold of 1,000, under the backstop.
      commit(db, 3000);
      // No commit checkpointed: the file is as it was while the log holds the pages.
      const walBytes = statSync(`${file}-wal`).size;
      expect(walBytes).to.be.greaterThan(1000 * PAGE);
      await sleep(400);
      expect(fileBytes()).to.be.greaterThan(before + 300 * PAGE);
    } finally {
      await checkpoints.stop();
    }
    expect(autocheckpoint()).to.equal(1000);
  });

  it('without the thread, the same commits under the backstop leave the file as it was (the control)', function () {
    db.pragma('wal_autocheckpoint = 10000');
    const before = fileBytes();
    commit(db, 3000);
    expect(fileBytes()).to.equal(before);
  });

  it('stop() checkpoints what is left and ends the thread; the connection checkpoints by itself again', async function () {
    const checkpoints = WalCheckpoints.start(db, log, { intervalMs: 50, startBytes: 0 });
    await sleep(150);
    expect(checkpoints.running).to.equal(true);
    const before = fileBytes();
    // Synchronous: no interval passes while the commits run.
    commit(db, 1000);
    expect(fileBytes()).to.equal(before);
    await checkpoints.stop();
    expect(fileBytes()).to.be.greaterThan(before + 100 * PAGE);
    expect(autocheckpoint()).to.equal(1000);
    // Stopping twice is one stop.
    await checkpoints.stop();
  });

  it('a process whose log stays small starts no thread', async function () {
    const checkpoints = WalCheckpoints.start(db, log, { intervalMs: 20 });
    commit(db, 20);
    await sleep(150);
    expect(checkpoints.running).to.equal(false);
    await checkpoints.stop();
    expect(autocheckpoint()).to.equal(1000);
  });
});
