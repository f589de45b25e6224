// grants-indexer: loads source records into the search engine (reindex, sync, status, rollback).
// A thin wrapper: the reading, validation and guards are the ingestion pipeline's (pipeline.ts).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, SEARCH_ENGINES, type Config } from '../src/config.js';
import {
  IngestionRefused,
  reindexFromSource,
  syncFromSource,
  type IngestionOptions,
  type OpenWriter,
} from './pipeline.js';
import { isTimeZone } from './dates.js';
import { printable } from './printable.js';
import { SourceUnreadable } from './formats/bytes.js';
import { planMapping, type MappingPlan } from './formats/csvMapping.js';
import { FORMATS, type Format } from './formats/detect.js';
import { ImportMisuse, openImporter } from './importers.js';
import { defaultRejectsPath, RejectsReport } from './rejectsReport.js';
import type { CatalogWriter } from '../src/search/engine.js';
import { createCatalogWriter } from '../src/search/factory.js';
import { catalogPath } from '../src/search/sqlite/storage/catalogFile.js';
import { readUsageSizes } from '../src/subscriptions/sqlite/usageRetention.js';
import { fileProblem, unusablePath } from '../src/cli/fileProblems.js';
import {
  CliExit,
  noDatabase,
  runCli,
  stdio,
  UsageError,
  withOverrides,
  type Command,
  type Io,
  type ParsedArgs,
} from '../src/cli/runner.js';

export type { Io } from '../src/cli/runner.js';

const EXIT = { ok: 0, rejected: 1, usage: 2, failed: 3, shrink: 4 } as const;

const HELP = `Usage: grants-indexer <command> [options]

Commands:
  reindex --source <file|->   build a new catalog from the source and swap it in atomically
  sync --source <file|->      upsert new and changed grants into the live catalog
                              (sources: NDJSON, a JSON array, CSV with --mapping, a Grants.gov
                              XML extract or its zip, CommonGrants opportunities; any of them
                              gzipped; see --format)
  status                      show the live catalog
  rollback                    (elasticsearch) point the alias back at the previous index

Run "grants-indexer <command> --help" for a command's options.
The engine and its location come from the environment (SEARCH_ENGINE, DATA_DIR,
ELASTICSEARCH_URL, ELASTICSEARCH_INDEX) or from --engine and --data-dir.

Exit codes: 0 done; 1 records were rejected and nothing was changed; 2 bad usage;
3 the run failed (source unreadable, nothing arrived, no catalog, engine error) and nothing was changed;
4 the run would shrink the live catalog by more than half and nothing was changed (see --allow-shrink).`;

const ENGINE_OPTIONS = { engine: 'string', 'data-dir': 'string' } as const;
const IMPORT_OPTIONS = { format: 'string', mapping: 'string', 'time-zone': 'string', rejects: 'string' } as const;

const IMPORTING =
  `Formats (--format, guessed when not given: a zip archive is a Grants.gov extract, JSON with
a key only CommonGrants has is CommonGrants, then the extension .ndjson/.jsonl/.json/.csv/.xml,
optionally .gz, then the first characters; the guess is said on stderr):
  ndjson       one grant a line, our field names (a JSON array is read too)
  json         one JSON array of grants
  csv          a header row and one grant a row, read through --mapping FILE (JSON: which column
               feeds each field, value maps, list separators, date and number formats)
  grants-gov   the Grants.gov XML extract (GrantsDBExtract…zip or the XML inside); the latest
               Version of each opportunity is kept
  commongrants CommonGrants opportunities: a list response ({"items": [...]}, one page or several
               in a row), a JSON array or one a line; the custom fields of ours come back
A date-only deadline ("2027-01-15") is the end of that day in --time-zone (default
America/Toronto; a CSV mapping states its own), a date-only opensAt its start. ` +
  `With --skip-invalid, every rejected record is
also written to the rejects file (--rejects FILE, default grants-indexer-rejects-<time>-<pid>.ndjson in
the system's temporary folder), whose path is printed. A source that cannot be read to its end (malformed
XML, a damaged or truncated zip or gzip, a zip bomb, bytes that are not UTF-8) changes nothing
(exit 3), with or without --skip-invalid.`;

