// Which grant a CommonGrants opportunity UUID names. The UUID is derived from the grant's id
// (grants/commonGrants.ts) and cannot be turned back: the map from UUID to id is built from the
// catalog (one pass over every id), kept, and built again when a UUID is not in it and the last
// build is older than REBUILD_AFTER_MS (one build at a time; callers share it). A grant added by a
// sync so resolves by its UUID at the latest REBUILD_AFTER_MS after it is served; a grant removed
// stays in the map until the next build, but the caller reads the grant by its id and finds none.
import { opportunityUuid } from '../grants/commonGrants.js';
import type { GrantQuery } from '../grants/query.js';
import type { SearchEngine } from './engine.js';

/** The least time between two builds of the map. */
const REBUILD_AFTER_MS = 10_000;

/** The id at the start of a grant's served JSON (the wire order puts it first). */
const LEADING_ID = /^\{"id":("[^"\\]*")/;

export class OpportunityIds {
  private byUuid = new Map<string, string>();
  private builtAt = Number.NEGATIVE_INFINITY;
  private building: Promise<void> | null = null;

  /** `everything`: a query matching every grant (its order does not matter). */
  constructor(
    private readonly engine: Pick<SearchEngine, 'exportJson'>,
    private readonly everything: () => GrantQuery,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The id of the grant whose opportunity UUID is `uuid` (lower case), or null when no grant of the catalog has it. */
  async grantIdOf(uuid: string): Promise<string | null> {
    const known = this.byUuid.get(uuid);
    if (known !== undefined) return known;
    if (this.clock() - this.builtAt >= REBUILD_AFTER_MS) await this.build();
    return this.byUuid.get(uuid) ?? null;
  }

  private build(): Promise<void> {
    this.building ??= this.readCatalog().finally(() => {
      this.building = null;
    });
    return this.building;
  }

  private async readCatalog(): Promise<void> {
    const startedAt = this.clock();
    const exported = await this.engine.exportJson(this.everything());
    const byUuid = new Map<string, string>();
    try {
      for await (const batch of exported.batches) {
        for (const json of batch) {
          const quoted = LEADING_ID.exec(json)?.[1];
          const id = quoted === undefined ? (JSON.parse(json) as { id: string }).id : (JSON.parse(quoted) as string);
          byUuid.set(opportunityUuid(id), id);
        }
      }
    } finally {
      await exported.close();
    }
    this.byUuid = byUuid;
    this.builtAt = startedAt;
  }
}
