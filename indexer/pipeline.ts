// The ingestion pipeline: source → validated grants → an engine's CatalogWriter, with the guards
// every run obeys whatever the engine (empty source, nothing indexed, prune-all, shrink, rejections).
// The API's start-up seeding and grants-indexer both run through here.
import type {
  CatalogWriter,
  PendingChange,
  ReindexOptions,
  SyncCounts,
  SyncItem,
  WriterHooks,
} from '../src/search/engine.js';
import { openSource, readSource, type SourceRecord } from './source.js';
import { utf8Text } from './formats/bytes.js';
import { grantsOnly, RejectionLog, validRecords, type RejectSink } from './validation.js';

/** Why a run changed nothing; `kind` says which guard refused it. */
export class IngestionRefused extends Error {
  constructor(
    readonly kind: 'rejected' | 'nothing-indexed' | 'empty-source' | 'shrink',
    message: string,
  ) {
    super(message);
  }
}

export interface IngestionOptions {
  /** The file to read, or "-" for stdin. */
  source: string;
  /** Index the valid records even when some were rejected (otherwise any rejection abandons the run). */
  skipInvalid?: boolean;
  /** Let a run leave the live catalog with less than half of its grants. */
  allowShrink?: boolean;
  /** Where each rejected record is reported, one line each. */
  report: (line: string) => void;
  /** The source's records, read from the start at each call (default: `source` as NDJSON or a JSON array). */
  records?: () => AsyncIterable<SourceRecord>;
  /** Where each rejected record also goes (the rejects file of --skip-invalid). */
  rejects?: RejectSink;
}

/** The records of a run: its importer's, or the source read as NDJSON or a JSON array. */
const recordsOf = (options: IngestionOptions): AsyncIterable<SourceRecord> =>
  options.records?.() ??
  readSource(utf8Text(openSource(options.source), options.source === '-' ? 'standard input' : options.source));

/** Opens the engine's writer with the hooks the pipeline needs. */
export type OpenWriter = (hooks: WriterHooks) => Promise<CatalogWriter>;

const percent = (part: number, whole: number): string => `${Math.round((part / whole) * 100)} %`;

const rejectedRun = (count: number) =>
  new IngestionRefused(
    'rejected',
    `${count} record(s) rejected; nothing was changed (use --skip-invalid to index the valid ones)`,
  );

interface RunFacts {
  kind: 'reindex' | 'sync';
  /** A sync --prune whose source held no record at all. */
  pruneFromEmptySource: boolean;
  rejected: number;
  skipInvalid: boolean;
  allowShrink: boolean;
}

/** The guards, checked once before a change becomes visible, in this order. */
function guard(change: PendingChange, run: RunFacts): void {
  if (run.kind === 'reindex' && change.after === 0) {
    throw new IngestionRefused('nothing-indexed', 'no valid record arrived; the live catalog was left as it was');
  }
  if (run.pruneFromEmptySource) {
    throw new IngestionRefused('empty-source', 'the source held no record; refusing to prune the whole catalog');
  }
  if (run.rejected > 0 && !run.skipInvalid) {
    throw rejectedRun(run.rejected);
  }
  if (!run.allowShrink && change.live > 0 && change.after * 2 < change.live) {
    const lost = change.live - change.after;
    throw new IngestionRefused(
      'shrink',
      `this ${run.kind} would shrink the live catalog from ${change.live} to ${change.after} grants ` +
        `(${lost} fewer, −${percent(lost, change.live)}); ` +
        'nothing was changed (use --allow-shrink if that is intended)',
    );
  }
}

/** Counts the items that pass. */
function counted<T>(items: AsyncIterable<T>, tally: { seen: number }): AsyncGenerator<T> {
  return (async function* count() {
    for await (const item of items) {
      tally.seen += 1;
      yield item;
    }
  })();
}

/** Replaces the whole catalog with the source's valid grants, atomically. */
export async function reindexFromSource(
  openWriter: OpenWriter,
  options: IngestionOptions,
  progress: ReindexOptions = {},
): Promise<{ indexed: number; rejected: number }> {
  const rejections = new RejectionLog(options.report, options.rejects);
  const writer = await openWriter({
    onDuplicate: (grant) => rejections.duplicate(grant),
    beforeCommit: (change) =>
      guard(change, {
        kind: 'reindex',
        pruneFromEmptySource: false,
        rejected: rejections.count,
        skipInvalid: options.skipInvalid ?? false,
        allowShrink: options.allowShrink ?? false,
      }),
  });
  try {
    const { indexed } = await writer.reindex(grantsOnly(validRecords(recordsOf(options), rejections)), progress);
    return { indexed, rejected: rejections.count };
  } finally {
    await writer.close();
  }
}

interface SyncOptions extends IngestionOptions {
  prune: boolean;
  /**
   * Read a file source once to find every rejection before changing anything: for an engine
   * without transactions, so that a rejected run (without --skip-invalid) changes nothing.
   */
  validateFirst?: boolean;
}

/** Upserts the source's changed grants into the live catalog and, with prune, deletes those missing. */
export async function syncFromSource(
  openWriter: OpenWriter,
  options: SyncOptions,
): Promise<SyncCounts & { rejected: number }> {
  const rejections = new RejectionLog(options.report, options.rejects);
  const skipInvalid = options.skipInvalid ?? false;
  if (options.validateFirst && !skipInvalid && options.source !== '-') {
    const ids = new Set<string>();
    for await (const item of validRecords(recordsOf(options), rejections)) {
      if (!('grant' in item)) continue;
      if (ids.has(item.grant.id)) rejections.duplicate(item.grant);
      else ids.add(item.grant.id);
    }
    if (rejections.count > 0) throw rejectedRun(rejections.count);
  }
  const tally = { seen: 0 };
  const writer = await openWriter({
    onDuplicate: (grant) => rejections.duplicate(grant),
    beforeCommit: (change) =>
      guard(change, {
        kind: 'sync',
        pruneFromEmptySource: options.prune && tally.seen === 0,
        rejected: rejections.count,
        skipInvalid,
        allowShrink: options.allowShrink ?? false,
      }),
  });
  try {
    const items: AsyncIterable<SyncItem> = counted(validRecords(recordsOf(options), rejections), tally);
    const counts = await writer.sync(items, { prune: options.prune });
    return { ...counts, rejected: rejections.count };
  } finally {
    await writer.close();
  }
}