const USAGE = {
  reindex:
    'Usage: grants-indexer reindex --source <file|-> [--format F] [--mapping FILE] [--time-zone ZONE] ' +
    '[--skip-invalid] [--rejects FILE] [--allow-shrink] [--keep N] [--engine sqlite|elasticsearch] [--data-dir DIR]' +
    `

Reads the source (- for stdin) as a stream, validates every record against the
Grant schema and replaces the catalog atomically: readers see the old catalog until the new
one is complete. Each rejected record is reported on stderr (record number, id, field, reason).
Without --skip-invalid any rejection leaves the catalog unchanged and exits 1; with it, the
valid records are indexed. A source with no valid record never replaces the catalog (exit 3).
A new catalog with less than half the grants of the live one is refused (exit 4, saying by how
much) unless --allow-shrink is given.
On Elasticsearch the records go into a new timestamped index (no replicas, no refresh while
loading), the alias is swapped in one atomic call, and older indexes are deleted except the
--keep N newest before the live one (default 1), kept for "grants-indexer rollback". Any
document Elasticsearch refuses is reported and the alias is not swapped.
The changes feed (GET /grants/changes) gets a new sequence for each grant added or changed by
content, and a tombstone for each grant gone; unchanged grants keep theirs.

${IMPORTING}`,
  sync:
    'Usage: grants-indexer sync --source <file|-> [--format F] [--mapping FILE] [--time-zone ZONE] [--prune] ' +
    '[--allow-shrink] [--skip-invalid] [--rejects FILE] [--engine sqlite|elasticsearch] [--data-dir DIR]' +
    `

Upserts by id: a grant not in the catalog is added; one whose updatedAt differs from the
catalog's is updated; the rest are unchanged. With --prune, grants missing from the source are
deleted (rejected records keep their grant); pruning from a source with no record is refused
(exit 3), and pruning more than half of the catalog is refused (exit 4) unless --allow-shrink.
Prints the counts of added, updated, unchanged, deleted and rejected. On the embedded engine
the whole sync is one transaction. Without --skip-invalid any rejection leaves the catalog
unchanged and exits 1 (on Elasticsearch a file source is validated in a first pass for that;
from stdin, use --skip-invalid). Each grant added, updated or pruned gets a new sequence in the
changes feed (a pruned one a tombstone, kept CHANGES_RETENTION_DAYS), and a version in the
grant's history (GET /grants/{id}/history, kept HISTORY_RETENTION_DAYS).

${IMPORTING}`,
  status: `Usage: grants-indexer status [--engine sqlite|elasticsearch] [--data-dir DIR]

Prints the live catalog as JSON: engine, location, number of grants, the usage log's sizes
(usage: usageLogRows, usageDailyRows; null without a subscriptions database), size in bytes (on the
embedded engine the file and its write-ahead log), the time of the last reindex and of the last
sync; on Elasticsearch also the alias, its index and the indexes kept. On the embedded engine a
missing catalog file is an error (exit 3) and nothing is created.`,
  rollback: `Usage: grants-indexer rollback [--engine elasticsearch] [--data-dir DIR]

Elasticsearch only: points the alias back at the newest index older than the live one
(kept by reindex --keep). The embedded engine keeps no previous catalog. A rollback is a
change: the grants it brings back get new sequences in the changes feed.`,
};

function configFor(values: ParsedArgs['values'], env: NodeJS.ProcessEnv): Config {
  const engine = values.engine;
  if (typeof engine === 'string' && !(SEARCH_ENGINES as readonly string[]).includes(engine)) {
    throw new UsageError(`--engine must be one of ${SEARCH_ENGINES.join(', ')}, not "${engine}"`);
  }
  return loadConfig(withOverrides(env, values));
}

function progress(io: Io, verb: string) {
  let last = Date.now();
  return (n: number) => {
    if (Date.now() - last >= 2000) {
      last = Date.now();
      io.err(`… ${n.toLocaleString('en-US')} grants ${verb}`);
    }
  };
}

function keepOf(raw: string | true | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,2}$/.test(raw) || Number(raw) > 20)
    throw new UsageError(`--keep must be an integer from 0 to 20, not "${String(raw)}"`);
  return Number(raw);
}

/** Opens the configured engine's writer for one use, and closes it. */
async function withWriter<T>(config: Config, use: (writer: CatalogWriter) => Promise<T>): Promise<T> {
  const writer = await createCatalogWriter(config);
  try {
    return await use(writer);
  } finally {
    await writer.close();
  }
}

const EXIT_OF_REFUSAL: Record<IngestionRefused['kind'], number> = {
  rejected: EXIT.rejected,
  'nothing-indexed': EXIT.failed,
  'empty-source': EXIT.failed,
  shrink: EXIT.shrink,
};

