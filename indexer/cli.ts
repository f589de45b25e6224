// grants-indexer: loads source records into the search engine (reindex, sync, status).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, SEARCH_ENGINES, type Config } from '../src/config.js';
import type { CatalogWriter } from '../src/search/engine.js';
import { createCatalogWriter } from '../src/search/factory.js';
import { grantsOnly, RejectionLog, validRecords } from './pipeline.js';
import { openSource, readSource } from './source.js';

export const EXIT = { ok: 0, rejected: 1, usage: 2, failed: 3 } as const;

const HELP: Record<string, string> = {
  main: `Usage: grants-indexer <command> [options]

Commands:
  reindex --source <file|->   build a new catalog from the source and swap it in atomically
  sync --source <file|->      upsert new and changed grants into the live catalog
  status                      show the live catalog
  rollback                    (elasticsearch) point the alias back at the previous index

Run "grants-indexer <command> --help" for a command's options.
The engine and its location come from the environment (SEARCH_ENGINE, DATA_DIR,
ELASTICSEARCH_URL, ELASTICSEARCH_INDEX) or from --engine and --data-dir.

Exit codes: 0 done; 1 records were rejected and nothing was changed; 2 bad usage;
3 the run failed (source unreadable, nothing arrived, engine error) and nothing was changed.`,
  reindex: `Usage: grants-indexer reindex --source <file|-> [--skip-invalid] [--keep N] [--engine sqlite|elasticsearch] [--data-dir DIR]

Reads NDJSON or a JSON array (- for stdin) as a stream, validates every record against the
Grant schema and replaces the catalog atomically: readers see the old catalog until the new
one is complete. Each rejected record is reported on stderr (record number, id, field, reason).
Without --skip-invalid any rejection leaves the catalog unchanged and exits 1; with it, the
valid records are indexed. A source with no valid record never replaces the catalog (exit 3).
On Elasticsearch the records go into a new timestamped index (no replicas, no refresh while
loading), the alias is swapped in one atomic call, and older indexes are deleted except the
--keep N newest before the live one (default 1), kept for "grants-indexer rollback". Any
document Elasticsearch refuses is reported and the alias is not swapped.`,
  sync: `Usage: grants-indexer sync --source <file|-> [--prune] [--skip-invalid] [--engine ...] [--data-dir DIR]

Upserts by id: a grant not in the catalog is added; one whose updatedAt differs from the
catalog's is updated; the rest are unchanged. With --prune, grants missing from the source are
deleted (rejected records keep their grant). Prints the counts of added, updated, unchanged,
deleted and rejected. On the embedded engine the whole sync is one transaction. Without
--skip-invalid any rejection leaves the catalog unchanged and exits 1 (on Elasticsearch a
file source is validated in a first pass for that; from stdin, use --skip-invalid).`,
  status: `Usage: grants-indexer status [--engine ...] [--data-dir DIR]

Prints the live catalog: engine, location, number of grants, last reindex; on
Elasticsearch the alias, its index, its document count and the indexes kept.`,
  rollback: `Usage: grants-indexer rollback [--engine elasticsearch]

Elasticsearch only: points the alias back at the newest index older than the live one
(kept by reindex --keep). The embedded engine keeps no previous catalog.`,
};

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const stdio: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

class UsageError extends Error {}

function configFor(values: { engine?: string; 'data-dir'?: string }, env: NodeJS.ProcessEnv): Config {
  const overrides: NodeJS.ProcessEnv = { ...env };
  if (values.engine !== undefined) {
    if (!(SEARCH_ENGINES as readonly string[]).includes(values.engine)) {
      throw new UsageError(`--engine must be one of ${SEARCH_ENGINES.join(', ')}`);
    }
    overrides.SEARCH_ENGINE = values.engine;
  }
  if (values['data-dir'] !== undefined) overrides.DATA_DIR = values['data-dir'];
  return loadConfig(overrides);
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

export async function runIndexer(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = stdio): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP.main);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (!Object.hasOwn(HELP, command) || command === 'main') {
    io.err(`grants-indexer: unknown command "${command}"\n\n${HELP.main}`);
    return EXIT.usage;
  }
  let writer: CatalogWriter | undefined;
  try {
    const { values } = parseArgs({
      args: rest,
      options: {
        source: { type: 'string' },
        'skip-invalid': { type: 'boolean', default: false },
        prune: { type: 'boolean', default: false },
        keep: { type: 'string' },
        engine: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      io.out(HELP[command]);
      return EXIT.ok;
    }
    const config = configFor(values, env);
    const rejections = new RejectionLog(io.err);
    const gate = () => {
      if (rejections.count > 0 && !values['skip-invalid']) {
        throw new RejectedError(rejections.count);
      }
    };
    const keep = values.keep === undefined ? undefined : Number(values.keep);
    if (keep !== undefined && !(Number.isInteger(keep) && keep >= 0 && keep <= 20 && /^\d+$/.test(values.keep ?? ''))) {
      throw new UsageError('--keep must be an integer from 0 to 20');
    }
    writer = await createCatalogWriter(config, { onDuplicate: (g) => rejections.duplicate(g), beforeCommit: gate }, { keep });

    if (command === 'status') {
      io.out(JSON.stringify(await writer.status(), null, 2));
      return EXIT.ok;
    }
    if (command === 'rollback') {
      if (writer.rollback === undefined) throw new UsageError(`the ${config.searchEngine} engine keeps no previous catalog to roll back to`);
      const { from, to } = await writer.rollback();
      io.out(`rollback: the alias now points at ${to} (was ${from})`);
      return EXIT.ok;
    }
    if (values.source === undefined) throw new UsageError(`${command} needs --source <file|->`);
    if (command === 'reindex' && values.prune) throw new UsageError('--prune applies to sync only');
    if (command === 'sync' && config.searchEngine === 'elasticsearch' && !values['skip-invalid'] && values.source !== '-') {
      // Elasticsearch has no transaction: find rejections (duplicates included) before changing anything.
      const ids = new Set<string>();
      for await (const item of validRecords(readSource(openSource(values.source)), rejections)) {
        if (!('grant' in item)) continue;
        if (ids.has(item.grant.id)) rejections.duplicate(item.grant);
        else ids.add(item.grant.id);
      }
      gate();
    }
    const items = validRecords(readSource(openSource(values.source)), rejections);
    if (command === 'reindex') {
      const { indexed } = await writer.reindex(grantsOnly(items), { onProgress: progress(io, 'indexed') });
      io.out(`reindex: indexed ${indexed}, rejected ${rejections.count}; the new catalog is live`);
    } else {
      const c = await writer.sync(items, { prune: values.prune ?? false });
      io.out(`sync: added ${c.added}, updated ${c.updated}, unchanged ${c.unchanged}, deleted ${c.deleted}, rejected ${rejections.count}`);
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof RejectedError) {
      io.err(`grants-indexer: ${error.message}`);
      return EXIT.rejected;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`grants-indexer: ${(error as Error).message}\n\n${HELP[command]}`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      io.err(`grants-indexer: ${error.message}`);
      return EXIT.usage;
    }
    io.err(`grants-indexer: ${command} failed: ${(error as Error).message}`);
    return EXIT.failed;
  } finally {
    await writer?.close();
  }
}

export class RejectedError extends Error {
  constructor(count: number) {
    super(`${count} record(s) rejected; nothing was changed (use --skip-invalid to index the valid ones)`);
  }
}
