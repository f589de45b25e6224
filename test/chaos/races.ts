// The store's promises under faults, for the chaos run (./scenario.ts): while the load and the
// faults go on, round after round, one partner's two unrestricted keys revoke each other at once
// (never may both succeed, and a working key must always remain), and a STARTER partner (at most
// 5 alerts) sends 8 POST /alerts at once (never may more than its limit exist). Every request goes
// through the run's tracked client: its status counts in the phase table and the check of
// undocumented statuses like any other.

/** A route as the run's tracked client takes it. */
export interface RaceRoute {
  template: string;
  billable: boolean;
  path: (i: number) => string;
  weight: number;
}

export interface RacePartner {
  spec: { name: string };
  apiKey: string;
}

/** The run's tracked client: an answer, or null when none came (cut, refused, no live instance). */
export type RaceSend<P extends RacePartner> = (
  partner: P,
  route: RaceRoute,
  pathAndQuery: string,
  init?: { method?: string; body?: string },
) => Promise<{ status: number; body: string } | null>;

export interface RaceTally {
  /** Rounds in which both revocations were answered. */
  revocationRounds: number;
  /** Rounds in which both keys were revoked (must be 0). */
  bothRevoked: number;
  /** No key of the subscription worked any more (must be false). */
  lockedOut: boolean;
  creationRounds: number;
  created: number;
  /**
   * Rounds that left more alerts than the limit, and the count found in the store at the end if over it (must be 0).
   */
  overLimit: number;
}

export const RACE_ALERT_LIMIT = 5;
const SIMULTANEOUS_CREATIONS = 8;

const route = (template: string): RaceRoute => ({ template, billable: true, path: () => template, weight: 0 });
const KEYS = route('/keys');
const KEY = route('/keys/{id}');
const ALERTS = route('/alerts');
const ALERT = route('/alerts/{id}');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the races; stop() ends them and makes the last check (a key still works). `alertUrl`:
 * where the racing alerts point (they follow a search no grant matches: nothing is sent there).
 */
export function startRaces<P extends RacePartner>(
  send: RaceSend<P>,
  keyRacer: P & { keyId: string },
  alertRacer: P,
  alertUrl: string,
  everyMs: number,
) {
  const tally: RaceTally = {
    revocationRounds: 0,
    bothRevoked: 0,
    lockedOut: false,
    creationRounds: 0,
    created: 0,
    overLimit: 0,
  };
  let stopping = false;
  let keys = [{ key: keyRacer.apiKey, id: keyRacer.keyId }];
  const as = (key: string): P => ({ ...keyRacer, apiKey: key });

  /**
   * The first key that works, with the ids of the subscription's keys not revoked (its GET /keys);
   * null when every key is refused (401); undefined when a fault left it unknown.
   */
  async function working(): Promise<{ key: string; id: string; live: string[] } | null | undefined> {
    let unsure = false;
    for (const k of [...keys]) {
      const answer = await send(as(k.key), KEYS, '/keys');
      if (answer?.status === 200) {
        const listed = (JSON.parse(answer.body) as { data: { id: string; revokedAt: string | null }[] }).data;
        return { ...k, live: listed.filter((key) => key.revokedAt === null).map((key) => key.id) };
      }
      if (answer?.status === 401) keys = keys.filter((x) => x !== k);
      else unsure = true;
    }
    return unsure ? undefined : null;
  }

  async function revocationRound(): Promise<void> {
    const survivor = await working();
    if (survivor === null) tally.lockedOut = true;
    if (survivor === null || survivor === undefined) return;
    // A round whose revocations a fault cut short can leave a third key: revoked first, so that
    // each round starts from one key and both revocations succeeding would leave none.
    const extras = survivor.live.filter((id) => id !== survivor.id);
    if (extras.length > 0) {
      for (const id of extras) await send(as(survivor.key), KEY, `/keys/${id}`, { method: 'DELETE' });
      return;
    }
    const made = await send(as(survivor.key), KEYS, '/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'racer' }),
    });
    if (made?.status !== 201) return;
    const data = (JSON.parse(made.body) as { data: { id: string; apiKey: string } }).data;
    const other = { key: data.apiKey, id: data.id };
    keys.push(other);
    const [first, second] = await Promise.all([
      send(as(survivor.key), KEY, `/keys/${other.id}`, { method: 'DELETE' }),
      send(as(other.key), KEY, `/keys/${survivor.id}`, { method: 'DELETE' }),
    ]);
    if (first !== null && second !== null) tally.revocationRounds += 1;
    if (first?.status === 200 && second?.status === 200) tally.bothRevoked += 1;
    if (first?.status === 200) keys = keys.filter((k) => k !== other);
    if (second?.status === 200) keys = keys.filter((k) => k !== survivor);
  }

  /** Alerts created and not deleted yet; `sure`: its last DELETE was answered (a cut one may have deleted it). */
  const held = new Map<string, { sure: boolean }>();
  async function creationRound(): Promise<void> {
    const body = (i: number) =>
      JSON.stringify({ name: `race ${i}`, query: { search: 'no grant says xyzzy' }, url: alertUrl });
    const answers = await Promise.all(
      Array.from({ length: SIMULTANEOUS_CREATIONS }, (_, i) =>
        send(alertRacer, ALERTS, '/alerts', { method: 'POST', body: body(i) }),
      ),
    );
    tally.creationRounds += 1;
    const made = answers
      .filter((a) => a?.status === 201)
      .map((a) => (JSON.parse(a!.body) as { data: { id: string } }).data.id);
    tally.created += made.length;
    const surelyHeld = [...held.values()].filter((h) => h.sure).length;
    if (surelyHeld + made.length > RACE_ALERT_LIMIT) tally.overLimit += 1;
    for (const id of made) held.set(id, { sure: true });
    for (const [id, h] of [...held]) {
      const answer = await send(alertRacer, ALERT, `/alerts/${id}`, { method: 'DELETE' });
      if (answer?.status === 200 || answer?.status === 404) held.delete(id);
      else h.sure = answer !== null;
    }
  }

  const loop = (async () => {
    while (!stopping) {
      if (!tally.lockedOut) await revocationRound();
      await creationRound();
      await sleep(everyMs);
    }
  })();

  return {
    tally,
    /** Ends the races without a check (the run failed). */
    async cancel(): Promise<void> {
      stopping = true;
      await loop.catch(() => undefined);
    },
    /** Ends the races (call once the faults are over); `alertsHeld`: the racer's alerts in the store now. */
    async stop(alertsHeld: () => Promise<number>): Promise<RaceTally> {
      stopping = true;
      await loop;
      if (!tally.lockedOut && (await working()) === null) tally.lockedOut = true;
      if ((await alertsHeld()) > RACE_ALERT_LIMIT) tally.overLimit += 1;
      return tally;
    },
  };
}
