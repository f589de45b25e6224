// The guides (README.md and docs/*.md) link to each other and to files of the repository: every
// relative link (an image's src included) must name a file that exists and, with a #fragment, a heading of that file
// (as GitHub spells its anchors). They name npm scripts: each must be one package.json has. And they stand alone: no
// link leaves the repository.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, tempDir } from '../support/api.js';

/** The guides of a repository: README.md and every docs/*.md. */
export function guides(root: string): string[] {
  const docs = path.join(root, 'docs');
  const inDocs = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join('docs', f))
    : [];
  return ['README.md', ...inDocs.sort()];
}

/** The text of a markdown file outside fenced code blocks and inline code spans. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      lines.push('');
      continue;
    }
    lines.push(fenced ? '' : line.replace(/`[^`]*`/g, (code) => (code.includes('](') ? '``' : code)));
  }
  return lines;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings, duplicates numbered as GitHub numbers them. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Every link of the guides that does not resolve, as "file: target (why)". */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const line of prose(text)) {
      for (const m of [
        ...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g),
        ...line.matchAll(/<img\s[^>]*\bsrc="([^"]+)"/g),
      ]) {
        const target = m[1].replace(/^<|>$/g, '');
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
        const resolved =
          pathPart === ''
            ? path.join(root, file)
            : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(pathPart));
        if (path.relative(root, resolved).startsWith('..')) {
          broken.push(`${file}: ${target} (outside the repository)`);
          continue;
        }
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (fragment === undefined) continue;
        if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
          broken.push(`${file}: ${target} (an anchor into a file that is not markdown)`);
        } else if (!anchors(readFileSync(resolved, 'utf8')).has(fragment)) {
          broken.push(`${file}: ${target} (no heading #${fragment} in ${path.relative(root, resolved)})`);
        }
      }
    }
  }
  return broken;
}

/** Every `npm run <script>` of the guides whose script package.json does not have. */
export function unknownScripts(root: string, files: readonly string[]): string[] {
  const scripts = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const unknown: string[] = [];
  for (const file of files) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/npm run ([a-z][\w:.-]*)/g)) {
      if (!(m[1] in scripts)) unknown.push(`${file}: npm run ${m[1]}`);
    }
  }
  return unknown;
}

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
