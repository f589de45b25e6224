// The Elasticsearch change log: one unswapped index beside the alias, `<alias>_changes`, holding
// one document per grant id (its last change: sequence, time, content hash and the grant itself,
// or a tombstone) and one state document (log id, counter, horizon). It survives every alias swap;
// a feed page is one search of this one-shard index, so entries and grants come from one snapshot.
// Each change that adds, updates or removes a grant also records a version of it in a second
// unswapped index, `<alias>_history` (one document per grant and sequence), read newest first.
import { createHash } from 'node:crypto';
import { errors, type Client } from '@elastic/elasticsearch';
import {
  versionOf,
  type FieldChange,
  type GrantVersion,
  type HistoryPage,
  type VersionType,
} from '../../grants/history.js';
import type { Grant } from '../../grants/schema.js';
import { newChangeLogId, type ChangeEntryJson, type ChangeLogState, type ChangesPage } from '../changes.js';
import type { ChangeLogOptions } from '../engine.js';

/**
 * The change log index of an alias: outside the `<alias>-*` names of the swapped indexes, so
 * nothing that lists, keeps or deletes those ever touches it.
 */
export const changesIndexOf = (alias: string): string => `${alias}_changes`;

/** The history index of an alias: the versions of its grants, outside the swapped indexes' names too. */
const historyIndexOf = (alias: string): string => `${alias}_history`;

/**
 * Deletes every index a catalog under `alias` holds: its swapped indexes (`<alias>-*`), its change
 * log and its history (for a tool or test that made the catalog and is done with it).
 */
export async function dropCatalogIndexes(client: Client, alias: string): Promise<void> {
  await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true });
  await client.indices.delete({ index: [changesIndexOf(alias), historyIndexOf(alias)], ignore_unavailable: true });
}

/** The state document's id: no grant id starts with "~". */
const STATE_ID = '~state';
const PAGE = 1000;
const WRITE_BATCH = 500;

const MAPPING = {
  dynamic: 'strict',
  properties: {
    id: { type: 'keyword' },
    seq: { type: 'long' },
    deleted: { type: 'boolean' },
    changedAt: { type: 'date' },
    hash: { type: 'keyword', index: false, doc_values: false },
    grant: { type: 'object', enabled: false },
    changes: { type: 'object', enabled: false },
    log: { type: 'keyword' },
    counter: { type: 'long' },
    horizon: { type: 'long' },
  },
};

const HISTORY_MAPPING = {
  dynamic: 'strict',
  properties: {
    id: { type: 'keyword' },
    seq: { type: 'long' },
    changedAt: { type: 'date' },
    type: { type: 'keyword' },
    changes: { type: 'object', enabled: false },
  },
};

/** The content hash a grant is compared by: of its served JSON. */
export const contentHash = (json: string): string => createHash('sha256').update(json).digest('base64url').slice(0, 22);

interface StoredState {
  log: string;
  counter: number;
  horizon: number;
}

interface EntrySource {
  id: string;
  seq: number;
  deleted: boolean;
  changedAt: string;
  hash: string | null;
  grant: Grant | null;
  /** The fields the entry's change updated; null (or absent: an entry recorded before they were kept) otherwise. */
  changes?: FieldChange[] | null;
}

interface VersionSource {
  id: string;
  seq: number;
  changedAt: string;
  type: VersionType;
  changes: FieldChange[] | null;
}

/** A change to record: a grant at its new content, or a removal. */
type Change = { id: string; grant: Grant; hash: string } | { id: string; grant: null };

const isStatus = (error: unknown, status: number): boolean =>
  error instanceof errors.ResponseError && error.statusCode === status;

