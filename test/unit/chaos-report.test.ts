// The chaos run's verdict (test/chaos/scenario.ts): failures() names every must-be-zero figure that
// is not zero, and nothing when all are; formatReport() prints every phase and figure. The run
// itself is test/fleet/chaos.test.ts (short) and `npm run chaos` (long).
import { expect } from 'chai';
import { failures, formatReport, SHORT_RUN, type ChaosReport } from '../chaos/scenario.js';

function cleanReport(): ChaosReport {
  return {
    startedAt: '2026-11-25T00:00:00.000Z',
    machine: 'test machine',
    params: SHORT_RUN,
    rows: [
      {
        phase: 'baseline',
        sent: 10,
        answered: 10,
        byStatus: { '200': 10 },
        cut: 0,
        undocumented: 0,
        undocumentedDetail: [],
        recoveryMs: null,
        note: '',
      },
      {
        phase: '1. SIGKILL',
        sent: 20,
        answered: 18,
        byStatus: { '200': 17, '404': 1 },
        cut: 2,
        undocumented: 0,
        undocumentedDetail: [],
        recoveryMs: 1500,
        note: 'killed api-1',
      },
    ],
    usageRecordsLost: 0,
    usageRowsChecked: 28,
    partners: [{ partner: 'starter', billedSeen: 20, monthly: 23, cutAtKill: 2, refusedAtAdmission: 1, cutTotal: 2 }],
    underCount: 0,
    overCountBeyondBound: 0,
    alerts: {
      outbox: 4,
      delivered: 4,
      received: 5,
      uniqueReceived: 4,
      redelivered: 1,
      expected: 4,
      lost: 0,
      lostDetail: [],
      duplicated: 0,
      duplicatedDetail: [],
    },
    races: { revocationRounds: 10, bothRevoked: 0, lockedOut: false, creationRounds: 10, created: 50, overLimit: 0 },
    unexpectedExits: [],
    instanceLog: [{ phase: '1. SIGKILL', level: 40, msg: 'something', count: 2 }],
    logDir: '/tmp/chaos-logs',
    durationMs: 60_000,
  };
}

describe('unit: the chaos report', () => {
  it('passes when every must-be-zero is zero (an over-count within the bound, cut at the kill and refused at admission, and a redelivery under the same webhook-id are allowed)', () => {
    expect(failures(cleanReport())).to.deep.equal([]);
  });

  it('fails on each must-be-zero that is not zero, and on a phase that never recovered', () => {
    const cases: [string, (r: ChaosReport) => void][] = [
      [
        'undocumented',
        (r) => Object.assign(r.rows[1], { undocumented: 1, undocumentedDetail: ['500 on GET /grants'] }),
      ],
      ['usage records lost', (r) => (r.usageRecordsLost = 1)],
      ['under what was served', (r) => (r.underCount = 1)],
      ['over the bound', (r) => (r.overCountBeyondBound = 1)],
      ['alert events lost', (r) => Object.assign(r.alerts, { lost: 1, lostDetail: ['m1 PENDING'] })],
      [
        'duplicated',
        (r) => Object.assign(r.alerts, { duplicated: 1, duplicatedDetail: ['a|g|grant.matched|p under w1, w2'] }),
      ],
      ['both succeeded', (r) => (r.races.bothRevoked = 1)],
      ['locked out', (r) => (r.races.lockedOut = true)],
      ['alert limit was passed', (r) => (r.races.overLimit = 1)],
      ['exited unasked', (r) => r.unexpectedExits.push('api-2')],
      ['no full recovery', (r) => (r.rows[1].recoveryMs = -1)],
    ];
    for (const [words, spoil] of cases) {
      const report = cleanReport();
      spoil(report);
      const found = failures(report);
      expect(found, words).to.have.length(1);
      expect(found[0], words).to.include(words);
    }
  });

  it("prints every phase, each partner's counts and the must-be-zero table", () => {
    const text = formatReport(cleanReport());
    expect(text).to.include('| baseline | 10 | 10 | 10 | 0 | 0 | 0 | 0 | 0 | – |');
    expect(text).to.include('| 1. SIGKILL | 20 | 18 | 17 | 0 | 0 | 404: 1 | 2 | 0 | 1.5 |');
    expect(text).to.include('| starter | 20 | 23 | 3 | 2 + 1 |');
    expect(text).to.include('| two keys revoking each other both succeeding (of 10 rounds answered) | 0 |');
    expect(text).to.include(
      '| alert limit passed (10 rounds of 8 simultaneous creations against a limit of 5, 50 created) | 0 |',
    );
    expect(text).to.include('| usage records lost (of 28 answers checked) | 0 |');
    expect(text).to.include('- 1. SIGKILL: killed api-1');
    expect(text).to.include('- 1. SIGKILL: warn "something" x2');
    expect(text).to.include("The instances' logs: /tmp/chaos-logs");
  });
});
