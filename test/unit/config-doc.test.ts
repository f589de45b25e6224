// The configuration table of docs/operations.md documents every setting: each environment variable
// loadConfig reads (the one reader of the environment) is a row of it, and each row is a variable
// loadConfig reads, or one marked "tests only".
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { REPO_ROOT } from '../support/api.js';

/** Every environment variable loadConfig reads (it reads each one it knows, set or not). */
function variablesTheCodeReads(): Set<string> {
  const read = new Set<string>();
  loadConfig(new Proxy({} as Record<string, string | undefined>, { get: (_, name) => (typeof name === 'string' && read.add(name), undefined) }));
  return read;
}

/** The rows of the "## Configuration" section's table: variable → its row. */
export function configurationTable(markdown: string): Map<string, string> {
  const start = markdown.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('no "## Configuration" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return new Map([...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|.*$/gm)].map((m) => [m[1], m[0]]));
}

describe('unit: the configuration table of docs/operations.md', () => {
  it('reads the rows of its section only', () => {
    const rows = configurationTable('# O\n\n## Configuration\n\n| variable | default | meaning |\n|---|---|---|\n| `PORT` | `3000` | port |\n\n## Logs\n\n| `LATER` | x | y |\n');
    expect([...rows.keys()]).to.deep.equal(['PORT']);
  });

  it('lists every variable the code reads, and only those (or ones marked tests only)', () => {
    const rows = configurationTable(readFileSync(path.join(REPO_ROOT, 'docs/operations.md'), 'utf8'));
    const read = variablesTheCodeReads();
    expect([...read].filter((v) => !rows.has(v)), 'variables loadConfig reads that the table leaves out').to.deep.equal([]);
    const extra = [...rows].filter(([v, row]) => !read.has(v) && !/tests only/.test(row)).map(([v]) => v);
    expect(extra, 'rows for variables loadConfig does not read').to.deep.equal([]);
  });
});
