// The restriction rules of src/subscriptions/keyRestrictions.ts on exact outputs: reading input,
// address ranges, and "at most the calling key's rights".
import { expect } from 'chai';
import {
  checkRestrictions,
  inRanges,
  isExpired,
  isWithin,
  NO_RESTRICTIONS,
  normalCidr,
  restrictionsFromColumn,
  restrictionsToColumn,
  withinCaller,
  type KeyRestrictions,
} from '../../src/subscriptions/keyRestrictions.js';

const NOW = new Date('2026-11-25T12:00:00.000Z');
const r = (over: Partial<KeyRestrictions>): KeyRestrictions => ({ ...NO_RESTRICTIONS, ...over });

describe('unit: key restrictions', () => {
  it('reads a restriction input: scopes in their canonical order, origins exact, ranges normalised, expiry ahead, rate bounded', () => {
    const { restrictions, problems } = checkRestrictions(
      {
        scopes: ['keys:manage', 'grants:search', 'grants:search'],
        origins: ['https://a.example', 'http://localhost:8080'],
        ips: ['10.1.2.3/8', '2001:DB8::1', '192.0.2.7'],
        expiresAt: '2027-01-31T00:00:00+01:00',
        rateLimit: 5,
      },
      NOW,
    );
    expect(problems).to.deep.equal([]);
    expect(restrictions).to.deep.equal({
      scopes: ['grants:search', 'keys:manage'],
      origins: ['https://a.example', 'http://localhost:8080'],
      ips: ['10.0.0.0/8', '2001:db8::1/128', '192.0.2.7/32'],
      expiresAt: '2027-01-30T23:00:00.000Z',
      rateLimit: 5,
    });
    expect(checkRestrictions({}, NOW).restrictions).to.deep.equal(NO_RESTRICTIONS);
  });

  it('names every bad field', () => {
    const { problems } = checkRestrictions(
      {
        scopes: ['grants:all'],
        origins: ['https://a.example/', 'ftp://x', '*'],
        ips: ['1.2.3', '10.0.0.0/33', '::1/129'],
        expiresAt: '2026-11-25T11:00:00Z',
        rateLimit: 0,
      },
      NOW,
    );
    expect(problems.map((p) => p.parameter)).to.deep.equal(['scopes', 'origins', 'ips', 'expiresAt', 'rateLimit']);
    expect(checkRestrictions({ scopes: [] }, NOW).problems[0]).to.deep.equal({
      parameter: 'scopes',
      message: 'must be a list of 1 to 8 strings',
    });
    expect(checkRestrictions({ expiresAt: 'tomorrow' }, NOW).problems[0].message).to.match(/ISO 8601/);
    expect(checkRestrictions({ expiresAt: '2040-01-01T00:00:00Z' }, NOW).problems[0].message).to.equal(
      'must lie at most ten years ahead',
    );
    expect(
      checkRestrictions({ ips: Array.from({ length: 51 }, () => '10.0.0.1') }, NOW).problems[0].parameter,
    ).to.equal('ips');
  });

  it('ranges: IPv4, IPv6 and IPv4-mapped IPv6 addresses; anything else is outside', () => {
    expect(normalCidr('0.0.0.0/0')).to.equal('0.0.0.0/0');
    expect(normalCidr('10.0.0.1/24x')).to.equal(null);
    expect(inRanges('10.200.1.1', ['10.0.0.0/8'])).to.equal(true);
    expect(inRanges('::ffff:10.200.1.1', ['10.0.0.0/8'])).to.equal(true);
    expect(inRanges('11.0.0.1', ['10.0.0.0/8'])).to.equal(false);
    expect(inRanges('2001:db8:ff::1', ['2001:db8::/32'])).to.equal(true);
    expect(inRanges('2001:db9::1', ['2001:db8::/32'])).to.equal(false);
    expect(inRanges('10.0.0.1', ['2001:db8::/32'])).to.equal(false);
    expect(inRanges('garbage', ['0.0.0.0/0'])).to.equal(false);
  });

  it("a new key takes the caller's restriction where it names none, and may not ask more", () => {
    const caller = r({
      scopes: ['grants:search', 'keys:manage'],
      ips: ['10.0.0.0/8'],
      expiresAt: '2027-01-01T00:00:00.000Z',
      rateLimit: 10,
    });
    expect(withinCaller(NO_RESTRICTIONS, caller)).to.deep.equal({ restrictions: caller, wider: [] });
    const narrow = withinCaller(r({ scopes: ['grants:search'], ips: ['10.1.0.0/16'], rateLimit: 3 }), caller);
    expect(narrow.wider).to.deep.equal([]);
    expect(narrow.restrictions).to.deep.equal({
      ...caller,
      scopes: ['grants:search'],
      ips: ['10.1.0.0/16'],
      rateLimit: 3,
    });
    const wide = withinCaller(
      r({ scopes: ['grants:read'], ips: ['0.0.0.0/0'], expiresAt: '2028-01-01T00:00:00.000Z', rateLimit: 11 }),
      caller,
    );
    expect(wide.wider.map((w) => w.parameter)).to.deep.equal(['scopes', 'ips', 'expiresAt', 'rateLimit']);
    expect(
      withinCaller(r({ origins: ['https://b.example'] }), r({ origins: ['https://a.example'] })).wider.map(
        (w) => w.parameter,
      ),
    ).to.deep.equal(['origins']);
    // Anything is within an unrestricted caller.
    expect(
      withinCaller(r({ scopes: ['keys:manage'], origins: ['https://a.example'] }), NO_RESTRICTIONS).wider,
    ).to.deep.equal([]);
  });

  it('isWithin: a key with fewer limits than the caller (an unrestricted one, say) is mightier', () => {
    const caller = r({ scopes: ['grants:search', 'keys:manage'] });
    expect(isWithin(r({ scopes: ['grants:search'] }), caller)).to.equal(true);
    expect(isWithin(caller, caller)).to.equal(true);
    expect(isWithin(NO_RESTRICTIONS, caller)).to.equal(false);
    expect(isWithin(r({ scopes: ['grants:read'] }), caller)).to.equal(false);
    expect(isWithin(caller, NO_RESTRICTIONS)).to.equal(true);
    expect(isWithin(r({ scopes: ['grants:search'] }), r({ scopes: ['grants:search'], rateLimit: 2 }))).to.equal(false);
  });

  it('the stored column: none for an unrestricted key; unreadable JSON refuses every scope; expiry against the clock', () => {
    expect(restrictionsToColumn(NO_RESTRICTIONS)).to.equal(null);
    const stored = r({ origins: ['https://a.example'], rateLimit: 4 });
    expect(restrictionsFromColumn(restrictionsToColumn(stored))).to.deep.equal(stored);
    expect(restrictionsFromColumn(null)).to.deep.equal(NO_RESTRICTIONS);
    expect(restrictionsFromColumn('{not json').scopes).to.deep.equal([]);
    expect(isExpired(r({ expiresAt: '2026-11-25T12:00:00.000Z' }), NOW)).to.equal(true);
    expect(isExpired(r({ expiresAt: '2026-11-25T12:00:00.001Z' }), NOW)).to.equal(false);
    expect(isExpired(NO_RESTRICTIONS, NOW)).to.equal(false);
  });
});
