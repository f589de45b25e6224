import { expect } from 'chai';
import { validateGrant } from '../../src/grants/schema.js';

const good = {
  id: 'grt_ok',
  title: 'A grant',
  funder: 'A funder',
  funderType: 'FOUNDATION',
  fundingType: 'GRANT',
  currency: 'CAD',
  amountMin: 1000,
  amountMax: 5000,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
};

const problemsOf = (record: unknown): string[] => {
  const result = validateGrant(record);
  return result.ok ? [] : result.problems.map((p) => `${p.field}: ${p.reason}`);
};

describe('validateGrant: every problem of a record at once', () => {
  it('a valid record has none', () => {
    expect(validateGrant(good).ok).to.equal(true);
  });

  it('reports amountMin > amountMax together with the schema problems, not only once they are fixed', () => {
    const problems = problemsOf({
      ...good,
      title: '',
      funderType: 'STATE_GRANT',
      currency: 'EUR',
      foo: 1,
      funder: undefined,
      amountMin: 10,
      amountMax: 5,
    });
    expect(problems).to.include('amountMin: must not exceed amountMax');
    expect(problems.some((p) => p.startsWith('title: '))).to.equal(true);
    expect(problems.some((p) => p.startsWith('funderType: '))).to.equal(true);
    expect(problems.some((p) => p.startsWith('currency: '))).to.equal(true);
    expect(problems).to.include('foo: is not a field of a grant');
    expect(problems).to.include('funder: is required');
    expect(problems).to.have.length(6);
  });

  it('reports a date that does not exist together with the other problems', () => {
    const problems = problemsOf({
      ...good,
      deadline: '2026-12-31T23:59:60Z',
      currency: 'EUR',
      amountMin: 9,
      amountMax: 1,
    });
    expect(problems).to.have.members([
      'deadline: must be a date-time that exists (no leap second)',
      'currency: must be one of CAD, USD',
      'amountMin: must not exceed amountMax',
    ]);
  });

  it('does not compare amounts the schema already refused', () => {
    expect(problemsOf({ ...good, amountMin: -5, amountMax: -10 })).to.deep.equal([
      'amountMin: must be >= 0',
      'amountMax: must be >= 0',
    ]);
  });

  it('opensAt: a date-time kept in canonical form, null when absent, at or before the deadline', () => {
    const result = validateGrant({ ...good, opensAt: '2027-01-15T00:00:00-05:00', deadline: '2027-03-31T23:59:59Z' });
    expect(result.ok && result.grant.opensAt).to.equal('2027-01-15T05:00:00.000Z');
    expect(result.ok && Object.keys(result.grant).indexOf('opensAt')).to.equal(
      Object.keys(result.ok ? result.grant : {}).indexOf('deadline') - 1,
    );
    const absent = validateGrant(good);
    expect(absent.ok && absent.grant.opensAt).to.equal(null);
    // Opening the very instant applications close is allowed; a rolling grant may open any time.
    expect(validateGrant({ ...good, opensAt: '2027-03-31T23:59:59Z', deadline: '2027-03-31T23:59:59Z' }).ok).to.equal(
      true,
    );
    expect(validateGrant({ ...good, opensAt: '2030-01-01T00:00:00Z' }).ok).to.equal(true);
  });

  it('opensAt: after the deadline, not a date-time, or not a day that exists, each reported', () => {
    expect(problemsOf({ ...good, opensAt: '2027-04-01T00:00:00Z', deadline: '2027-03-31T23:59:59Z' })).to.deep.equal([
      'opensAt: must not be after deadline',
    ]);
    expect(problemsOf({ ...good, opensAt: '2027-01-15' })).to.deep.equal(['opensAt: must match format "date-time"']);
    expect(problemsOf({ ...good, opensAt: '2027-02-30T00:00:00Z', deadline: '2027-01-01T00:00:00Z' })).to.have.length(
      1,
    );
    expect(problemsOf({ ...good, opensAt: 20270115 })).to.deep.equal(['opensAt: must be string']);
  });

  it('status is derived: a record may carry it (an export loads back) and it is not kept; an unknown value is refused', () => {
    const result = validateGrant({ ...good, status: 'OPEN' });
    expect(result.ok && 'status' in result.grant).to.equal(false);
    expect(problemsOf({ ...good, status: 'ARCHIVED' })).to.deep.equal([
      'status: must be one of FORECASTED, OPEN, CLOSED',
    ]);
  });
});
