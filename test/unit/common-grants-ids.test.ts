// The opportunity's UUID of a grant id: version 5 of RFC 9562 in this API's namespace, computed
// here with node:crypto alone (independent of the uuid package the server uses), and pinned: a
// grant keeps its UUID for ever, so a change of namespace or of name must fail here.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  looksLikeUuid,
  OPPORTUNITY_UUID_NAMESPACE,
  opportunityUuid,
  statusAt,
  decimalString,
} from '../../src/grants/commonGrants.js';

/** RFC 9562 section 5.5: SHA-1 of the namespace's 16 bytes and the name's UTF-8, version 5, variant 10. */
function uuidV5(name: string, namespace: string): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(Buffer.from(name, 'utf8'))
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('unit: CommonGrants ids and values', () => {
  it('the UUID is version 5 of the grant id in the fixed namespace', () => {
    expect(OPPORTUNITY_UUID_NAMESPACE).to.equal('6f1c2c8e-3d4b-4f6a-9a57-0b8e2d7c5a11');
    for (const id of ['grt_fd5f6d22', 'g-1', 'grants-gov:12345', 'é-ü'])
      expect(opportunityUuid(id), id).to.equal(uuidV5(id, OPPORTUNITY_UUID_NAMESPACE));
    expect(opportunityUuid('grt_fd5f6d22')).to.equal('08fee291-23ad-5329-93a5-9c058b879545');
    expect(opportunityUuid('g-1')).to.not.equal(opportunityUuid('g-2'));
  });

  it('tells a UUID from a grant id', () => {
    expect(looksLikeUuid('08FEE291-23AD-5329-93A5-9C058B879545')).to.equal(true);
    expect(looksLikeUuid('grt_fd5f6d22')).to.equal(false);
    expect(looksLikeUuid('08fee291-23ad-5329-93a5-9c058b87954')).to.equal(false);
  });

  it('the status: forecasted before opensAt, closed only once the deadline has passed; amounts as decimal strings', () => {
    const now = Date.parse('2026-11-23T09:00:00.000Z');
    expect(statusAt({ opensAt: null, deadline: null }, now)).to.equal('open');
    expect(statusAt({ opensAt: null, deadline: '2026-11-23T09:00:00.000Z' }, now)).to.equal('open');
    expect(statusAt({ opensAt: null, deadline: '2026-11-23T08:59:59.999Z' }, now)).to.equal('closed');
    expect(statusAt({ opensAt: '2026-11-23T09:00:00.001Z', deadline: '2026-12-31T23:59:59.000Z' }, now)).to.equal(
      'forecasted',
    );
    expect(statusAt({ opensAt: '2026-11-23T09:00:00.000Z', deadline: null }, now)).to.equal('open');
    expect([1500, 0, 0.5, 1e13, 1e-7, 1234.56].map(decimalString)).to.deep.equal([
      '1500',
      '0',
      '0.5',
      '10000000000000',
      '0.0000001',
      '1234.56',
    ]);
  });
});