/** Runs a pipeline step, turning its refusals into exit codes. */
async function ingest<T>(step: () => Promise<T>, source: string): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof IngestionRefused) throw new CliExit(error.message, EXIT_OF_REFUSAL[error.kind]);
    if (error instanceof SourceUnreadable)
      throw new CliExit(`${printable(error.message)}. Nothing was changed.`, EXIT.failed);
    if (error instanceof ImportMisuse) throw new UsageError(printable(error.message));
    // The source failing while it is read (removed, its permissions changed): said in words.
    const problem = fileProblem(error);
    const file = (error as { path?: unknown } | null)?.path;
    if (problem !== null && file === source) {
      throw new CliExit(
        `the source file ${file} ${problem}; give --source a file of grants (NDJSON, a JSON array, CSV with ` +
          `--mapping, a Grants.gov extract) or - to read standard input. Nothing was changed.`,
        EXIT.failed,
      );
    }
    throw error;
  }
}

function commands(env: NodeJS.ProcessEnv, io: Io): Command[] {
  const sourceOf = (values: ParsedArgs['values'], command: string): string => {
    if (typeof values.source !== 'string') throw new UsageError(`${command} needs --source <file|->`);
    const problem = values.source === '-' ? null : unusablePath(values.source, 'file');
    if (problem !== null) {
      throw new CliExit(
        `the source file ${values.source} ${problem}; give --source a file of grants (NDJSON, a JSON array, ` +
          `CSV with --mapping, a Grants.gov extract) or - to read standard input. Nothing was changed.`,
        EXIT.failed,
      );
    }
    return values.source;
  };
  /**
   * The run's source: its importer (the format given or guessed, said on stderr) and the rejects file of
   * --skip-invalid.
   */
  const importing = async (
    values: ParsedArgs['values'],
    source: string,
  ): Promise<{ records: IngestionOptions['records']; rejects: RejectsReport | null }> => {
    const format = values.format;
    if (format !== undefined && !(FORMATS as readonly unknown[]).includes(format)) {
      throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not "${String(format)}"`);
    }
    const zone = values['time-zone'];
    if (zone !== undefined && (typeof zone !== 'string' || !isTimeZone(zone))) {
      throw new UsageError(`--time-zone must be an IANA time zone such as America/Toronto, not "${String(zone)}"`);
    }
    let mapping: MappingPlan | undefined;
    if (typeof values.mapping === 'string') {
      const problem = unusablePath(values.mapping, 'file');
      if (problem !== null) throw new UsageError(`the mapping file ${values.mapping} ${problem}`);
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(values.mapping, 'utf8'));
      } catch (error) {
        throw new UsageError(`the mapping file ${values.mapping} is not valid JSON (${(error as Error).message})`);
      }
      try {
        mapping = planMapping(json);
      } catch (error) {
        throw new UsageError(`${values.mapping}: ${(error as Error).message}`);
      }
    }
    if (values.rejects !== undefined && values['skip-invalid'] !== true)
      throw new UsageError('--rejects goes with --skip-invalid (the rejected records of a run that indexes the rest)');
    if (typeof values.rejects === 'string') {
      const folder = unusablePath(path.dirname(path.resolve(values.rejects)), 'folder');
      if (folder !== null) throw new UsageError(`the folder of the rejects file ${values.rejects} ${folder}`);
      if (existsSync(values.rejects) && statSync(values.rejects).isDirectory())
        throw new UsageError(`the rejects file ${values.rejects} is a folder, not a file`);
    }
    const importer = await ingest(
      () =>
        openImporter({
          source,
          format: format as Format | undefined,
          mapping,
          timeZone: zone as string | undefined,
          note: io.err,
        }),
      source,
    );
    if (mapping !== undefined && importer.format !== 'csv')
      throw new UsageError(`--mapping is for CSV sources; ${source} is read as ${importer.format}`);
    if (
      zone !== undefined &&
      importer.format !== 'ndjson' &&
      importer.format !== 'json' &&
      importer.format !== 'commongrants'
    ) {
      throw new UsageError(
        `--time-zone is for NDJSON, JSON and CommonGrants sources; ${source} is read as ${importer.format}, ` +
          `whose dates ${importer.format === 'csv' ? "take the mapping's timeZone" : 'are US Eastern'}`,
      );
    }
    const name = source === '-' ? 'standard input' : source;
    io.err(
      `reading ${name} as ` +
        `${importer.format}${importer.reason === null ? '' : ` (guessed from ${importer.reason}; --format to choose)`}`,
    );
    const rejects =
      values['skip-invalid'] === true
        ? new RejectsReport(typeof values.rejects === 'string' ? values.rejects : defaultRejectsPath(new Date()))
        : null;
    return { records: importer.records, rejects };
  };
  /** Says where the rejects went, and closes their file. */
  const closeRejects = (rejects: RejectsReport | null) => {
    if (rejects === null) return;
    rejects.close();
    if (rejects.count > 0) io.err(`${rejects.count} rejected record(s) written to ${rejects.path}`);
  };
  return [
    {
      name: 'reindex',
      usage: USAGE.reindex,
      options: {
        source: 'string',
        'skip-invalid': 'boolean',
        'allow-shrink': 'boolean',
        keep: 'string',
        ...IMPORT_OPTIONS,
        ...ENGINE_OPTIONS,
      },
      run: async ({ values }) => {
        const source = sourceOf(values, 'reindex');
        const keep = keepOf(values.keep);
        const config = configFor(values, env);
        const { records, rejects } = await importing(values, source);
        const open: OpenWriter = (hooks) => createCatalogWriter(config, hooks, { keep });
        const { indexed, rejected } = await ingest(
          () =>
            reindexFromSource(
              open,
              {
                source,
                records,
                rejects: rejects?.write,
                skipInvalid: values['skip-invalid'] === true,
                allowShrink: values['allow-shrink'] === true,
                report: io.err,
              },
              { onProgress: progress(io, 'indexed') },
            ),
          source,
        ).finally(() => closeRejects(rejects));
        io.out(`reindex: indexed ${indexed}, rejected ${rejected}; the new catalog is live`);
        return EXIT.ok;
      },
    },
    {
      name: 'sync',
      usage: USAGE.sync,
      options: {
        source: 'string',
        prune: 'boolean',
        'allow-shrink': 'boolean',
        'skip-invalid': 'boolean',
        ...IMPORT_OPTIONS,
        ...ENGINE_OPTIONS,
      },
      run: async ({ values }) => {
        const source = sourceOf(values, 'sync');
        const config = configFor(values, env);
        const { records, rejects } = await importing(values, source);
        const c = await ingest(
          () =>
            syncFromSource((hooks) => createCatalogWriter(config, hooks), {
              source,
              records,
              rejects: rejects?.write,
              prune: values.prune === true,
              skipInvalid: values['skip-invalid'] === true,
              allowShrink: values['allow-shrink'] === true,
              validateFirst: config.searchEngine === 'elasticsearch',
              report: io.err,
            }),
          source,
        ).finally(() => closeRejects(rejects));
        io.out(
          `sync: added ${c.added}, updated ${c.updated}, unchanged ${c.unchanged}, deleted ${c.deleted}, ` +
            `rejected ${c.rejected}`,
        );
        return EXIT.ok;
      },
    },
    {
      name: 'status',
      usage: USAGE.status,
      options: { ...ENGINE_OPTIONS },
      run: async ({ values }) => {
        const config = configFor(values, env);
        if (config.searchEngine === 'sqlite' && !existsSync(catalogPath(config.dataDir))) {
          throw new CliExit(noDatabase(catalogPath(config.dataDir)), EXIT.failed);
        }
        const status = await withWriter(config, (writer) => writer.status());
        io.out(JSON.stringify({ ...status, usage: readUsageSizes(config.dataDir) }, null, 2));
        return EXIT.ok;
      },
    },
    {
      name: 'rollback',
      usage: USAGE.rollback,
      options: { ...ENGINE_OPTIONS },
      run: async ({ values }) => {
        const config = configFor(values, env);
        const noRollback = new UsageError(
          `the ${config.searchEngine} engine keeps no previous catalog to roll back to`,
        );
        // Checked before opening the writer, which would create an embedded catalog.
        if (config.searchEngine !== 'elasticsearch') throw noRollback;
        const { from, to } = await withWriter(config, (writer) => {
          if (writer.rollback === undefined) throw noRollback;
          return writer.rollback();
        });
        io.out(`rollback: the alias now points at ${to} (was ${from})`);
        return EXIT.ok;
      },
    },
  ];
}

export function runIndexer(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = stdio): Promise<number> {
  return runCli({ program: 'grants-indexer', help: HELP, exits: EXIT, commands: commands(env, io) }, argv, io);
}
