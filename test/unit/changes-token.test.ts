// The changes feed's since token (src/search/changes.ts): its codec and its check against a log's state.
import { expect } from 'chai';
import { InvalidInputError, SyncExpiredError } from '../../src/failures.js';
import { checkSince, decodeSince, encodeSince, MAX_SINCE_LENGTH, newChangeLogId } from '../../src/search/changes.js';

describe('changes feed: the since token', function () {
  const log = newChangeLogId();

  it('round-trips a position, URL-safe and bounded; "0" is the beginning', function () {
    for (const seq of [1, 42, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      const token = encodeSince(log, seq);
      expect(token).to.match(/^[A-Za-z0-9_-]+$/);
      expect(token.length).to.be.at.most(MAX_SINCE_LENGTH);
      expect(decodeSince(token)).to.deep.equal({ log, seq });
    }
    expect(decodeSince('0')).to.equal(null);
    expect(newChangeLogId()).to.not.equal(log);
  });

  it('refuses anything it did not make, as invalid input on "since"', function () {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = encodeSince(log, 7);
    const bad = [
      '',
      '00',
      '-1',
      'abc',
      `${token}=`,
      `${token}A`,
      'A'.repeat(MAX_SINCE_LENGTH + 1),
      Buffer.from('not json').toString('base64url'),
      forged([1, log, 7]),
      forged(null),
      forged({ v: 2, l: log, s: 7 }),
      forged({ v: 1, l: 'UPPER', s: 7 }),
      forged({ v: 1, l: log, s: 0 }),
      forged({ v: 1, l: log, s: '7' }),
      forged({ v: 1, l: log, s: 2 ** 60 }),
      forged({ v: 1, l: log, s: 7, extra: true }),
      forged({ s: 7, l: log, v: 1 }),
    ];
    for (const text of bad) {
      const thrown = (() => {
        try {
          decodeSince(text);
        } catch (error) {
          return error;
        }
        return null;
      })();
      expect(thrown, JSON.stringify(text)).to.be.instanceOf(InvalidInputError);
      expect((thrown as InvalidInputError).details[0].parameter).to.equal('since');
    }
  });

  it('checks a position against the log: another log or below the horizon is expired, beyond the counter is unknown', function () {
    const state = { log, counter: 100, horizon: 40 };
    expect(() => checkSince(null, { log: null, counter: 0, horizon: 0 })).to.not.throw();
    expect(() => checkSince({ log, seq: 40 }, state)).to.not.throw();
    expect(() => checkSince({ log, seq: 100 }, state)).to.not.throw();
    expect(() => checkSince({ log, seq: 39 }, state)).to.throw(SyncExpiredError);
    expect(() => checkSince({ log: 'other', seq: 50 }, state)).to.throw(SyncExpiredError);
    expect(() => checkSince({ log, seq: 50 }, { log: null, counter: 0, horizon: 0 })).to.throw(SyncExpiredError);
    expect(() => checkSince({ log, seq: 101 }, state)).to.throw(InvalidInputError);
  });
});