/** Reads a page of the feed (the API's side). */
export async function readChanges(
  client: Client,
  alias: string,
  afterSeq: number,
  limit: number,
): Promise<ChangesPage> {
  const index = changesIndexOf(alias);
  let state: ChangeLogState;
  try {
    const doc = await client.get<StoredState>({ index, id: STATE_ID });
    state = { log: doc._source!.log, counter: doc._source!.counter, horizon: doc._source!.horizon };
  } catch (error) {
    if (!isStatus(error, 404)) throw error;
    return { state: { log: null, counter: 0, horizon: 0 }, entries: [] };
  }
  const response = await client.search<EntrySource>({
    index,
    size: limit + 1,
    query: { range: { seq: { gt: afterSeq } } },
    sort: [{ seq: 'asc' }],
    _source: ['id', 'seq', 'deleted', 'changedAt', 'grant', 'changes'],
    track_total_hits: false,
  });
  const entries: ChangeEntryJson[] = response.hits.hits.map(({ _source: s }) => ({
    seq: s!.seq,
    id: s!.id,
    deleted: s!.deleted,
    changedAt: s!.changedAt,
    grantJson: s!.deleted ? null : JSON.stringify(s!.grant),
    changesJson: s!.changes === undefined || s!.changes === null ? null : JSON.stringify(s!.changes),
  }));
  return { state, entries };
}

/**
 * Reads a page of a grant's history, newest first (the API's side); `grantExists` says whether the catalog holds the
 * id.
 */
export async function readHistory(
  client: Client,
  alias: string,
  id: string,
  beforeSeq: number | null,
  limit: number,
  grantExists: () => Promise<boolean>,
): Promise<HistoryPage> {
  const page = async (before: number | null, size: number): Promise<GrantVersion[]> => {
    try {
      const response = await client.search<VersionSource>({
        index: historyIndexOf(alias),
        size,
        query: {
          bool: { filter: [{ term: { id } }, ...(before === null ? [] : [{ range: { seq: { lt: before } } }])] },
        },
        sort: [{ seq: 'desc' }],
        track_total_hits: false,
      });
      return response.hits.hits.map(({ _source: v }) => ({
        seq: v!.seq,
        changedAt: v!.changedAt,
        type: v!.type,
        changes: v!.changes ?? null,
      }));
    } catch (error) {
      // No history index yet: nothing was recorded.
      if (
        error instanceof errors.ResponseError &&
        JSON.stringify(error.body ?? '').includes('index_not_found_exception')
      )
        return [];
      throw error;
    }
  };
  const versions = await page(beforeSeq, limit + 1);
  // A grant whose versions are all past the cursor is still known: asked again from the newest.
  const known =
    versions.length > 0 || (await grantExists()) || (beforeSeq !== null && (await page(null, 1)).length > 0);
  return { known, versions };
}

/** The indexer's side: records changes with sequences from the state document's counter. */
export class ElasticsearchChangeLog {
  private readonly index: string;
  private readonly history: string;
  private readonly changedAt: string;

  constructor(
    private readonly client: Client,
    alias: string,
    private readonly options: ChangeLogOptions,
    private readonly replicas: number,
  ) {
    this.index = changesIndexOf(alias);
    this.history = historyIndexOf(alias);
    this.changedAt = options.clock().toISOString();
  }

  /** Creates an index unless it exists. */
  private async create(index: string, mappings: object): Promise<void> {
    try {
      await this.client.indices.create({
        index,
        settings: { number_of_shards: 1, number_of_replicas: this.replicas },
        mappings,
      } as never);
    } catch (error) {
      if (!(
        error instanceof errors.ResponseError &&
        JSON.stringify(error.body ?? '').includes('resource_already_exists_exception')
      ))
        throw error;
    }
  }

  /** Creates the indexes that are missing; true when the log has recorded nothing yet. */
  async open(): Promise<{ fresh: boolean }> {
    await this.create(this.index, MAPPING);
    // A log created before its entries carried their changes gains the field (a strict mapping refuses an unknown one).
    await this.client.indices.putMapping({
      index: this.index,
      properties: { changes: MAPPING.properties.changes },
    } as never);
    await this.create(this.history, HISTORY_MAPPING);
    return { fresh: (await this.readState()) === null };
  }

