// ElasticsearchCatalogWriter: reindex into a new timestamped index and swap the alias in one
// atomic _aliases call; sync through the alias; rollback to the previous index; status.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client } from '@elastic/elasticsearch';
import type { estypes } from '@elastic/elasticsearch';
import { titleSortKey } from '../../grants/folding.js';
import { labelText } from '../../grants/labels.js';
import { GRANT_FIELDS, type Grant } from '../../grants/schema.js';
import { repoPath } from '../../repoRoot.js';
import {
  DEFAULT_CHANGE_LOG_OPTIONS,
  type CatalogWriter,
  type ChangeLogOptions,
  type ReindexOptions,
  type SyncCounts,
  type SyncItem,
  type WriterHooks,
} from '../engine.js';
import { contentHash, ElasticsearchChangeLog } from './changeLog.js';
import { createEsClient, type EsConfig } from './client.js';
import { idKeysOf, type IdKeys } from './idKeys.js';
import { TITLE_SORT_FIELD } from './translator.js';

const MAPPING = JSON.parse(readFileSync(repoPath('mappings/elasticsearch-grants.json'), 'utf8')) as {
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
};

const SYNC_BATCH = 500;

/** How long the merge of a new index into one segment may take (about a minute per million grants). */
const FORCE_MERGE_TIMEOUT_MS = 30 * 60_000;

/**
 * Lucene refuses a term above 32,766 UTF-8 bytes: the sort key keeps its first 8,000 code points
 * (≤ 32,000 bytes). Only a folded title longer than that (a 500-character title of characters
 * that each fold to many) is cut, and it orders as its first 8,000 folded code points.
 */
const MAX_SORT_KEY_CODE_POINTS = 8000;

/**
 * The document indexed for a grant: the grant, plus the fields computed from it — its labels
 * (grants/labels.ts, searched as the lowest-weighted text), the title sort key (titleSortKey,
 * computed here so that both engines order titles alike) and the id spelled as numbers
 * (idKeys.ts). The mapping keeps them out of _source, so the stored and served document is the
 * grant, byte for byte.
 */
export function indexedDocument(grant: Grant): Grant & { labels: string; [TITLE_SORT_FIELD]: string } & IdKeys {
  let key = titleSortKey(grant.title);
  if (key.length > MAX_SORT_KEY_CODE_POINTS) key = Array.from(key).slice(0, MAX_SORT_KEY_CODE_POINTS).join('');
  return { ...grant, labels: labelText(grant), [TITLE_SORT_FIELD]: key, ...idKeysOf(grant.id) };
}

/**
 * The document for an index whose (strict) mapping has only the fields in `mapped`: an index
 * built by an earlier release lacks some computed fields, and refuses a document holding them.
 */
function documentFor(mapped: ReadonlySet<string>): (grant: Grant) => Record<string, unknown> {
  return (grant) =>
    Object.fromEntries(Object.entries(indexedDocument(grant)).filter(([field]) => field in grant || mapped.has(field)));
}

interface EsWriterOptions {
  /** Previous indexes kept after a swap, for rollback. */
  keep: number;
  replicas: number;
  /** The change log's retention and clock (the feed's tombstones). */
  changes?: ChangeLogOptions;
}

class DroppedDocumentsError extends Error {}

export class ElasticsearchCatalogWriter implements CatalogWriter {
  private readonly ownIndex: RegExp;

  constructor(
    private readonly client: Client,
    private readonly alias: string,
    private readonly hooks: WriterHooks = {},
    private readonly options: EsWriterOptions = { keep: 1, replicas: 0 },
    private readonly report: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  ) {
    this.ownIndex = new RegExp(`^${alias.replace(/[-]/g, '\\-')}-\\d{8}t\\d{9}-[0-9a-f]{4}$`);
  }

  static open(config: EsConfig, hooks: WriterHooks = {}, options?: EsWriterOptions): ElasticsearchCatalogWriter {
    // The indexer may wait longer than a partner request, and retries transient failures.
    return new ElasticsearchCatalogWriter(
      createEsClient(config, { requestTimeoutMs: 120_000, maxRetries: 3 }),
      config.index,
      hooks,
      options,
    );
  }

  /** The change log for one run (its entries carry the run's time). */
  private async openChangeLog(): Promise<{ log: ElasticsearchChangeLog; fresh: boolean }> {
    const log = new ElasticsearchChangeLog(
      this.client,
      this.alias,
      this.options.changes ?? DEFAULT_CHANGE_LOG_OPTIONS,
      this.options.replicas,
    );
    const { fresh } = await log.open();
    return { log, fresh };
  }

