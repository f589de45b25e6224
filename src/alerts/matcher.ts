// The alert matcher: follows the catalog's change log (the one behind GET /grants/changes) and,
// for each change and each alert, decides the event it makes (grant.matched, grant.updated,
// grant.unmatched), then writes the batch's messages to the outbox in the transaction that moves
// its position. It also finds the grants whose deadline came within an alert's reminder days
// (grant.closing) and the forecasted grants whose opensAt came (grant.opened). One matcher runs at
// a time; nothing here sends anything.
import type { GrantConditions } from '../grants/matching.js';
import { grantStatus } from '../grants/lifecycle.js';
import type { GrantQuery } from '../grants/query.js';
import { matchesFilters } from '../grants/matching.js';
import type { Grant } from '../grants/schema.js';
import type { ParsedSearch } from '../grants/searchSyntax.js';
import { typoWords, withTypoAlternatives } from '../grants/typos.js';
import type { Logger } from '../log.js';
import { encodeSince, type ChangeEntryJson } from '../search/changes.js';
import type { SearchEngine } from '../search/engine.js';
import { relaxedMatchSearch } from '../search/relaxedSearch.js';
import { AlertIndex } from './alertIndex.js';
import { UNPACED, type AlertsPacer } from './pacing.js';
import { eventPayload } from './events.js';
import type { AlertQuery, EventType } from './model.js';
import type { AlertStore, MatchableAlert, MatchedBatch, NewMessage, ToldGrant } from './store.js';

/** Which of a batch's grants a query's search matches (an engine's text rules); null: no search, every grant. */
export interface TextMatching {
  batch(grants: readonly Grant[]): { matching(search: ParsedSearch | null): ReadonlySet<string>; close(): void };
}

interface MatcherDeps {
  engine: Pick<SearchEngine, 'changesJson' | 'getByIdJson' | 'typoNeighbours' | 'searchJson'>;
  store: AlertStore;
  /** An alert's query as conditions (the same translation GET /grants makes); throws for a query no longer valid. */
  compile: (query: AlertQuery) => GrantConditions;
  text: TextMatching;
  clock: () => Date;
  log: Logger;
  /** Changes read per batch. */
  batchSize?: number;
  /** This matcher's name for the lease (one matcher at a time in a fleet). */
  holder?: string;
  /** How much of the thread matching may take while partners are served (default: all of it). */
  pacer?: AlertsPacer;
}

/** How long the matcher's lease lasts: a dead holder is replaced within this time. */
const MATCHER_LEASE_MS = 10_000;

interface MatchReport {
  changes: number;
  events: number;
  /** Seconds between the oldest change of the batch and now (0 when idle). */
  lagSeconds: number;
}

/** How long matching runs before it lets the event loop serve what waits (and the pacer hold it back). */
const SLICE_MS = 5;

/**
 * A batch stops after the change that brings its messages to this many: one commit writes a
 * bounded outbox slice (a broad catalog change can make many thousands of events).
 */
const MAX_MESSAGES_PER_BATCH = 2000;

interface KnownAlert {
  id: string;
  alert: MatchableAlert;
  createdAt: number;
  conditions: GrantConditions | null;
}

interface KnownAlerts {
  version: string;
  byId: Map<string, KnownAlert>;
}

const key = (alertId: string, grantId: string): string => `${alertId}\u0000${grantId}`;

/**
 * What the matcher has done since it started: the figures /metrics reports (matching cost per change and per alert).
 */
export interface MatcherTotals {
  changes: number;
  /** Change × alert pairs decided. */
  checks: number;
  events: number;
  /** Time spent deciding batches (reading alerts and followed grants, matching), in seconds. */
  seconds: number;
}

export class AlertMatcher {
  private readonly compiled = new Map<string, { updatedAt: string; conditions: GrantConditions | null }>();
  lagSeconds = 0;
  readonly totals: MatcherTotals = { changes: 0, checks: 0, events: 0, seconds: 0 };
  private known: KnownAlerts | null = null;
  /** The last batch decided, while its commit runs (the next one is decided meanwhile). */
  private pending: { batch: MatchedBatch; committed: Promise<boolean> } | null = null;

