// The pure parts of cursor paging and export: the cursor token, the Elasticsearch keyset request,
// the CSV cell (RFC 4180 quoting, OWASP formula neutralising).
import { expect } from 'chai';
import { InvalidInputError as ApiError } from '../../src/failures.js';
import { csvCell, csvHeader, csvRows } from '../../src/http/handlers/exportFormat.js';
import { decodeCursor, encodeCursor } from '../../src/http/parameters/grantCursor.js';
import { parseExportQuery, parseGrantQuery } from '../../src/http/parameters/grantSearchParams.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { KEYSET_TOTAL_AGG, keysetRequest } from '../../src/search/elasticsearch/keyset.js';

const query = (text: string) => parseGrantQuery(parseQueryString(text), Date.UTC(2026, 10, 1));

describe('unit: cursor paging and export', function () {
  describe('the cursor', function () {
    it('is URL-safe and round-trips its page and place for the same query', function () {
      const q = query('funderType=FOUNDATION&sort=-amountMin&limit=10&cursor=*');
      const token = encodeCursor(q, 2, { key: 5000, id: 'grt_1' });
      expect(token).to.match(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(token, q)).to.deep.equal({ page: 2, after: { key: 5000, id: 'grt_1' } });
      const parsed = query(`funderType=FOUNDATION&sort=-amountMin&limit=10&cursor=${token}`);
      expect(parsed.page).to.equal(2);
      expect(parsed.cursor).to.deep.equal({ after: { key: 5000, id: 'grt_1' } });
      // List values as a set, fields and facets not bound.
      expect(
        query(`funderType=FOUNDATION&sort=-amountMin&limit=10&fields=title&facets=currency&cursor=${token}`).page,
      ).to.equal(2);
    });

    it('is refused with another query, a key of the wrong type, or as anything the API did not give out', function () {
      const q = query('sort=title&cursor=*');
      const token = encodeCursor(q, 3, { key: 'abc', id: 'grt_1' });
      for (const other of ['sort=-title', 'sort=title&limit=21', 'sort=title&open=true', 'sort=title&search=x']) {
        expect(() => query(`${other}&cursor=${token}`), other).to.throw(ApiError, /cursor/);
      }
      const wrongKey = encodeCursor(q, 3, { key: 12, id: 'grt_1' });
      expect(() => query(`sort=title&cursor=${wrongKey}`)).to.throw(ApiError);
      expect(() => query('cursor=***')).to.throw(ApiError);
      expect(() => query('cursor=*&page=2')).to.throw(ApiError, /page/);
    });

    it('cursor mode has no 10,000-match window; offset paging keeps it', function () {
      const q = query('limit=100&cursor=*');
      const far = encodeCursor(q, 500_000, { key: null, id: 'grt_z' });
      expect(query(`limit=100&cursor=${far}`)).to.include({ page: 500_000, offset: 0, size: 100 });
      expect(() => query('limit=100&page=101')).to.throw(ApiError, /10,000/);
    });
  });

  describe('Elasticsearch keyset requests', function () {
    it('continue after (key, id) with search_after, never from an offset', function () {
      const request = keysetRequest(query('sort=-deadline&cursor=*'), { key: 1_800_000_000_000, id: 'g-9' }, 21);
      expect(request).to.not.have.property('from');
      expect(request.size).to.equal(21);
      expect(request.search_after).to.deep.equal([1_800_000_000_000, 'g-9']);
      expect(request.sort).to.deep.equal([{ deadline: { order: 'desc', missing: '_last' } }, { id: 'asc' }]);
    });

    it('walk the null tail by id among the grants without a value, counting the total with an aggregation', function () {
      const request = keysetRequest(
        query('sort=amountMin&funderType=FOUNDATION&facets=funderType&cursor=*'),
        { key: null, id: 'g-3' },
        11,
      );
      expect(request.sort).to.deep.equal([{ id: 'asc' }]);
      expect(request.search_after).to.deep.equal(['g-3']);
      expect(JSON.stringify(request.post_filter)).to.include('"must_not":[{"exists":{"field":"amountMin"}}]');
      expect(JSON.stringify(request.post_filter)).to.include('FOUNDATION');
      expect(request.aggs?.[KEYSET_TOTAL_AGG]).to.deep.equal({
        filter: { bool: { filter: [{ terms: { funderType: ['FOUNDATION'] } }] } },
      });
    });

    it('relevance continues after (score, id)', function () {
      expect(keysetRequest(query('search=water&cursor=*'), { key: 3.25, id: 'g-1' }, 5).search_after).to.deep.equal([
        3.25,
        'g-1',
      ]);
    });
  });

  describe('CSV', function () {
    it('quotes per RFC 4180 and neutralises cells a spreadsheet would run', function () {
      expect(csvCell('plain')).to.equal('plain');
      expect(csvCell('a,b')).to.equal('"a,b"');
      expect(csvCell('say "hi"')).to.equal('"say ""hi"""');
      expect(csvCell('two\nlines')).to.equal('"two\nlines"');
      expect(csvCell('=1+1')).to.equal(`"'=1+1"`);
      expect(csvCell('+33 1')).to.equal(`"'+33 1"`);
      expect(csvCell('-5')).to.equal(`"'-5"`);
      expect(csvCell('@cmd')).to.equal(`"'@cmd"`);
      expect(csvCell('\tx')).to.equal(`"'\tx"`);
      expect(csvCell('\rx')).to.equal(`"'\rx"`);
      expect(csvCell('=HYPERLINK("x")')).to.equal(`"'=HYPERLINK(""x"")"`);
      expect(csvCell('a=b')).to.equal('a=b');
    });

    it('writes a header row and one CRLF row per grant: nulls empty, lists joined with |', function () {
      const { query: q } = parseExportQuery(parseQueryString('fields=eligibleProvinces,amountMax,isRecurring'));
      const columns = q.fields!;
      expect(csvHeader(columns)).to.equal('id,amountMax,eligibleProvinces,isRecurring\r\n');
      const grant = { id: 'g-1', amountMax: null, eligibleProvinces: ['ONTARIO', 'QUEBEC'], isRecurring: false };
      expect(csvRows([JSON.stringify(grant)], columns)).to.equal('g-1,,ONTARIO|QUEBEC,false\r\n');
    });
  });
});
