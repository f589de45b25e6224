// The guides (README.md and docs/*.md) link to each other and to files of the repository: every
// relative link (an image's src included) must name a file that exists and, with a #fragment, a heading of that file
// (as GitHub spells its anchors). They name npm scripts: each must be one package.json has. And they stand alone: no
// link leaves the repository.
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, tempDir } from '../support/api.js';
import { anchors, brokenLinks, guides, slug, unknownScripts } from '../support/docLinks.js';

describe('unit: the guides link only to what exists', () => {
  it('spells anchors as GitHub does', () => {
    expect(slug('Searching: `GET /grants`')).to.equal('searching-get-grants');
    expect(slug('Exporting a search: `GET /grants/export`')).to.equal('exporting-a-search-get-grantsexport');
    expect(slug('Search at 10,000, 100,000 and 1,000,000 grants, both engines')).to.equal(
      'search-at-10000-100000-and-1000000-grants-both-engines',
    );
    expect(slug('Browser access (CORS)')).to.equal('browser-access-cors');
    expect([...anchors('# A\n## Notes\n```\n## not a heading\n```\n## Notes\n')]).to.deep.equal([
      'a',
      'notes',
      'notes-1',
    ]);
  });

  it('finds a missing file (an image too), a missing anchor, a link out of the repository and an unknown script', () => {
    const root = tempDir('grants-doc-links-');
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ scripts: { test: 'mocha' } }));
    writeFileSync(
      path.join(root, 'README.md'),
      '# R\n\n[ok](docs/a.md#section-one) [self](#r) ' +
        '[web](https://example.com/x.md#nowhere)\n[gone](docs/missing.md) [bad ' +
        'anchor](docs/a.md#section-two)\n<img src="docs/images/missing.png" width="100" alt="x">\n`[in ' +
        'code](docs/nowhere.md)`\n\n```\n[fenced](docs/nowhere.md)\n```\n\nRun `npm test` or `npm run test`; `npm ' +
        'run tset` is a typo.\n',
    );
    writeFileSync(
      path.join(root, 'docs/a.md'),
      '# A\n\n## Section one\n\nBack to the [README](../README.md#r); [outside](../../shared/x.md).\n',
    );
    const files = guides(root);
    expect(files).to.deep.equal(['README.md', 'docs/a.md']);
    expect(brokenLinks(root, files)).to.deep.equal([
      'README.md: docs/missing.md (no such file)',
      'README.md: docs/a.md#section-two (no heading #section-two in docs/a.md)',
      'README.md: docs/images/missing.png (no such file)',
      'docs/a.md: ../../shared/x.md (outside the repository)',
    ]);
    expect(unknownScripts(root, files)).to.deep.equal(['README.md: npm run tset']);
  });

  it('README.md and docs/*.md: every relative link and anchor resolves, every npm script exists', () => {
    const files = guides(REPO_ROOT);
    expect(files).to.include.members([
      'README.md',
      'docs/partners.md',
      'docs/operations.md',
      'docs/cli.md',
      'docs/architecture.md',
      'docs/performance.md',
      'docs/alerts.md',
    ]);
    expect(brokenLinks(REPO_ROOT, files)).to.deep.equal([]);
    expect(unknownScripts(REPO_ROOT, files)).to.deep.equal([]);
  });

  it('the guides stand alone: no reference to documents outside the repository or to issue numbers', () => {
    const offending = guides(REPO_ROOT).flatMap((file) =>
      readFileSync(path.join(REPO_ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\.\.\/shared\b|\bshared\/(seed|API-DECISIONS|ARCHITECTURE)|\bAPI-DECISIONS\b|\bissues? #?\d+|\bissue[- ]\d+/i.test(
            line,
          )
            ? [`${file}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(offending).to.deep.equal([]);
  });
});
