// Calendar-month arithmetic in UTC, including when the remembered month changes back and forth
// (an injected clock may go backwards) and at the boundaries.
import { expect } from 'chai';
import {
  monthKey,
  monthResetDate,
  monthSeconds,
  monthStart,
  secondsUntilReset,
  windowStartDay,
} from '../../src/subscriptions/month.js';

const at = (iso: string) => new Date(iso);

describe('unit: month arithmetic (UTC)', () => {
  it('keys, starts and resets at the boundaries, in any order of asking', () => {
    const cases: [string, string, string, string][] = [
      ['2026-11-30T23:59:59.999Z', '2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
      ['2026-12-01T00:00:00.000Z', '2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['2026-11-15T12:00:00.000Z', '2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
      ['2026-12-31T23:59:59.999Z', '2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['2027-01-01T00:00:00.000Z', '2027-01', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
      ['2026-11-01T00:00:00.000Z', '2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
      ['2026-10-31T23:59:59.999Z', '2026-10', '2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
    ];
    for (const [now, key, start, reset] of cases) {
      expect(monthKey(at(now)), now).to.equal(key);
      expect(monthStart(at(now)).toISOString(), now).to.equal(start);
      expect(monthResetDate(at(now)).toISOString(), now).to.equal(reset);
    }
  });

  it('month lengths (leap February included) and whole seconds until the reset, at least 1', () => {
    expect(monthSeconds(at('2028-02-10T00:00:00.000Z'))).to.equal(29 * 86400);
    expect(monthSeconds(at('2027-02-10T00:00:00.000Z'))).to.equal(28 * 86400);
    expect(monthSeconds(at('2026-11-10T00:00:00.000Z'))).to.equal(30 * 86400);
    expect(secondsUntilReset(at('2026-11-30T23:59:59.999Z'))).to.equal(1);
    expect(secondsUntilReset(at('2026-11-30T23:59:58.500Z'))).to.equal(2);
    expect(secondsUntilReset(at('2026-11-01T00:00:00.000Z'))).to.equal(30 * 86400);
  });

  it('statistics windows end today and span N UTC days', () => {
    expect(windowStartDay(at('2026-11-21T10:00:00.000Z'), 1)).to.equal('2026-11-21');
    expect(windowStartDay(at('2026-11-21T10:00:00.000Z'), 30)).to.equal('2026-10-23');
    expect(windowStartDay(at('2026-01-01T00:00:00.000Z'), 365)).to.equal('2025-01-02');
  });
});
