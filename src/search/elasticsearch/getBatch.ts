// GetBatch: the single-document reads asked for in one event-loop turn, fetched together (one
// _mget instead of one GET each). With several partners' requests in flight, Elasticsearch and
// the client pay their per-request cost once per turn rather than once per grant.

/** Fetches documents by id: for each id, in order, its JSON text, null when unknown, or the error of that one read. */
type FetchMany = (ids: string[]) => Promise<(string | null | Error)[]>;

interface Waiting {
  id: string;
  resolve: (json: string | null) => void;
  reject: (error: unknown) => void;
}

export class GetBatch {
  private waiting: Waiting[] = [];

  constructor(
    private readonly fetchMany: FetchMany,
    /** At most this many ids per fetch; more in one turn make several fetches. */
    private readonly maxBatch = 100,
  ) {}

  get(id: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ id, resolve, reject });
    });
  }

  private flush(): void {
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += this.maxBatch) {
      const batch = all.slice(i, i + this.maxBatch);
      this.fetchMany(batch.map((w) => w.id)).then(
        (found) =>
          batch.forEach((w, j) => {
            const one = found[j];
            if (one instanceof Error) w.reject(one);
            else w.resolve(one);
          }),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      );
    }
  }
}