  private async readState(): Promise<{ state: StoredState; seqNo: number; primaryTerm: number } | null> {
    try {
      const doc = await this.client.get<StoredState>({ index: this.index, id: STATE_ID });
      return { state: doc._source!, seqNo: doc._seq_no!, primaryTerm: doc._primary_term! };
    } catch (error) {
      if (isStatus(error, 404)) return null;
      throw error;
    }
  }

  /** Changes the state document with optimistic concurrency (another indexer may be writing too). */
  private async updateState(change: (state: StoredState) => StoredState): Promise<StoredState> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.readState();
      const next = change(current?.state ?? { log: newChangeLogId(), counter: 0, horizon: 0 });
      try {
        if (current === null) await this.client.create({ index: this.index, id: STATE_ID, document: next });
        else
          await this.client.index({
            index: this.index,
            id: STATE_ID,
            document: next,
            if_seq_no: current.seqNo,
            if_primary_term: current.primaryTerm,
          });
        return next;
      } catch (error) {
        if (!isStatus(error, 409) || attempt >= 20) throw error;
      }
    }
  }

  /** The grants the log last recorded for these ids (null: none, or a tombstone), in the same order. */
  private async recorded(ids: string[]): Promise<(Grant | null)[]> {
    if (ids.length === 0) return [];
    const { docs } = await this.client.mget<EntrySource>({
      index: this.index,
      ids,
      _source_includes: ['deleted', 'grant'],
    });
    return docs.map((doc) => {
      const found = doc as { found?: boolean; _source?: EntrySource };
      return found.found === true && found._source?.deleted === false ? (found._source.grant ?? null) : null;
    });
  }

  /**
   * Records changes in order, each with the next sequence, and the version each makes of its grant
   * (against the grant the log last recorded); `versions: false` enters grants without versions
   * (a catalog indexed before the log existed, entering it as it stands).
   */
  async record(changes: readonly Change[], { versions = true } = {}): Promise<void> {
    for (let i = 0; i < changes.length; i += WRITE_BATCH) {
      const batch = changes.slice(i, i + WRITE_BATCH);
      const before = versions ? await this.recorded(batch.map((change) => change.id)) : [];
      const { counter, log } = await this.updateState((s) => ({ ...s, counter: s.counter + batch.length }));
      const first = counter - batch.length + 1;
      const operations = batch.flatMap((change, n) => {
        const seq = first + n;
        const version = versions ? versionOf(before[n], change.grant) : null;
        const source: EntrySource = {
          id: change.id,
          seq,
          deleted: change.grant === null,
          changedAt: this.changedAt,
          hash: change.grant === null ? null : change.hash,
          grant: change.grant,
          changes: version?.changes ?? null,
        };
        const entry = [{ index: { _index: this.index, _id: change.id } }, source];
        if (version === null) return entry;
        const kept: VersionSource = {
          id: change.id,
          seq,
          changedAt: this.changedAt,
          type: version.type,
          changes: version.changes,
        };
        return [...entry, { index: { _index: this.history, _id: `${log}:${seq}` } }, kept];
      });
      const result = await this.client.bulk({ operations });
      if (result.errors) {
        const failed = result.items.find((item) => item.index?.error)?.index;
        throw new Error(`the change log refused an entry: ${failed?.status} ${JSON.stringify(failed?.error)}`);
      }
    }
  }

  /** Every grant id the log holds as live, with its content hash. */
  private async liveHashes(): Promise<Map<string, string>> {
    const live = new Map<string, string>();
    let after: unknown[] | undefined;
    for (;;) {
      const page = await this.client.search<{ id: string; hash: string }>({
        index: this.index,
        size: PAGE,
        query: { bool: { filter: [{ term: { deleted: false } }] } },
        sort: [{ id: 'asc' }],
        _source: ['id', 'hash'],
        search_after: after,
        track_total_hits: false,
      } as never);
      const hits = page.hits.hits;
      for (const hit of hits) live.set(hit._source!.id, hit._source!.hash);
      if (hits.length < PAGE) return live;
      after = hits[hits.length - 1].sort as unknown[];
    }
  }

  /**
   * Makes the log describe `index` (a new index about to go live, or the one a rollback returns
   * to): grants added or changed by content get new sequences, grants the log holds that the index
   * lacks get tombstones, unchanged grants keep theirs.
   */
  async reconcile(catalogIndex: string, { versions = true } = {}): Promise<void> {
    await this.client.indices.refresh({ index: this.index });
    const known = await this.liveHashes();
    let after: unknown[] | undefined;
    for (;;) {
      const page = await this.client.search<Grant>({
        index: catalogIndex,
        size: PAGE,
        sort: [{ id: 'asc' }],
        search_after: after,
        track_total_hits: false,
      } as never);
      const hits = page.hits.hits;
      const changed: Change[] = [];
      for (const hit of hits) {
        const grant = hit._source!;
        const hash = contentHash(JSON.stringify(grant));
        if (known.get(grant.id) !== hash) changed.push({ id: grant.id, grant, hash });
        known.delete(grant.id);
      }
      await this.record(changed, { versions });
      if (hits.length < PAGE) break;
      after = hits[hits.length - 1].sort as unknown[];
    }
    await this.record(
      [...known.keys()].map((id) => ({ id, grant: null })),
      { versions },
    );
  }

  /** What `grants-indexer status` reports of the log (null before its first run). */
  async status(): Promise<{ index: string; counter: number; horizon: number; tombstones: number } | null> {
    const current = await this.readState();
    if (current === null) return null;
    const { count } = await this.client.count({ index: this.index, query: { term: { deleted: true } } });
    return { index: this.index, counter: current.state.counter, horizon: current.state.horizon, tombstones: count };
  }

  /** Drops the versions older than the history's retention, a page at a time (a search, then a bulk delete). */
  private async dropExpiredVersions(): Promise<void> {
    const cutoff = new Date(this.options.clock().getTime() - this.options.historyRetentionMs).toISOString();
    await this.client.indices.refresh({ index: this.history });
    for (;;) {
      const page = await this.client.search({
        index: this.history,
        size: PAGE,
        query: { range: { changedAt: { lt: cutoff } } },
        _source: false,
        track_total_hits: false,
      } as never);
      const hits = page.hits.hits;
      if (hits.length === 0) return;
      const result = await this.client.bulk({
        operations: hits.map((hit) => ({ delete: { _index: this.history, _id: hit._id! } })),
        refresh: true,
      });
      if (result.errors) throw new Error('the history could not drop an expired version');
      if (hits.length < PAGE) return;
    }
  }

  /**
   * Ends a run: drops the versions older than the history's retention and the tombstones older
   * than the feed's (raising the horizon past them), and makes the entries visible.
   */
  async finish(): Promise<void> {
    await this.dropExpiredVersions();
    const cutoff = new Date(this.options.clock().getTime() - this.options.retentionMs).toISOString();
    const expired = { bool: { filter: [{ term: { deleted: true } }, { range: { changedAt: { lt: cutoff } } }] } };
    await this.client.indices.refresh({ index: this.index });
    // Page by page, highest sequence first: the horizon is raised past a page before it is deleted.
    for (;;) {
      const page = await this.client.search<{ seq: number }>({
        index: this.index,
        size: PAGE,
        query: expired,
        sort: [{ seq: 'desc' }],
        _source: ['seq'],
        track_total_hits: false,
      } as never);
      const hits = page.hits.hits;
      if (hits.length === 0) break;
      const last = hits[0]._source!.seq;
      await this.updateState((s) => ({ ...s, horizon: Math.max(s.horizon, last) }));
      const result = await this.client.bulk({
        operations: hits.map((hit) => ({ delete: { _index: this.index, _id: hit._id! } })),
        refresh: true,
      });
      if (result.errors) throw new Error('the change log could not drop an expired tombstone');
      if (hits.length < PAGE) break;
    }
    await this.client.indices.refresh({ index: `${this.index},${this.history}` });
  }
}
