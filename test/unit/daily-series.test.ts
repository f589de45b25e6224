// statistics.daily as a pure translation of the per-day rows: every day of the window, in order,
// zero days included, rows outside the window and empty counts ignored.
import { expect } from 'chai';
import { dailySeries, daysFrom } from '../../src/subscriptions/dailyUsage.js';

describe('unit: the daily usage series', () => {
  it('daysFrom walks UTC days across month ends, leap days and years', () => {
    expect(daysFrom('2028-02-27', 4)).to.deep.equal(['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01']);
    expect(daysFrom('2026-12-30', 3)).to.deep.equal(['2026-12-30', '2026-12-31', '2027-01-01']);
    expect(daysFrom('2026-11-20', 1)).to.deep.equal(['2026-11-20']);
    expect(daysFrom('2026-01-01', 365).at(-1)).to.equal('2026-12-31');
  });

  it('fills missing days with zero, sums each day, orders endpoints by calls then template', () => {
    const rows = [
      { day: '2026-11-01', endpoint: '/grants', calls: 2 },
      { day: '2026-11-03', endpoint: '/grants/filters', calls: 5 },
      { day: '2026-11-03', endpoint: '/grants/:id', calls: 5 },
      { day: '2026-11-03', endpoint: '/grants', calls: 7 },
      { day: '2026-11-03', endpoint: '/subscription/usage', calls: 0 },
      { day: '2026-10-31', endpoint: '/grants', calls: 9 },
      { day: '2026-11-04', endpoint: '/grants', calls: 9 },
    ];
    const series = dailySeries(rows, '2026-11-01', 3);
    expect(series).to.deep.equal([
      { date: '2026-11-01', calls: 2, byEndpoint: { '/grants': 2 } },
      { date: '2026-11-02', calls: 0, byEndpoint: {} },
      { date: '2026-11-03', calls: 17, byEndpoint: { '/grants': 7, '/grants/:id': 5, '/grants/filters': 5 } },
    ]);
    expect(Object.keys(series[2].byEndpoint)).to.deep.equal(['/grants', '/grants/:id', '/grants/filters']);
  });
});
