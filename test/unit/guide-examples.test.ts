// The guides' examples as a newcomer meets them: every example that lists grants asks for open
// grants (open=true), so the first grant a reader sees is one they can still apply for; an
// example about every grant says why in an `all-grants` marker. Also the rules the guide-commands
// test relies on: how output blocks are found and compared (shown against real answers here, so
// that a wrong guide example is seen to fail).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/api.js';
import {
  compareShown,
  guideBlocks,
  guideFiles,
  isShell,
  parseBlocks,
  parseShownJson,
  textMatches,
} from '../support/guides.js';

/** Where a guide asks for a list of grants: the HTTP paths and the SDK's calls. */
const LISTING = [
  /\/external\/v1\/grants(?:\/export)?(?![\w/-])[^\s'"`]*/g,
  /grants\.(?:search|iterate|export)\([^;]*?\)(?=[;\s]|$)/g,
  /GET\('\/grants(?:\/export)?'[^;]*?\)(?=[;\s`]|$)/g,
  /"search_grants"[\s\S]*?"arguments"\s*:\s*\{[^}]*\}/g,
];

const asksForOpen = (example: string): boolean => /open=true|open:\s*true|"open"\s*:\s*true/.test(example);

interface Example {
  where: string;
  text: string;
  optOut?: string;
}

/** Every grant-listing example of a markdown file: in code blocks and in inline code. */
function listingExamples(file: string): Example[] {
  const markdown = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  const found: Example[] = [];
  for (const block of parseBlocks(markdown, file)) {
    for (const pattern of LISTING) {
      for (const match of block.text.matchAll(pattern))
        found.push({ where: `${file}:${block.line}`, text: match[0], optOut: block.markers['all-grants'] });
    }
  }
  const prose = markdown.replace(/^(```+|~~~+)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const span of prose.matchAll(/`([^`\n]+)`/g)) {
    for (const pattern of LISTING)
      for (const match of span[1].matchAll(pattern)) found.push({ where: `${file} (inline)`, text: match[0] });
  }
  return found;
}

describe('guide examples', function () {
  describe('grant lists ask for open grants (open=true)', function () {
    const files = [...guideFiles(), 'clients/typescript/README.md'];

    it('finds the listing examples of the guides and the SDK README', function () {
      const all = files.flatMap(listingExamples);
      expect(all.length, 'there are examples to check').to.be.greaterThan(10);
      expect(all.some((e) => e.where.startsWith('clients/typescript'))).to.equal(true);
    });

    for (const file of files) {
      it(`${file}: every example listing grants asks for open=true, or says why not`, function () {
        const missing = listingExamples(file).filter(
          (e) => !asksForOpen(e.text) && (e.optOut === undefined || e.optOut.split(/\s+/).length < 3),
        );
        expect(missing.map((e) => `${e.where}: ${e.text}`)).to.deep.equal([]);
      });
    }

    it('the console page: its example request lists open grants', function () {
      const page = readFileSync(path.join(REPO_ROOT, 'src/http/pages/console/page.html'), 'utf8').replaceAll(
        '&amp;',
        '&',
      );
      const examples = LISTING.flatMap((pattern) => [...page.matchAll(pattern)].map((m) => m[0]));
      expect(examples.length).to.be.at.least(1);
      expect(examples.filter((example) => !asksForOpen(example))).to.deep.equal([]);
    });

    it('the check sees a listing without open=true, in a block and inline, and honours a marker with its reason', function () {
      const md = [
        '```sh',
        'curl -H "Authorization: Bearer $KEY" "$API/external/v1/grants?search=solar"',
        '```',
        '',
        'Or `GET /external/v1/grants/export?format=csv`, or `client.grants.search({ search: "x" })`.',
        '',
        '<!-- all-grants: the whole catalog, closed grants included -->',
        '```sh',
        'curl "$API/external/v1/grants?limit=0"',
        '```',
      ].join('\n');
      const blocks = parseBlocks(md, 'x.md');
      expect(blocks[1].markers['all-grants']).to.equal('the whole catalog, closed grants included');
      const texts = blocks.flatMap((b) => LISTING.flatMap((p) => [...b.text.matchAll(p)].map((m) => m[0])));
      expect(texts).to.deep.equal(['/external/v1/grants?search=solar', '/external/v1/grants?limit=0']);
      expect(texts.map(asksForOpen)).to.deep.equal([false, false]);
      expect(asksForOpen('/external/v1/grants?open=true&search=solar')).to.equal(true);
      expect(asksForOpen('client.grants.search({ open: true })')).to.equal(true);
    });
  });

  describe('markers and output blocks', function () {
    it('a block directly after a command is its output; markers are read from the lines above a block', function () {
      const md = [
        '<!-- statuses: 401 (no key) -->',
        '```sh',
        'curl x',
        '```',
        '',
        '<!-- output: shape (the date) -->',
        '```json',
        '{}',
        '```',
        'Prose.',
        '```text',
        'y',
        '```',
      ].join('\n');
      const [command, output, other] = parseBlocks(md, 'x.md');
      expect(command.markers).to.deep.equal({ statuses: '401 (no key)' });
      expect(command.output).to.equal(output);
      expect(output.markers).to.deep.equal({ output: 'shape (the date)' });
      expect(output.output, 'prose in between: not an output').to.equal(undefined);
      expect(other.lang).to.equal('text');
    });

    it('commands are in shell blocks (run by the guide-commands test) or, as a synopsis, in text blocks; never in a block without a language', function () {
      const unmarked = guideBlocks().filter(
        (block) =>
          block.lang === '' && /^\s*(curl|npx|npm|node|bash|grants-admin|grants-indexer)\s+[-a-z"'$]/m.test(block.text),
      );
      expect(unmarked.map((block) => `${block.file}:${block.line}`)).to.deep.equal([]);
    });

    it('every marker of the guides is one the tests know, and every not-run and all-grants marker gives a reason', function () {
      const known = new Set(['not-run', 'statuses', 'run-until', 'output', 'all-grants']);
      for (const block of guideBlocks()) {
        for (const [name, text] of Object.entries(block.markers)) {
          expect(known.has(name), `${block.file}:${block.line}: marker ${name}`).to.equal(true);
          if (name === 'not-run' || name === 'all-grants')
            expect(text.split(/\s+/).length, `${block.file}:${block.line}: ${name} says why`).to.be.at.least(3);
          if (name === 'not-run')
            expect(isShell(block), `${block.file}:${block.line}: not-run is for shell blocks`).to.equal(true);
        }
      }
    });
  });

  describe('comparing a shown output with a real one', function () {
    const real = {
      success: true,
      data: [
        { id: 'grt_1', deadline: '2026-12-01T00:00:00.000Z' },
        { id: 'grt_2', deadline: null },
        { id: 'grt_3', deadline: null },
      ],
      pagination: { page: 1, limit: 20, total: 3, totalPages: 1 },
      meta: { timestamp: '2026-11-25T10:00:00.000Z', requestId: 'req_abc', version: 'v1' },
    };

    it('matches values, with … for any value, more elements, more keys or any text', function () {
      const shown = parseShownJson(
        '{ "success": true, "data": [ { "id": "grt_1", "deadline": "2026-…" }, … ],\n' +
          '  "pagination": { "page": 1, "limit": 20, "total": 3, "totalPages": 1 },\n' +
          '  "meta": { "timestamp": "2026-11-23T09:00:00.000Z", "requestId": "req_…", "…": "…" } }',
      );
      expect(compareShown(shown, real, 'values')).to.deep.equal([]);
    });

    it('a wrong value, a missing or extra key, a wrong type or a missing element is a difference', function () {
      const shown = (text: string) => parseShownJson(text);
      expect(
        compareShown(
          shown(
            '{ "success": true, "data": …, "pagination": { "page": 1, "limit": 20, "total": 40, "totalPages": 1 ' +
              '}, "meta": … }',
          ),
          real,
          'values',
        ),
      ).to.deep.equal(['pagination.total: shown 40, got 3']);
      expect(compareShown(shown('{ "success": true, "data": …, "meta": … }'), real, 'values')).to.deep.equal([
        '(top): keys of the answer the guide does not show: pagination',
      ]);
      expect(
        compareShown(shown('{ "success": true, "data": …, "pagination": …, "facets": {}, "meta": … }'), real, 'values'),
      ).to.deep.equal(['(top): shown keys missing from the answer: facets']);
      expect(
        compareShown(
          shown('{ "success": true, "data": [ { "id": "grt_1", "deadline": 5 }, … ], "pagination": …, "meta": … }'),
          real,
          'shape',
        ),
      ).to.have.length(1);
      expect(
        compareShown(
          shown('{ "success": true, "data": [ …, { "id": "grt_3", "deadline": null } ], "pagination": …, "meta": … }'),
          real,
          'values',
        ),
      ).to.deep.equal([]);
      expect(
        compareShown(
          shown('{ "success": true, "data": [ …, { "id": "grt_9", "deadline": null } ], "pagination": …, "meta": … }'),
          real,
          'values',
        ),
      ).to.deep.equal(['data[2].id: shown "grt_9", got "grt_3"']);
      expect(compareShown(shown('[1, 2]'), [1, 2, 3], 'values')).to.deep.equal(['(top): shown 2 elements, got 3']);
    });

    it('shape compares keys and types, not values; an empty list where the guide shows elements differs', function () {
      const shown = parseShownJson(
        '{ "success": true, "data": [ { "id": "grt_9", "deadline": "2027-01-01T00:00:00.000Z" } ], "pagination": ' +
          '{ "page": 2, "limit": 5, "total": 1, "totalPages": 9 }, "meta": … }',
      );
      expect(compareShown(shown, real, 'shape')).to.deep.equal([]);
      expect(compareShown(shown, { ...real, data: [] }, 'shape')).to.deep.equal([
        'data: shown elements, got an empty list',
      ]);
    });

    it('text: line by line, … for any text in a line, a line of … for any lines', function () {
      expect(textMatches('replay: … passed, 0 failed', 'PASS a\nreplay: 160 passed, 0 failed\n')).to.equal(false);
      expect(textMatches('…\nreplay: … passed, 0 failed', 'PASS a\nPASS b\nreplay: 160 passed, 0 failed\n')).to.equal(
        true,
      );
      expect(textMatches('…\nreplay: … passed, 0 failed', 'PASS a\nreplay: 159 passed, 1 failed\n')).to.equal(false);
      expect(textMatches('\nETag: W/"…"\n', 'ETag: W/"abc"\r\n\r\n')).to.equal(true);
    });
  });
});
