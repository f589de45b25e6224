// Search as you type on Elasticsearch under a status condition (`open`, `status`): its counts are
// made at a cut of the catalog's own that parts it into statuses as the request's time does (so
// that Elasticsearch's request cache keeps them), read again once a deadline or an opening falls
// between, and after the catalog moved. Checked against the grant's own status rule
// (grants/lifecycle.ts) at every date of the catalog, a millisecond before, at and after it.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { grantStatus } from '../../src/grants/lifecycle.js';
import type { Grant, GrantStatus } from '../../src/grants/schema.js';
import { parseQueryString } from '../../src/http/parameters/queryParams.js';
import { parseSuggestQuery } from '../../src/http/parameters/suggestParams.js';
import { IndexSuggest } from '../../src/search/elasticsearch/suggest.js';
import { suggestionsFrom } from '../../src/search/suggestSearch.js';
import { fixtureGrants } from '../support/api.js';
import {
  describeWithElasticsearch,
  dropAlias,
  ES_URL,
  reindexAlias,
  testClient,
  uniqueAlias,
} from '../support/elasticsearch.js';

const [model] = fixtureGrants();
const DAY = 86_400_000;
const base = Date.UTC(2031, 0, 10, 12);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** A grant holding the word `quillfeather`, with the dates given (epoch ms, null for none). */
const grant = (id: string, opensAt: number | null, deadline: number | null): Grant => ({
  ...model,
  id,
  title: `Program ${id}`,
  description: 'Quillfeather wetlands restored',
  opensAt: iso(opensAt),
  deadline: iso(deadline),
});

describeWithElasticsearch('Elasticsearch suggestions under a status condition', function () {
  this.timeout(60_000);
  const alias = uniqueAlias();
  const config = { url: ES_URL as string, index: alias, requestTimeoutMs: 30_000 };
  const client = testClient();
  const suggest = new IndexSuggest(client, alias);
  /** How many grants holding `quillfeather` the suggestion counts under `filter`, at `now`. */
  const countAt = async (filter: string, now: number) => {
    const request = parseSuggestQuery(parseQueryString(`q=quill&type=words&${filter}`))!;
    const at = { ...request, query: { ...request.query, now } };
    const [item] = await suggestionsFrom(at, suggest.source(at.query));
    return item?.count ?? 0;
  };
  const expected = (grants: readonly Grant[], statuses: readonly GrantStatus[], now: number) =>
    grants.filter((g) => statuses.includes(grantStatus(g, now))).length;

  after(async () => {
    await client.close();
    await dropAlias(alias);
  });

  const first = [
    grant('s-1', null, base),
    grant('s-2', base - 2 * DAY, base + DAY),
    grant('s-3', base + 2 * DAY, base + 3 * DAY),
    grant('s-4', base + 2 * DAY, null),
    grant('s-5', null, null),
    grant('s-6', base - DAY, base + 3 * DAY),
  ];
  const datesOf = (grants: readonly Grant[]) =>
    [...new Set(grants.flatMap((g) => [g.opensAt, g.deadline]).filter((d): d is string => d !== null))].map(Date.parse);
  const timesAround = (grants: readonly Grant[]) =>
    datesOf(grants)
      .flatMap((d) => [d - 1, d, d + 1])
      .sort((a, b) => a - b);

  it('counts as the grants’ status rule says, before, at and after every date, in time order and back', async () => {
    await reindexAlias(config, first);
    const times = [base - 10 * DAY, ...timesAround(first), base + 10 * DAY];
    for (const now of [...times, ...[...times].reverse()]) {
      expect(await countAt('open=true', now), `open at ${iso(now)}`).to.equal(expected(first, ['OPEN'], now));
      expect(await countAt('open=false', now), `not open at ${iso(now)}`).to.equal(
        expected(first, ['FORECASTED', 'CLOSED'], now),
      );
      expect(await countAt('status=FORECASTED,CLOSED', now), `forecasted or closed at ${iso(now)}`).to.equal(
        expected(first, ['FORECASTED', 'CLOSED'], now),
      );
    }
  });

  it('follows the catalog: a grant whose date falls between the cut and the next date counts after a sync', async () => {
    await reindexAlias(config, first);
    const now = base + DAY / 2;
    expect(await countAt('open=true', now)).to.equal(expected(first, ['OPEN'], now));
    // Closes between `now` and the next deadline of the first catalog (base + DAY): the cut held moves.
    const second = [...first, grant('s-7', null, now + 1000), grant('s-8', now + 500, base + 5 * DAY)];
    await reindexAlias(config, second);
    await sleep(2100);
    for (const at of [now, now + 499, now + 500, now + 1000, now + 1001])
      expect(await countAt('open=true', at), `open at ${iso(at)}`).to.equal(expected(second, ['OPEN'], at));
  });
});
