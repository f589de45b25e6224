// GET /grants/changes: one page, or following the feed to its end (tombstones included).
import type { ApiClient } from './api.js';
import { unwrap } from './errors.js';
import type { ChangeEntry, ChangesQuery, GrantChangesAnswer } from './types.js';

export interface SyncResult {
  /** The position to keep and pass as `since` next time (pagination.nextSince of the last page). */
  nextSince: string;
  /** How many entries were handed to onChange. */
  changes: number;
}

export interface ChangesApi {
  /** One page of the feed after `since` ('0' for the whole catalog). */
  list(query?: ChangesQuery): Promise<GrantChangesAnswer>;
  /**
   * Reads the feed after `since` until `hasMore` is false, handing each entry to `onChange` in
   * order (awaited): a grant at its latest change, or a tombstone (`deleted: true`, `grant: null`)
   * to remove. Returns the position to keep. If onChange throws, sync stops and rethrows: sync
   * again from the position you kept (entries carry latest states, so replaying them is safe).
   * A position older than the tombstones kept is a GrantsApiError with code SYNC_EXPIRED: start
   * again from '0'.
   */
  sync(
    since: string,
    onChange: (entry: ChangeEntry) => void | Promise<void>,
    options?: { limit?: number },
  ): Promise<SyncResult>;
}

export function changesApi(api: ApiClient): ChangesApi {
  const list = (query: ChangesQuery = {}): Promise<GrantChangesAnswer> =>
    unwrap(api.GET('/grants/changes', { params: { query } })) as Promise<GrantChangesAnswer>;
  return {
    list,
    async sync(since, onChange, options = {}) {
      let position = since;
      let changes = 0;
      for (;;) {
        const page = await list({ since: position, ...(options.limit === undefined ? {} : { limit: options.limit }) });
        for (const entry of page.data) {
          await onChange(entry);
          changes += 1;
        }
        position = page.pagination.nextSince;
        if (!page.pagination.hasMore) return { nextSince: position, changes };
      }
    },
  };
}