  private readonly holder: string;
  private readonly pacer: AlertsPacer;

  constructor(private readonly deps: MatcherDeps) {
    this.pacer = deps.pacer ?? UNPACED;
    this.holder = deps.holder ?? `matcher-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  }

  /** The alerts, compiled and indexed; read again only when their version changed. */
  private async alerts(): Promise<KnownAlerts> {
    const version = await this.pacer.sync(() => this.deps.store.alertsVersion());
    if (this.known?.version === version) return this.known;
    const alerts = await this.pacer.sync(() => this.deps.store.matchableAlerts());
    const byId = new Map<string, KnownAlert>(
      alerts.map((alert) => [
        alert.id,
        { id: alert.id, alert, createdAt: Date.parse(alert.createdAt), conditions: this.conditionsOf(alert) },
      ]),
    );
    for (const id of this.compiled.keys()) if (!byId.has(id)) this.compiled.delete(id);
    this.known = { version, byId };
    return this.known;
  }

  private conditionsOf(alert: MatchableAlert): GrantConditions | null {
    const known = this.compiled.get(alert.id);
    if (known !== undefined && known.updatedAt === alert.updatedAt) return known.conditions;
    let conditions: GrantConditions | null = null;
    try {
      conditions = this.deps.compile(alert.query);
    } catch {
      this.deps.log.warn('alert query no longer valid; the alert matches nothing', { alertId: alert.id });
    }
    this.compiled.set(alert.id, { updatedAt: alert.updatedAt, conditions });
    return conditions;
  }

  /** Matches one batch of changes and commits it; returns what it did (changes 0: nothing new). */
  async matchOnce(): Promise<MatchReport> {
    const report = await this.matchNext();
    return (await this.settle()) ? report : { changes: 0, events: 0, lagSeconds: this.lagSeconds };
  }

  /**
   * Decides the next batch of changes while the previous batch's commit runs, then commits it
   * once that one has (batches commit in order; a failed or lost commit discards the batch decided
   * after it, and the next call starts again from the stored position). Returns before its own
   * commit ends: `settle` waits for it. A catch-up of several batches spends its commits' round
   * trips deciding (with PostgreSQL a commit of 2,000 messages takes 0.2–0.3 s).
   */
  async matchNext(): Promise<MatchReport> {
    const { engine, store, clock } = this.deps;
    if (engine.changesJson === undefined) return { changes: 0, events: 0, lagSeconds: 0 };
    const batchSize = this.deps.batchSize ?? 500;
    if (!(await store.tryLease(this.holder, MATCHER_LEASE_MS))) {
      await this.settle();
      return { changes: 0, events: 0, lagSeconds: 0 };
    }
    const pending = this.pending;
    const position = pending?.batch.position ?? (await store.matcherPosition());
    let page = await engine.changesJson(position.seq, batchSize);
    let from = position.seq;
    if (page.state.log === null) return { changes: 0, events: 0, lagSeconds: 0 };
    if (pending !== null && page.state.log !== position.log) {
      // The change log was replaced under a pending batch: settle it and start from the store.
      await this.settle();
      return { changes: 0, events: 0, lagSeconds: 0 };
    }
    if (position.log === null) {
      // The first start: alerts follow the changes from now on, not the catalog's history.
      await store.commitBatch(
        {
          from: position,
          position: { log: page.state.log, seq: Math.max(position.seq, page.state.counter) },
          messages: [],
          told: [],
          forgotten: [],
        },
        clock(),
      );
      return { changes: 0, events: 0, lagSeconds: 0 };
    }
    if (page.state.log !== position.log) {
      // The catalog was rebuilt from nothing: a new change log, read from its beginning.
      this.deps.log.warn('the change log was replaced; alerts read the new one from its beginning', {});
      page = await engine.changesJson(0, batchSize);
      from = 0;
    }
    const entries = page.entries.filter((e) => e.seq > from).slice(0, batchSize);
    if (entries.length === 0) {
      if (!(await this.settle())) return { changes: 0, events: 0, lagSeconds: this.lagSeconds };
      this.lagSeconds = 0;
      // Idle: read and compile changed alerts now rather than when the next change waits for them.
      await this.alerts();
      if (page.state.log !== position.log)
        await store.commitBatch(
          { from: position, position: { log: page.state.log, seq: 0 }, messages: [], told: [], forgotten: [] },
          clock(),
        );
      return { changes: 0, events: 0, lagSeconds: 0 };
    }
    const now = clock();
    const started = process.hrtime.bigint();
    const { checks, decided, ...matched } = await this.decide(entries, page.state.log!, now, pending?.batch ?? null);
    const batch: MatchedBatch = { from: position, ...matched };
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (pending !== null && !(await this.settle())) return { changes: 0, events: 0, lagSeconds: this.lagSeconds };
    const committed = this.pacer
      .sync(() => store.commitBatch(batch, clock()))
      .then((ok) => {
        if (ok) {
          this.totals.changes += decided;
          this.totals.checks += checks;
          this.totals.events += batch.messages.length;
          this.totals.seconds += seconds;
          this.lagSeconds = Math.max(0, (now.getTime() - Date.parse(entries[0].changedAt)) / 1000);
        }
        return ok;
      });
    committed.catch(() => undefined); // seen by settle()
    this.pending = { batch, committed };
    return { changes: decided, events: batch.messages.length, lagSeconds: this.lagSeconds };
  }

  /**
   * Waits for the pending batch's commit; false when it was lost (another matcher moved the
   * position). Rethrows its failure. Either way nothing is pending after it.
   */
  async settle(): Promise<boolean> {
    const pending = this.pending;
    if (pending === null) return true;
    try {
      return await pending.committed;
    } finally {
      if (this.pending === pending) this.pending = null;
    }
  }

  private async decide(
    entries: ChangeEntryJson[],
    log: string,
    now: Date,
    /** A batch decided before and perhaps not committed yet: what it told and forgot counts. */
    previous: MatchedBatch | null,
  ): Promise<Omit<MatchedBatch, 'from'> & { checks: number; decided: number }> {
    await this.pacer.turn();
    const { byId } = await this.alerts();
    const told = new Map<string, ToldGrant>();
    // Per grant, the alerts that have told about it: decided at its change even when it no longer matches.
    const followers = new Map<string, Set<string>>();
    const follow = (grantId: string, alertId: string) => {
      const set = followers.get(grantId);
      if (set === undefined) followers.set(grantId, new Set([alertId]));
      else set.add(alertId);
    };
    for (const t of await this.deps.store.told(entries.map((e) => e.id))) told.set(key(t.alertId, t.grantId), t);
    if (previous !== null) {
      // Read before or after the previous batch's commit: the same either way once it is applied.
      const ids = new Set(entries.map((e) => e.id));
      for (const t of previous.told) if (ids.has(t.grantId)) told.set(key(t.alertId, t.grantId), t);
      for (const f of previous.forgotten) told.delete(key(f.alertId, f.grantId));
    }
    for (const t of told.values()) follow(t.grantId, t.alertId);
    const grants = new Map<string, Grant>();
    for (const e of entries) if (e.grantJson !== null) grants.set(e.id, JSON.parse(e.grantJson) as Grant);
    // Searches as GET /grants runs them now: typos=auto given the catalog's alternatives, then
    // matching=last|frequency relaxed to their most relaxed step.
    const typed = await this.typoSearches(byId);
    const relaxed = await this.relaxedSearches(byId, typed);
    const runOf = (search: ParsedSearch | null): ParsedSearch | null =>
      search === null ? null : (relaxed.get(search) ?? typed.get(search) ?? search);
    const text = this.deps.text.batch([...grants.values()]);
    // Filed for this batch: each alert under the condition the fewest of its grants hold.
    const candidatesOf = new AlertIndex([...byId.values()], [...grants.values()]).forBatch((search: ParsedSearch) =>
      text.matching(runOf(search)),
    );
    const messages: NewMessage[] = [];
    const toldNow = new Map<string, ToldGrant>();
    const forgotten = new Map<string, { alertId: string; grantId: string }>();
    let checks = 0;
    let sliceStart = performance.now();
    let decided = 0;
    try {
      for (const entry of entries) {
        if (messages.length >= MAX_MESSAGES_PER_BATCH) break;
        decided += 1;
        // Matching is CPU work on the API's own thread: let requests in every few milliseconds.
        if (performance.now() - sliceStart > SLICE_MS) {
          this.pacer.spent(performance.now() - sliceStart);
          await this.pacer.turn();
          sliceStart = performance.now();
        }
        const grant = grants.get(entry.id) ?? null;
        const changedAt = Date.parse(entry.changedAt);
        const change = { changedAt: entry.changedAt, position: encodeSince(log, entry.seq) };
        // The index's candidates, and the alerts that told about the grant (they may have to say it left).
        const candidates: Set<KnownAlert> = grant === null ? new Set() : candidatesOf(grant);
        for (const alertId of followers.get(entry.id) ?? []) {
          const known = byId.get(alertId);
          if (known !== undefined) candidates.add(known);
        }
        for (const known of candidates) {
          const { alert, conditions } = known;
          if (alert.fromSeq >= entry.seq || known.createdAt > changedAt) continue;
          checks += 1;
          // Told before and not forgotten since (the grant's followers follow every decision below).
          const wasTold = followers.get(entry.id)?.has(alert.id) ?? false;
          // The words first: the batch's answer for each search is known by now (the index asked), a set look-up.
          const matches =
            grant !== null &&
            conditions !== null &&
            text.matching(runOf(conditions.search)).has(entry.id) &&
            matchesFilters(grant, conditions, changedAt);
          if (!matches && !wasTold) continue;
          const k = key(alert.id, entry.id);
          let type: EventType;
          let reason: 'deleted' | 'no_longer_matches' | null = null;
          if (matches) {
            type = wasTold ? 'grant.updated' : 'grant.matched';
            const previous = toldNow.get(k) ?? told.get(k);
            const { deadline, opensAt = null } = grant!;
            // An opensAt already come when the grant is told has nothing left to announce.
            const openedOpensAt =
              opensAt !== null && Date.parse(opensAt) <= changedAt ? opensAt : (previous?.openedOpensAt ?? null);
            toldNow.set(k, {
              alertId: alert.id,
              grantId: entry.id,
              deadline,
              remindedDeadline: previous?.remindedDeadline ?? null,
              opensAt,
              openedOpensAt,
            });
            forgotten.delete(k);
            follow(entry.id, alert.id);
          } else {
            type = 'grant.unmatched';
            reason = grant === null ? 'deleted' : 'no_longer_matches';
            toldNow.delete(k);
            forgotten.set(k, { alertId: alert.id, grantId: entry.id });
            followers.get(entry.id)?.delete(alert.id);
          }
          if (!alert.events.includes(type)) continue;
          messages.push({
            alertId: alert.id,
            grantId: entry.id,
            type,
            payload: eventPayload(
              type,
              now,
              alert,
              entry.grantJson === null
                ? { grant: { id: entry.id }, reason, change }
                : { grantJson: entry.grantJson, grantId: entry.id, reason, change, changesJson: entry.changesJson },
            ),
          });
        }
      }
      this.pacer.spent(performance.now() - sliceStart);
    } finally {
      text.close();
    }
    const last = entries[decided - 1];
    return {
      decided,
      checks,
      position: { log, seq: last.seq },
      messages,
      told: [...toldNow.values()],
      forgotten: [...forgotten.values()],
    };
  }

  /**
   * The searches of `typos=auto` alerts with their terms' alternatives in the catalog as it is now
   * (search/typoSearch.ts: the neighbours of all their words looked up together), by search.
   */
  private async typoSearches(byId: ReadonlyMap<string, KnownAlert>): Promise<Map<ParsedSearch, ParsedSearch>> {
    const searches = [...byId.values()].flatMap(({ conditions }) =>
      conditions?.typos === 'auto' && conditions.search !== null ? [conditions.search] : [],
    );
    const lookUp = this.deps.engine.typoNeighbours;
    if (searches.length === 0 || lookUp === undefined) return new Map();
    const neighbours = await this.pacer.sync(() =>
      lookUp.call(this.deps.engine, [...new Set(searches.flatMap(typoWords))]),
    );
    return new Map(searches.map((search) => [search, withTypoAlternatives(search, neighbours)]));
  }

  /**
   * The searches of relaxed alerts (matching=last|frequency) as GET /grants matches them now
   * (search/relaxedSearch.ts): for `frequency`, each term counted in the catalog once per batch.
   */
  private async relaxedSearches(
    byId: ReadonlyMap<string, KnownAlert>,
    typed: ReadonlyMap<ParsedSearch, ParsedSearch>,
  ): Promise<Map<ParsedSearch, ParsedSearch>> {
    const relaxed = new Map<ParsedSearch, ParsedSearch>();
    const counted = new Map<string, Promise<number>>();
    const count = (query: GrantQuery): Promise<number> => {
      const key = JSON.stringify([query.search, query.typos]);
      let total = counted.get(key);
      if (total === undefined) {
        total = this.pacer.sync(() => this.deps.engine.searchJson(query)).then((result) => result.total);
        counted.set(key, total);
      }
      return total;
    };
    for (const { conditions } of byId.values()) {
      if (
        conditions === null ||
        conditions.search === null ||
        (conditions.matching ?? 'all') === 'all' ||
        relaxed.has(conditions.search)
      )
        continue;
      const search = await relaxedMatchSearch(
        { ...conditions, search: typed.get(conditions.search) ?? conditions.search },
        count,
      );
      if (search !== null && search !== conditions.search) relaxed.set(conditions.search, search);
    }
    return relaxed;
  }

  /** Queues grant.closing for followed grants whose deadline came within their alert's days. */
  async remindOnce(): Promise<number> {
    const { store, engine, clock } = this.deps;
    if (!(await store.tryLease(this.holder, MATCHER_LEASE_MS))) return 0;
    const now = clock();
    const due = await store.dueReminders(now);
    if (due.length === 0) return 0;
    const { byId } = await this.alerts();
    const messages: NewMessage[] = [];
    const reminded: ToldGrant[] = [];
    for (const item of due) {
      const alert = byId.get(item.alertId)?.alert;
      const json = await engine.getByIdJson(item.grantId);
      if (alert === undefined || json === null) continue;
      const grant = JSON.parse(json) as Grant;
      if (grant.deadline !== item.deadline) continue; // changed since: the matcher will see it
      reminded.push(item);
      if (alert.events.includes('grant.closing')) {
        messages.push({
          alertId: alert.id,
          grantId: item.grantId,
          type: 'grant.closing',
          payload: eventPayload('grant.closing', now, alert, { grantJson: json, reason: null, change: null }),
        });
      }
    }
    await store.commitReminders(messages, reminded, now);
    return messages.length;
  }

  /**
   * Queues grant.opened for followed grants whose opensAt has come: once per opensAt (a grant
   * whose opensAt moves is announced again when the new one comes). A grant that closed meanwhile
   * is marked without a message.
   */
  async announceOpenings(): Promise<number> {
    const { store, engine, clock } = this.deps;
    if (!(await store.tryLease(this.holder, MATCHER_LEASE_MS))) return 0;
    const now = clock();
    const due = await store.dueOpenings(now);
    if (due.length === 0) return 0;
    const { byId } = await this.alerts();
    const messages: NewMessage[] = [];
    const opened: ToldGrant[] = [];
    for (const item of due) {
      const alert = byId.get(item.alertId)?.alert;
      const json = await engine.getByIdJson(item.grantId);
      if (alert === undefined || json === null) continue;
      const grant = JSON.parse(json) as Grant;
      if ((grant.opensAt ?? null) !== item.opensAt) continue; // changed since: the matcher will see it
      opened.push(item);
      if (alert.events.includes('grant.opened') && grantStatus(grant, now.getTime()) === 'OPEN') {
        messages.push({
          alertId: alert.id,
          grantId: item.grantId,
          type: 'grant.opened',
          payload: eventPayload('grant.opened', now, alert, { grantJson: json, reason: null, change: null }),
        });
      }
    }
    await store.commitOpenings(messages, opened, now);
    return messages.length;
  }
}
