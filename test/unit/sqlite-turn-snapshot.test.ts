// The embedded engine reads one snapshot per event-loop turn: every read of a turn sees the same
// catalog even if another connection commits meanwhile, and the next turn sees the commit.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { reindexGrants } from '../support/catalog.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('unit: SQLite engine, one read snapshot per event-loop turn', () => {
  let dir: string;
  let file: string;
  const grants = fixtureGrants();

  before(async () => {
    dir = tempDir('turn-snapshot');
    file = path.join(dir, 'catalog.sqlite');
    const writer = SqliteCatalogWriter.open(file);
    await reindexGrants(writer, grants);
    await writer.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a delete committed by another connection mid-turn is invisible until the next turn, then visible', async () => {
    const engine = SqliteSearchEngine.open(file);
    const other = new Database(file);
    try {
      await nextTurn();
      const id = grants[0].id;
      const total = await engine.count();
      expect(total).to.equal(grants.length);
      expect(other.prepare('DELETE FROM grants WHERE id = ?').run(id).changes).to.equal(1);
      // Same turn: the snapshot the first read opened.
      expect(await engine.getByIdJson(id)).to.be.a('string');
      expect(await engine.count()).to.equal(total);
      await nextTurn();
      expect(await engine.getByIdJson(id)).to.equal(null);
      expect(await engine.count()).to.equal(total - 1);
    } finally {
      other.close();
      await engine.close();
    }
  });

  it('a turn snapshot holds a truncating checkpoint back only until its turn ends', async () => {
    const engine = SqliteSearchEngine.open(file);
    const other = new Database(file, { timeout: 0 });
    try {
      // A commit puts frames in the WAL; a snapshot taken now holds a truncating checkpoint back…
      other
        .prepare(
          "INSERT INTO catalog_meta (key, value) VALUES ('probe', '1') ON CONFLICT (key) DO UPDATE SET " +
            'value = value + 1',
        )
        .run();
      await engine.count();
      const [{ busy: during }] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      expect(during).to.equal(1);
      // …until the turn ends.
      await nextTurn();
      const [{ busy }] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      expect(busy).to.equal(0);
      await engine.close();
    } finally {
      other.close();
    }
  });
});