  private newIndexName(): string {
    const stamp = new Date().toISOString().replace(/[-:.]/g, '').replace('Z', '').toLowerCase();
    return `${this.alias}-${stamp}-${randomBytes(2).toString('hex')}`;
  }

  /** Indexes the alias points to. */
  private async aliasTargets(): Promise<string[]> {
    try {
      return Object.keys(await this.client.indices.getAlias({ name: this.alias }));
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return [];
      throw error;
    }
  }

  /** This alias's own indexes, newest first. */
  private async ownIndexes(): Promise<string[]> {
    const all = await this.client.cat.indices({ index: `${this.alias}-*`, format: 'json', h: 'index' } as never);
    return (all as unknown as { index: string }[])
      .map((row) => row.index)
      .filter((name) => this.ownIndex.test(name))
      .sort()
      .reverse();
  }

  private async swapAlias(to: string): Promise<void> {
    const from = await this.aliasTargets();
    // An alias also "exists" as an index name: only a name without alias targets can be a concrete index.
    if (from.length === 0 && (await this.client.indices.exists({ index: this.alias }))) {
      throw new Error(`"${this.alias}" is a concrete index, not an alias; remove it before the first reindex`);
    }
    await this.client.indices.updateAliases({
      actions: [
        ...from.map((index) => ({ remove: { index, alias: this.alias } })),
        { add: { index: to, alias: this.alias } },
      ],
    });
  }

  async reindex(grants: AsyncIterable<Grant>, options: ReindexOptions = {}): Promise<{ indexed: number }> {
    const index = this.newIndexName();
    await this.client.indices.create({
      index,
      settings: { ...MAPPING.settings, number_of_replicas: 0, refresh_interval: '-1' },
      mappings: MAPPING.mappings,
    } as never);
    let dropped = 0;
    // Documents sent and not yet acknowledged, by id, in the order sent (a duplicate id has
    // several): the helper hands back copies on a drop, and the duplicate report needs the
    // original (it carries the source record number). Acknowledgements come in the same order.
    const inFlight = new Map<string, Grant[]>();
    const settle = (id: string): Grant | undefined => {
      const queue = inFlight.get(id);
      const first = queue?.shift();
      if (queue?.length === 0) inFlight.delete(id);
      return first;
    };
    try {
      let seen = 0;
      const stats = await this.client.helpers.bulk<Grant>({
        datasource: (async function* counted() {
          for await (const grant of grants) {
            seen += 1;
            if (seen % 5000 === 0) options.onProgress?.(seen);
            yield grant;
          }
        })(),
        // `create` refuses a second document with the same id: a duplicate in the source.
        onDocument: (grant) => {
          const queue = inFlight.get(grant.id);
          if (queue === undefined) inFlight.set(grant.id, [grant]);
          else queue.push(grant);
          return [{ create: { _index: index, _id: grant.id } }, indexedDocument(grant)];
        },
        onSuccess: ({ result, document }) => {
          const id =
            (document as Grant | undefined)?.id ??
            (result as { _id?: string })._id ??
            Object.values(result as object)[0]?._id;
          if (id !== undefined) settle(id);
        },
        onDrop: (drop) => {
          const copy = drop.document as Grant;
          const grant = settle(copy.id) ?? copy;
          if (drop.status === 409) {
            this.hooks.onDuplicate?.(grant);
            return;
          }
          dropped += 1;
          this.report(`dropped grant ${JSON.stringify(grant.id)}: ${drop.status} ${JSON.stringify(drop.error)}`);
        },
        flushBytes: 2_000_000,
        concurrency: 2,
        retries: 3,
        wait: 1000,
        refreshOnCompletion: false,
      });
      if (dropped > 0)
        throw new DroppedDocumentsError(`${dropped} document(s) failed to index; the alias was not swapped`);
      const indexed = stats.successful;
      options.onProgress?.(indexed);
      const current = (await this.aliasTargets())[0];
      this.hooks.beforeCommit?.({
        live: current === undefined ? 0 : (await this.client.count({ index: current })).count,
        after: indexed,
      });
      // One segment before it goes live (and before replicas copy it): a search then walks one
      // index of the catalog instead of several, and a deep page collects its hits once.
      await this.client.indices.forcemerge(
        { index, max_num_segments: 1 },
        { requestTimeout: FORCE_MERGE_TIMEOUT_MS, maxRetries: 0 },
      );
      await this.client.indices.putSettings({
        index,
        settings: { number_of_replicas: this.options.replicas, refresh_interval: null },
      } as never);
      await this.client.indices.refresh({ index });
      await this.client.cluster.health({ index, wait_for_status: 'yellow', timeout: '60s' });
      const { count } = await this.client.count({ index });
      if (count !== indexed)
        throw new Error(`the new index holds ${count} documents, ${indexed} were sent; the alias was not swapped`);
      await this.stamp(index, 'lastReindexAt');
      // The feed learns of the new catalog before it goes live: a run that fails after this point
      // leaves entries a rerun records again, never a change the feed misses.
      const { log } = await this.openChangeLog();
      await log.reconcile(index);
      await this.swapAlias(index);
      await log.finish();
      await this.pruneOldIndexes(index);
      return { indexed };
    } catch (error) {
      await this.client.indices.delete({ index, ignore_unavailable: true }).catch(() => {});
      throw error;
    }
  }

