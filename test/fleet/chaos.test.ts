// The CI variant of `npm run chaos` (test/chaos/scenario.ts, SHORT_RUN): three API instances on a
// PostgreSQL, a Redis and an Elasticsearch of the suite's own under a steady load of four partners
// with alerts delivering to local receivers, through a SIGKILL and restart of an instance,
// PostgreSQL stopped and hung, Redis stopped, Elasticsearch stopped and hung, a burst and slow
// loris, with faults of 4.5 s instead of 15 s. Every must-be-zero figure is asserted. It needs the
// PostgreSQL and Redis server binaries and the Elasticsearch install scripts/services.sh makes
// (never the shared services): outside CI it skips saying which is missing; in CI it fails.
import { expect } from 'chai';
import { failures, formatReport, runChaos, SHORT_RUN, type ChaosReport } from '../chaos/scenario.js';
import { PRIVATE_ES_HINT, privateElasticsearchMissing } from '../support/elasticsearch.js';
import { POSTGRES_SERVER_HINT, postgresServerMissing } from '../support/postgres.js';
import { describeRequiring, redisServerAvailable, REDIS_SERVER_BIN } from '../support/redis.js';

function chaosMissing(): { missing: string | null; hint: string } {
  const pg = postgresServerMissing();
  if (pg !== null) return { missing: pg, hint: POSTGRES_SERVER_HINT };
  if (!redisServerAvailable())
    return { missing: `${REDIS_SERVER_BIN} cannot be run`, hint: 'install redis-server or set REDIS_SERVER_BIN' };
  return { missing: privateElasticsearchMissing(), hint: PRIVATE_ES_HINT };
}

const { missing, hint } = chaosMissing();

describeRequiring(
  'chaos: three instances through every fault under load (short variant of npm run chaos)',
  'chaos',
  missing,
  hint,
  function () {
    this.timeout(600_000);
    let report: ChaosReport;

    before(async function () {
      report = await runChaos({ ...SHORT_RUN, log: (line) => process.stderr.write(`      [chaos] ${line}\n`) });
      process.stderr.write(`${formatReport(report)}\n`);
    });

    it('answers only documented statuses in every phase (no 5xx but 503)', function () {
      for (const row of report.rows)
        expect(row.undocumented, `${row.phase}: ${row.undocumentedDetail.join('; ')}`).to.equal(0);
    });

    it('recovers fully after every fault, and no instance exits unasked', function () {
      for (const row of report.rows) expect(row.recoveryMs, row.phase).to.not.equal(-1);
      expect(report.unexpectedExits).to.deep.equal([]);
    });

    it('loses no usage record', function () {
      expect(report.usageRowsChecked).to.be.greaterThan(1000);
      expect(report.usageRecordsLost).to.equal(0);
    });

    it('counts every billed answer in the month, over by at most the requests cut at the kill', function () {
      expect(report.underCount, JSON.stringify(report.partners)).to.equal(0);
      expect(report.overCountBeyondBound, JSON.stringify(report.partners)).to.equal(0);
    });

    it('loses no alert event and duplicates none beyond the same webhook-id', function () {
      expect(report.alerts.expected).to.be.greaterThan(0);
      expect(report.alerts.lostDetail).to.deep.equal([]);
      expect(report.alerts.duplicatedDetail).to.deep.equal([]);
    });

    it('has every must-be-zero at zero', function () {
      expect(failures(report)).to.deep.equal([]);
    });
  },
);
