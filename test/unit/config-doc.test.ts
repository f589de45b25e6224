// The configuration table of docs/operations.md documents every setting: each setting of the
// settings table (src/settings.ts, the schema loadConfig validates the environment with) is a row
// of it with the table's default, and each row is a setting, or one marked "tests only".
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { documentedDefault, SETTINGS, type Setting } from '../../src/settings.js';
import { REPO_ROOT } from '../support/api.js';

/** A row of the table: its default column and the whole line. */
interface Row {
  defaultColumn: string;
  line: string;
}

/** The rows of the "## Configuration" section's table: variable → its row. */
export function configurationTable(markdown: string): Map<string, Row> {
  const start = markdown.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('no "## Configuration" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return new Map(
    [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|.*$/gm)].map((m) => [
      m[1],
      { defaultColumn: m[2].trim(), line: m[0] },
    ]),
  );
}

/** Every environment variable loadConfig reads (it reads each one it knows, set or not). */
function variablesLoadConfigReads(): Set<string> {
  const read = new Set<string>();
  loadConfig(
    new Proxy({} as Record<string, string | undefined>, {
      get: (_, name) => (typeof name === 'string' && read.add(name), undefined),
    }),
  );
  return read;
}

const SETTING_LIST = Object.entries(SETTINGS) as [string, Setting][];

describe('unit: the configuration table of docs/operations.md', () => {
  it('reads the rows of its section only, with their default column', () => {
    const rows = configurationTable(
      '# O\n\n## Configuration\n\n| variable | default | meaning |\n|---|---|---|\n| `PORT` | `3000` | port ' +
        '|\n\n## Logs\n\n| `LATER` | x | y |\n',
    );
    expect([...rows.keys()]).to.deep.equal(['PORT']);
    expect(rows.get('PORT')?.defaultColumn).to.equal('`3000`');
  });

  it('shows a default as the guide writes it: the value in backticks, or the words for one that is no plain value', () => {
    expect(documentedDefault(SETTINGS.PORT)).to.equal('`3000`');
    expect(documentedDefault(SETTINGS.SEED_CATALOG)).to.equal('`true`');
    expect(documentedDefault(SETTINGS.SEED_FILE)).to.equal('`fixtures/grants.ndjson`');
    expect(documentedDefault(SETTINGS.REDIS_URL)).to.equal('unset');
    expect(documentedDefault(SETTINGS.CORS_ORIGINS)).to.equal('empty');
    expect(documentedDefault(SETTINGS.SEARCH_WORKERS)).to.equal('number of cores');
  });

  it('loadConfig reads the environment through the settings table only', () => {
    expect([...variablesLoadConfigReads()].sort()).to.deep.equal(Object.keys(SETTINGS).sort());
  });

  const rows = configurationTable(readFileSync(path.join(REPO_ROOT, 'docs/operations.md'), 'utf8'));

  it("has a row for every setting, with the setting's default", () => {
    expect(
      SETTING_LIST.filter(([name]) => !rows.has(name)).map(([name]) => name),
      'settings the table leaves out',
    ).to.deep.equal([]);
    const wrongDefaults = SETTING_LIST.filter(
      ([name, setting]) => rows.get(name)?.defaultColumn !== documentedDefault(setting),
    ).map(
      ([name, setting]) =>
        `${name}: the table says ${rows.get(name)?.defaultColumn}, the settings ${documentedDefault(setting)}`,
    );
    expect(wrongDefaults, "rows whose default differs from the setting's").to.deep.equal([]);
  });

  it('has no row but the settings (or ones marked tests only)', () => {
    const extra = [...rows]
      .filter(([name, row]) => !(name in SETTINGS) && !/tests only/.test(row.line))
      .map(([name]) => name);
    expect(extra, 'rows for variables that are no setting').to.deep.equal([]);
  });
});
