// The alert matcher's candidate step and its pacing. The index may only leave out alerts that
// cannot match: over generated grants and varied alert queries (the bench's own recipe, compiled
// by the API's translation), every alert that matches a grant (the filters of matchesFilters and
// the words as the embedded engine's FTS5 decides them) is among the grant's candidates.
import { expect } from 'chai';
import { generateGrants, Random } from '../../fixtures/generate.js';
import { AlertIndex } from '../../src/alerts/alertIndex.js';
import { AlertsPacer } from '../../src/alerts/pacing.js';
import { matchesFilters } from '../../src/grants/matching.js';
import type { Grant } from '../../src/grants/schema.js';
import { compileAlertQuery } from '../../src/http/parameters/alertBody.js';
import { BatchTextMatcher } from '../../src/search/sqlite/query/batchTextMatcher.js';
import { alertQueryFor } from '../bench/alerts.js';

describe('alert index (the matcher candidate step)', () => {
  for (const filing of ['in a fixed order', 'by the batch’s own counts'] as const)
    it(`leaves out no alert that matches a changed grant, and leaves out most of those that do not (filed ${filing})`, () => {
      const grants = [...generateGrants(1500, 7)];
      const batch = grants.slice(0, 400);
      const rng = new Random(11);
      const now = Date.parse('2026-06-01T00:00:00Z');
      const share = () => 0; // any word is rare enough
      const alerts = Array.from({ length: 600 }, (_, i) => {
        const query = alertQueryFor(grants[rng.int(grants.length)], rng, share, grants.slice(0, 200), now);
        return { id: `alt_${i}`, query, conditions: compileAlertQuery(query as never) };
      });
      // Queries with no filter at all, which every change must be checked against.
      alerts.push({ id: 'alt_open', query: { open: true }, conditions: compileAlertQuery({ open: true } as never) });
      const matcher = new BatchTextMatcher();
      const text = matcher.batch(batch);
      try {
        const candidatesOf = new AlertIndex(alerts, filing === 'in a fixed order' ? undefined : batch).forBatch(
          (search) => text.matching(search),
        );
        let matched = 0;
        let candidates = 0;
        for (const grant of batch) {
          const found = new Set([...candidatesOf(grant)].map((a) => a.id));
          candidates += found.size;
          expect(found.has('alt_open'), 'an alert without list or search is every change’s candidate').to.equal(true);
          for (const alert of alerts) {
            const matches =
              matchesFilters(grant as Grant, alert.conditions, now) &&
              text.matching(alert.conditions.search).has(grant.id);
            if (!matches) continue;
            matched += 1;
            expect(
              found.has(alert.id),
              `${alert.id} ${JSON.stringify(alert.query)} matches ${grant.id} but is no candidate`,
            ).to.equal(true);
          }
        }
        expect(matched, 'the generated alerts match some grants').to.be.greaterThan(50);
        expect(candidates, 'the index leaves out most alerts').to.be.lessThan(batch.length * alerts.length * 0.5);
      } finally {
        text.close();
        matcher.close();
      }
    });
});

describe('alert index: a search against a list condition', () => {
  it('files an alert under its words when they find fewer of the batch’s grants than hold its list values', () => {
    const batch = [...generateGrants(300, 5)];
    const matcher = new BatchTextMatcher();
    const text = matcher.batch(batch);
    try {
      // A funder type many of the batch's grants hold, and a word of one grant's title.
      const target = batch[0];
      const alertOf = (word: string) => ({
        id: 'alt_word',
        conditions: compileAlertQuery({ search: word, funderType: [target.funderType] } as never),
      });
      const [alert] = target.title
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 2)
        .map(alertOf)
        .sort((a, b) => text.matching(a.conditions.search).size - text.matching(b.conditions.search).size);
      const hits = text.matching(alert.conditions.search);
      const sameFunder = batch.filter((g) => g.funderType === target.funderType).length;
      expect(hits.has(target.id), 'the word finds its grant').to.equal(true);
      expect(hits.size, 'the word is rarer in the batch than the funder type').to.be.lessThan(sameFunder);
      const candidatesOf = new AlertIndex([alert], batch).forBatch((search) => text.matching(search));
      const candidateOf = batch.filter((g) => candidatesOf(g).has(alert));
      expect(candidateOf.map((g) => g.id).sort()).to.deep.equal(
        batch
          .filter((g) => hits.has(g.id))
          .map((g) => g.id)
          .sort(),
      );
      // Without the batch's counts (no grants given), the list condition is kept: every grant of that funder type.
      const fixed = new AlertIndex([alert]).forBatch((search) => text.matching(search));
      expect(batch.filter((g) => fixed(g).has(alert))).to.have.length(sameFunder);
    } finally {
      text.close();
      matcher.close();
    }
  });
});

describe('alerts pacing', () => {
  it('makes alert work wait (1 - share) / share of what it spent while partners are served', async () => {
    let busy = true;
    const pacer = new AlertsPacer(() => busy, 0.1);
    pacer.spent(10);
    const started = performance.now();
    await pacer.turn();
    expect(performance.now() - started).to.be.at.least(85);
    busy = false;
    pacer.spent(50);
    const idleStart = performance.now();
    await pacer.turn();
    // Nothing owed without partner requests: the turn is a single loop turn, far below the 450 ms owed when busy.
    expect(performance.now() - idleStart).to.be.below(400);
  });

  it('stops holding alerts back as soon as partners stop', async () => {
    let busy = true;
    const pacer = new AlertsPacer(() => busy, 0.01);
    pacer.spent(100); // owes 9.9 s while busy
    setTimeout(() => (busy = false), 60);
    const started = performance.now();
    await pacer.turn();
    expect(performance.now() - started).to.be.below(5000);
  });
});
