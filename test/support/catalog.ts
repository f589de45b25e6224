// Test support for suites that run over a catalog of their own:
// - API_PREFIX / GRANTS_PATH: where the partner API lives.
// - grantRecord / recordMaker: valid grant records, with overrides, under either of two label sets.
// - toNdjson / writeNdjson / writeTinyCatalog: source files for the indexer or for SEED_FILE.
// - captureCli / runSqliteIndexer / indexOrThrow: the CLIs in process, with their output kept.
// - startApiOnCatalog / startCatalogApi / stopCatalogApi: an API over a DATA_DIR indexed by the test.
// - servedIds: every id an API serves, read page by page.
// - reindexGrants: a writer's reindex over grants held in memory; indexedEngine: an embedded engine over them.
import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runIndexer } from '../../indexer/cli.js';
import type { Grant } from '../../src/grants/schema.js';
import type { CatalogWriter } from '../../src/search/engine.js';
import { SqliteSearchEngine } from '../../src/search/sqlite/runtime/engine.js';
import { SqliteCatalogWriter } from '../../src/search/sqlite/storage/writer.js';
import { startTestApi, tempDir, type TestApi, type TestApiOptions } from './api.js';

/** The partner API's path prefix. */
export const API_PREFIX = '/external/v1';
/** The grants search endpoint. */
export const GRANTS_PATH = `${API_PREFIX}/grants`;

/** A source record: a grant as the indexer reads it (or something deliberately not one). */
export type GrantRecord = Record<string, unknown>;

/** The free-text fields a built record gets unless overridden: the title is `${titlePrefix} ${id}`. */
export interface RecordLabels {
  titlePrefix: string;
  funder: string;
}

/** "Program <id>" by "Test Funder": the labels of the tiny catalogs and the envelope suite. */
export const PROGRAM_LABELS: RecordLabels = { titlePrefix: 'Program', funder: 'Test Funder' };
/** "Item <id>" by "Placeholder Body": labels no text-search word of the search suites matches. */
export const ITEM_LABELS: RecordLabels = { titlePrefix: 'Item', funder: 'Placeholder Body' };

const CREATED_AT = '2026-01-01T00:00:00.000Z';

/**
 * A valid grant with only the required fields (FEDERAL_GRANT, GRANT, CAD, created and updated at
 * 2026-01-01), then `overrides` on top (an override may set a field to undefined or add a bad one).
 */
export function grantRecord(
  id: string,
  overrides: GrantRecord = {},
  labels: RecordLabels = PROGRAM_LABELS,
): GrantRecord {
  return {
    id,
    title: `${labels.titlePrefix} ${id}`,
    funder: labels.funder,
    funderType: 'FEDERAL_GRANT',
    fundingType: 'GRANT',
    currency: 'CAD',
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...overrides,
  };
}

/** grantRecord with the labels fixed: `const rec = recordMaker(ITEM_LABELS)`. */
export const recordMaker =
  (labels: RecordLabels) =>
  (id: string, overrides: GrantRecord = {}): GrantRecord =>
    grantRecord(id, overrides, labels);

/** One JSON value a line, each line ended by "\n". */
export const toNdjson = (records: readonly unknown[]): string =>
  `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** Writes `records` as NDJSON to `dir/name`; returns the file. */
export function writeNdjson(dir: string, name: string, records: readonly unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, toNdjson(records));
  return file;
}

/**
 * Writes a small catalog of valid grants (by default g-1, g-2, g-3, labelled "Program <id>" by
 * "Test Funder") to `dir/catalog.ndjson` and returns its path: instances seed from it fast.
 */
export function writeTinyCatalog(dir: string, ids: readonly string[] = ['g-1', 'g-2', 'g-3']): string {
  return writeNdjson(
    dir,
    'catalog.ndjson',
    ids.map((id) => grantRecord(id)),
  );
}

/** What a command-line run printed, line by line, and its exit code. */
export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

/** Runs an in-process CLI entry point (runIndexer, runAdmin) with its output captured. */
export async function captureCli(
  run: (io: { out: (line: string) => void; err: (line: string) => void }) => Promise<number>,
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run({ out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

/** grants-indexer `args` on the SQLite engine over `dataDir`. */
export const runSqliteIndexer = (args: string[], dataDir: string): Promise<CliRun> =>
  captureCli((io) => runIndexer(args, { ...process.env, SEARCH_ENGINE: 'sqlite', DATA_DIR: dataDir }, io));

/**
 * grants-indexer `args` over `dataDir`; throws `<label> failed with exit <code>: <stderr>` unless
 * it exits 0.
 */
export async function indexOrThrow(
  dataDir: string,
  args: string[],
  label = 'indexing the test catalog',
): Promise<void> {
  const run = await runSqliteIndexer(args, dataDir);
  if (run.code !== 0) throw new Error(`${label} failed with exit ${run.code}: ${run.err.join('\n')}`);
}

/** An API over the catalog already in (or later indexed into) `dataDir`: no seeding. */
export const startApiOnCatalog = (
  dataDir: string,
  env: Record<string, string> = {},
  options: TestApiOptions = {},
): Promise<TestApi> => startTestApi({ DATA_DIR: dataDir, SEED_CATALOG: 'false', ...env }, options);

export interface CatalogApiOptions {
  /** Prefix of the temporary DATA_DIR. */
  prefix: string;
  /** Names the failed step in the error thrown when indexing fails (see indexOrThrow). */
  failureLabel?: string;
  /** The API's clock (what `open` and each grant's status are taken at); the real time when absent. */
  clock?: () => Date;
}

/**
 * Indexes `records` (written to source.ndjson in a fresh DATA_DIR) and starts an API over exactly
 * that catalog. Stop it with stopCatalogApi, which also removes the DATA_DIR.
 */
export async function startCatalogApi(records: readonly GrantRecord[], options: CatalogApiOptions): Promise<TestApi> {
  const dir = tempDir(options.prefix);
  await indexOrThrow(dir, ['reindex', '--source', writeNdjson(dir, 'source.ndjson', records)], options.failureLabel);
  return startApiOnCatalog(dir, {}, { clock: options.clock });
}

/** Stops an API started by startCatalogApi (if it started) and removes its DATA_DIR. */
export async function stopCatalogApi(api: TestApi | undefined): Promise<void> {
  if (!api) return;
  await api.stop();
  rmSync(api.dataDir, { recursive: true, force: true });
}

/** Every id the API serves, sorted (read through GET /grants, 100 at a time). */
export async function servedIds(api: TestApi): Promise<string[]> {
  const all: string[] = [];
  for (let page = 1; ; page += 1) {
    const res = await api.request(`${GRANTS_PATH}?limit=100&page=${page}`);
    expect(res.status, res.text).to.equal(200);
    all.push(...res.body.data.map((g: GrantRecord) => g.id as string));
    if (page >= res.body.pagination.totalPages) break;
  }
  return all.sort();
}

/** Reindexes a writer's catalog with grants held in memory (either engine); returns what it indexed. */
export function reindexGrants(
  writer: Pick<CatalogWriter, 'reindex'>,
  grants: readonly Grant[],
): Promise<{ indexed: number }> {
  return writer.reindex(
    (async function* () {
      yield* grants;
    })(),
  );
}

/** The embedded engine (no workers) over a catalog file written anew with `grants`. */
export async function indexedEngine(file: string, grants: readonly Grant[]): Promise<SqliteSearchEngine> {
  const writer = SqliteCatalogWriter.open(file);
  await reindexGrants(writer, grants);
  await writer.close();
  return SqliteSearchEngine.open(file);
}
