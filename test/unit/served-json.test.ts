// The embedded engine serves each grant's stored JSON text as is (no parse → stringify): the bytes
// must be exactly what serialising the parsed grant, and the whole envelope, would give.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { successBody, successJson } from '../../src/http/envelope.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import type { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { fixtureGrants, tempDir } from '../support/api.js';
import { indexedEngine } from '../support/catalog.js';

const TIMESTAMP = /"timestamp":"[^"]+"/;

describe('served JSON text (embedded engine)', () => {
  const dir = tempDir('grants-served-json-');
  const file = path.join(dir, 'catalog.sqlite');
  let engine: SqliteSearchEngine;
  const grants = fixtureGrants();

  before(async () => {
    engine = await indexedEngine(file, grants);
  });

  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('getByIdJson is byte for byte JSON.stringify of the canonical grant, for every grant', async () => {
    for (const grant of grants) {
      const text = await engine.getByIdJson(grant.id);
      expect(text).to.equal(JSON.stringify(grant));
    }
    expect(await engine.getByIdJson('no-such-id')).to.equal(null);
  });

  it('searchJson gives each hit as the bytes of JSON.stringify of its canonical grant', async () => {
    const byId = new Map(grants.map((g) => [g.id, g]));
    let hits = 0;
    for (const qs of [
      '',
      'search=quebec',
      'funderType=FOUNDATION&page=2&limit=7',
      'search=clean%20technology&eligibleProvinces=ONTARIO',
      'page=40',
    ]) {
      const { grantsJson } = await engine.searchJson(parseGrantQuery(parseQueryString(qs)));
      for (const text of grantsJson) {
        const id = (JSON.parse(text) as { id: string }).id;
        expect(text).to.equal(JSON.stringify(byId.get(id)));
        hits += 1;
      }
    }
    expect(hits).to.be.greaterThan(0);
  });

  it('successJson gives the bytes Koa would give for successBody, with and without pagination', () => {
    const data = grants.slice(0, 3);
    const pagination = { page: 2, limit: 3, total: 600, totalPages: 200 };
    const spliced = successJson('req_x', `[${data.map((g) => JSON.stringify(g)).join(',')}]`, pagination);
    const serialised = JSON.stringify(successBody('req_x', data, pagination));
    expect(spliced.replace(TIMESTAMP, '')).to.equal(serialised.replace(TIMESTAMP, ''));
    const one = successJson('req_y', JSON.stringify(data[0]));
    expect(one.replace(TIMESTAMP, '')).to.equal(JSON.stringify(successBody('req_y', data[0])).replace(TIMESTAMP, ''));
  });
});