  /**
   * Deletes the indexes left by failed runs (a process killed mid-load leaves its index: it never
   * got the lastReindexAt stamp an index receives just before it goes live), then this alias's
   * indexes beyond the live one and the `keep` newest before it. Only indexes started before the
   * live one count as abandoned, so a run started later is left alone.
   */
  private async pruneOldIndexes(live: string): Promise<void> {
    for (const name of await this.ownIndexes()) {
      if (name < live && (await this.times(name)).lastReindexAt === undefined) {
        await this.client.indices.delete({ index: name, ignore_unavailable: true });
        this.report(`deleted ${name}, left behind by a reindex that did not finish`);
      }
    }
    const older = (await this.ownIndexes()).filter((name) => name !== live);
    for (const name of older.slice(this.options.keep)) await this.client.indices.delete({ index: name });
  }

  /** Points the alias back at the newest index older than the live one. */
  async rollback(): Promise<{ from: string; to: string }> {
    const live = (await this.aliasTargets())[0];
    if (live === undefined) throw new Error(`alias "${this.alias}" does not exist; nothing to roll back`);
    const previous = (await this.ownIndexes()).find((name) => name < live);
    if (previous === undefined) throw new Error(`no index older than ${live} was kept; nothing to roll back to`);
    // A rollback is itself a change: the grants it brings back differ from the live ones.
    const { log } = await this.openChangeLog();
    await log.reconcile(previous);
    await this.swapAlias(previous);
    await log.finish();
    return { from: live, to: previous };
  }

  /** The fields the index's mapping has. */
  private async mappedFields(index: string): Promise<Set<string>> {
    const mappings = await this.client.indices.getMapping({ index });
    return new Set(Object.values(mappings).flatMap((m) => Object.keys(m.mappings.properties ?? {})));
  }

  /**
   * The fields of the index's mapping, after adding the grant fields it lacks (an index built by
   * an earlier release, before grants had `opensAt`): a new field can join a live mapping, and a
   * sync must not drop a grant's own data. Computed fields stay as they are (a reindex adds them).
   */
  private async mappedGrantFields(index: string): Promise<Set<string>> {
    const mapped = await this.mappedFields(index);
    const properties = (MAPPING.mappings as { properties: Record<string, unknown> }).properties;
    const missing = GRANT_FIELDS.filter((field) => !mapped.has(field));
    if (missing.length === 0) return mapped;
    await this.client.indices.putMapping({
      index,
      properties: Object.fromEntries(missing.map((field) => [field, properties[field]])) as Record<
        string,
        estypes.MappingProperty
      >,
    });
    return new Set([...mapped, ...missing]);
  }

