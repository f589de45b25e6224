// A catalog built by an earlier release (its FTS5 table of title, funder and description only):
// searches answer 503 saying to reindex, in memory and through FTS5 alike, while what needs no text
// keeps working; a sync refuses to write into it; a reindex makes it current.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { foldText } from '../../src/grants/folding.js';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { ServiceUnavailableError } from '../../src/failures.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { markNewBuild, newBuildId, openCatalog, TEXT_TOKENIZER } from '../../src/search/sqlite/storage/catalogFile.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { reindexGrants } from '../support/catalog.js';

describe('embedded engine: a catalog built by an earlier release', () => {
  const dir = tempDir('sqlite-earlier-');
  const file = path.join(dir, 'catalog.sqlite');
  const grants = fixtureGrants().slice(0, 50);
  const query = (text: string) =>
    parseGrantQuery(parseQueryString(`search=${encodeURIComponent(text)}`), Date.parse('2026-11-01T00:00:00Z'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  before(async () => {
    const writer = SqliteCatalogWriter.open(file);
    await reindexGrants(writer, grants);
    await writer.close();
    // The text table as an earlier release made it.
    const db = openCatalog(file);
    db.transaction(() => {
      db.exec(
        `DROP TABLE grants_text; CREATE VIRTUAL TABLE grants_text USING fts5(title, funder, description, ` +
          `tokenize = '${TEXT_TOKENIZER}')`,
      );
      const insert = db.prepare('INSERT INTO grants_text (rowid, title, funder, description) VALUES (?, ?, ?, ?)');
      for (const [rowid, doc] of db.prepare('SELECT rowid, doc FROM grants').raw().all() as [number, string][]) {
        const g = JSON.parse(doc);
        insert.run(rowid, foldText(g.title), foldText(g.funder), foldText(g.description ?? ''));
      }
      markNewBuild(db, newBuildId());
    })();
    db.close();
  });

  it('answers a search 503, saying to reindex, whether its words are read in memory or left to FTS5', async () => {
    const engine = SqliteSearchEngine.open(file);
    try {
      for (const text of ['energy', '"clean energy"', 'solar OR wind']) {
        const failure = await Promise.resolve()
          .then(() => engine.searchJson(query(text)))
          .then(
            () => null,
            (error: unknown) => error,
          );
        expect(failure, text).to.be.instanceOf(ServiceUnavailableError);
        expect((failure as Error).message).to.match(/reindex/);
      }
      // What needs no text keeps working meanwhile.
      const unsearched = parseGrantQuery(
        parseQueryString('fundingType=GRANT&sort=title'),
        Date.parse('2026-11-01T00:00:00Z'),
      );
      expect((await engine.searchJson(unsearched)).total).to.be.greaterThan(0);
      expect(await engine.getByIdJson(grants[0].id)).to.not.equal(null);
    } finally {
      await engine.close();
    }
  });

  it('refuses a sync, saying to reindex; after a reindex it searches', async () => {
    const writer = SqliteCatalogWriter.open(file);
    try {
      const failure = await writer
        .sync(
          (async function* () {
            yield { grant: grants[0] };
          })(),
          { prune: false },
        )
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect((failure as Error).message).to.match(/earlier release.*reindex/);
      await reindexGrants(writer, grants);
    } finally {
      await writer.close();
    }
    const engine = SqliteSearchEngine.open(file);
    try {
      expect((await engine.searchJson(query('energy'))).total).to.be.greaterThan(0);
    } finally {
      await engine.close();
    }
  });
});
