// The guides are maps of what is true now; the history of runs lives in the journals of
// docs/journal/. A guide (README.md, docs/*.md, the bench's and the embedded engine's guides)
// holds no dated line in its prose (a date such as 2026-11-25 or 27 Nov, a time of day in UTC):
// dates in code blocks and inline code (example answers, parameters) are not history. The code's
// comments hold no reference a reader cannot follow: no decision-document section, no issue number.
// And the links of the journals and of the bench's guide resolve, as the guides' own do.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/api.js';
import { guideFiles } from '../support/guides.js';
import { brokenLinks } from '../support/docLinks.js';

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|' +
  'Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';

/** What marks a line of prose as a dated record: a calendar date, a day and month, a UTC time. */
const DATED = [
  /\b(?:19|20)\d\d-[01]\d-[0-3]\d\b/,
  new RegExp(`\\b[0-3]?\\d ${MONTH}\\b`),
  new RegExp(`\\b${MONTH} [0-3]?\\d\\b`),
  /\b[0-2]\d:[0-5]\d(?:[–-][0-2]\d:[0-5]\d)? UTC\b/,
];

/** The prose lines of a markdown text (1-based numbers): fenced blocks, comments and inline code left out. */
export function proseLines(markdown: string): [number, string][] {
  const lines: [number, string][] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (!fenced) lines.push([i + 1, line.replace(/`[^`]*`/g, '').replace(/<!--.*?-->/g, '')]);
  });
  return lines;
}

/** The dated lines of a guide, as "line: text". */
export function datedLines(markdown: string): string[] {
  return proseLines(markdown)
    .filter(([, line]) => DATED.some((pattern) => pattern.test(line)))
    .map(([n, line]) => `${n}: ${line.trim().slice(0, 120)}`);
}

/** A reference in code to a document or a tracker the reader does not have. */
const UNFOLLOWABLE = [/API-DECISIONS/i, /\bissues? #?\d+/i, /\bissue[- ]\d+/i, /(?<!RFC \d{3,5} )§ ?\d/];

/** The lines of a source text holding such a reference, as "line: text". */
export function unfollowableReferences(source: string): string[] {
  return source
    .split('\n')
    .flatMap((line, i) =>
      UNFOLLOWABLE.some((pattern) => pattern.test(line)) ? [`${i + 1}: ${line.trim().slice(0, 120)}`] : [],
    );
}

/** Every .ts, .js and .mjs file under `dir` (relative to the repository). */
function sources(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(REPO_ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|js|mjs)$/.test(name) ? [rel] : [];
  });
}

const journals = (): string[] =>
  readdirSync(path.join(REPO_ROOT, 'docs/journal'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/journal/${name}`);

describe('unit: the guides are maps, the journals hold the history', () => {
  it('finds a dated line in prose, and leaves dates in code blocks and inline code alone', () => {
    const markdown = [
      '# Guide',
      'The run of 2026-11-25 took 219 s.',
      'Measured on 27 Nov on a quiet VM.',
      'Runs of 18:12–18:27 UTC.',
      'A date must exist (`2026-02-30` is a 400).',
      '```json',
      '{ "timestamp": "2026-11-21T09:30:00.000Z" }',
      '```',
      'Between 1 and 10 connections; May the rounds agree; 2 Decisions; JSON Schema 2020-12.',
    ].join('\n');
    expect(datedLines(markdown)).to.deep.equal([
      '2: The run of 2026-11-25 took 219 s.',
      '3: Measured on 27 Nov on a quiet VM.',
      '4: Runs of 18:12–18:27 UTC.',
    ]);
  });

  it('README.md, docs/*.md, the bench guide and the engine guide hold no dated line', () => {
    const files = [
      ...guideFiles(REPO_ROOT),
      'test/bench/README.md',
      'src/search/sqlite/ARCHITECTURE.md',
      'src/search/elasticsearch/ARCHITECTURE.md',
    ];
    expect(files).to.include.members(['README.md', 'docs/performance.md', 'docs/operations.md']);
    expect(files.some((file) => file.startsWith('docs/journal/'))).to.equal(false);
    const dated = files.flatMap((file) =>
      datedLines(readFileSync(path.join(REPO_ROOT, file), 'utf8')).map((line) => `${file}:${line}`),
    );
    expect(dated, "a dated run belongs in docs/journal/, the guide keeps today's figure").to.deep.equal([]);
  });

  it('finds a reference to a decision section or an issue, and leaves an RFC section alone', () => {
    const source = [
      '// As API-DECISIONS §2 orders them.',
      '// The changes feed (issue 14).',
      '// See issue #3.',
      '// decisions §3 says so.',
      '// RFC 9110 §13.1.2 says so.',
      'const x = 1;',
    ].join('\n');
    expect(unfollowableReferences(source)).to.deep.equal([
      '1: // As API-DECISIONS §2 orders them.',
      '2: // The changes feed (issue 14).',
      '3: // See issue #3.',
      '4: // decisions §3 says so.',
    ]);
  });

  it('src/ and indexer/ refer to no decision section and no issue', () => {
    const files = [...sources('src'), ...sources('indexer')];
    expect(files).to.include('src/app.ts');
    const found = files.flatMap((file) =>
      unfollowableReferences(readFileSync(path.join(REPO_ROOT, file), 'utf8')).map((line) => `${file}:${line}`),
    );
    expect(found, 'say the reason itself').to.deep.equal([]);
  });

  it('the journals and the bench guide: every relative link and anchor resolves', () => {
    const files = [...journals(), 'test/bench/README.md'];
    expect(files).to.include.members(['docs/journal/bench.md', 'docs/journal/performance.md', 'docs/journal/chaos.md']);
    expect(brokenLinks(REPO_ROOT, files)).to.deep.equal([]);
  });
});