  async sync(items: AsyncIterable<SyncItem>, options: { prune: boolean }): Promise<SyncCounts> {
    const live = (await this.aliasTargets())[0];
    if (live === undefined) throw new Error(`alias "${this.alias}" does not exist; run reindex first`);
    // An index built before some computed field (the title sort key, the id keys) takes the grant without it.
    const document = documentFor(await this.mappedGrantFields(live));
    const changeLog = await this.openChangeLog();
    // A catalog indexed before the change log existed enters it once, as it stands.
    if (changeLog.fresh) await changeLog.log.reconcile(live, { versions: false });
    const counts: SyncCounts = { added: 0, updated: 0, unchanged: 0, deleted: 0 };
    /** Ids seen in the source: true once a valid record had it, false if only rejected ones did. */
    const seenIds = new Map<string, boolean>();
    let batch: Grant[] = [];
    let dropped = 0;

    const flush = async () => {
      if (batch.length === 0) return;
      const current = await this.client.mget<{ updatedAt: string }>({
        index: live,
        ids: batch.map((g) => g.id),
        _source_includes: ['updatedAt'],
      });
      const changed: Grant[] = [];
      batch.forEach((grant, i) => {
        const doc = current.docs[i] as { found?: boolean; _source?: { updatedAt: string } };
        if (!doc.found) {
          counts.added += 1;
          changed.push(grant);
        } else if (doc._source?.updatedAt !== grant.updatedAt) {
          counts.updated += 1;
          changed.push(grant);
        } else {
          counts.unchanged += 1;
        }
      });
      batch = [];
      if (changed.length === 0) return;
      // Recorded before it is applied: a failure between the two leaves a change a rerun applies and records again.
      await changeLog.log.record(
        changed.map((grant) => ({ id: grant.id, grant, hash: contentHash(JSON.stringify(grant)) })),
      );
      const result = await this.client.bulk({
        operations: changed.flatMap((g) => [{ index: { _index: live, _id: g.id } }, document(g)]),
      });
      if (result.errors) {
        for (const item of result.items) {
          const op = item.index;
          if (op?.error) {
            dropped += 1;
            this.report(`dropped grant ${JSON.stringify(op._id)}: ${op.status} ${JSON.stringify(op.error)}`);
          }
        }
      }
    };

    for await (const item of items) {
      if (!('grant' in item)) {
        if (item.rejectedId !== null && !seenIds.has(item.rejectedId)) seenIds.set(item.rejectedId, false);
        continue;
      }
      if (seenIds.get(item.grant.id) === true) {
        this.hooks.onDuplicate?.(item.grant);
        continue;
      }
      seenIds.set(item.grant.id, true);
      batch.push(item.grant);
      if (batch.length >= SYNC_BATCH) await flush();
    }
    await flush();
    await this.client.indices.refresh({ index: live });
    const gone: string[] = [];
    if (options.prune) {
      let after: unknown[] | undefined;
      for (;;) {
        const page = await this.client.search({
          index: live,
          size: 5000,
          _source: false,
          sort: [{ id: 'asc' }],
          search_after: after,
        } as never);
        const hits = page.hits.hits;
        for (const hit of hits) if (!seenIds.has(hit._id as string)) gone.push(hit._id as string);
        if (hits.length < 5000) break;
        after = hits[hits.length - 1].sort as unknown[];
      }
    }
    const now = (await this.client.count({ index: live })).count;
    // No transaction here: the upserts are in, and a refusal stops before any deletion.
    this.hooks.beforeCommit?.({ live: now - counts.added, after: now - gone.length });
    await changeLog.log.record(gone.map((id) => ({ id, grant: null })));
    for (let i = 0; i < gone.length; i += SYNC_BATCH) {
      await this.client.bulk({
        operations: gone.slice(i, i + SYNC_BATCH).map((id) => ({ delete: { _index: live, _id: id } })),
      });
    }
    counts.deleted = gone.length;
    await this.client.indices.refresh({ index: live });
    await changeLog.log.finish();
    if (dropped > 0) throw new DroppedDocumentsError(`${dropped} document(s) failed to index during sync`);
    await this.stamp(live, 'lastSyncAt');
    return counts;
  }

  /** The times of the last reindex and sync, kept in the index mapping's _meta. */
  private async times(index: string): Promise<Record<string, string>> {
    const mapping = await this.client.indices.getMapping({ index });
    return ((mapping[index]?.mappings as { _meta?: Record<string, string> } | undefined)?._meta ?? {}) as Record<
      string,
      string
    >;
  }

  private async stamp(index: string, key: 'lastReindexAt' | 'lastSyncAt'): Promise<void> {
    // _meta is replaced whole by a mapping update: keep what it held.
    await this.client.indices.putMapping({
      index,
      _meta: { ...(await this.times(index)), [key]: new Date().toISOString() },
    });
  }

  async status(): Promise<Record<string, unknown>> {
    const live = (await this.aliasTargets())[0] ?? null;
    const indexes = await this.ownIndexes();
    const times = live === null ? {} : await this.times(live);
    const stats = live === null ? null : await this.client.indices.stats({ index: live, metric: 'store' });
    return {
      engine: 'elasticsearch',
      alias: this.alias,
      index: live,
      grants: live === null ? 0 : (await this.client.count({ index: live })).count,
      kept: indexes.filter((name) => name !== live),
      lastReindexAt: times.lastReindexAt ?? null,
      lastSyncAt: times.lastSyncAt ?? null,
      bytes: stats?._all.primaries?.store?.size_in_bytes ?? 0,
      changes: await new ElasticsearchChangeLog(
        this.client,
        this.alias,
        DEFAULT_CHANGE_LOG_OPTIONS,
        this.options.replicas,
      ).status(),
    };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
