// A grant's status at a time, and the served JSON text that carries it (grants/lifecycle.ts).
import { expect } from 'chai';
import { grantStatus, servedGrantJson, statusAt } from '../../src/grants/lifecycle.js';

const T = Date.parse('2026-06-15T12:00:00.000Z');

describe('grant lifecycle: status at a time', () => {
  it('FORECASTED before opensAt, OPEN from opensAt to the deadline inclusive, CLOSED after it', () => {
    expect(statusAt(T + 1, T + 10, T)).to.equal('FORECASTED');
    expect(statusAt(T, T + 10, T)).to.equal('OPEN');
    expect(statusAt(T - 5, T, T)).to.equal('OPEN');
    expect(statusAt(T - 5, T - 1, T)).to.equal('CLOSED');
    expect(statusAt(null, null, T)).to.equal('OPEN');
    expect(statusAt(null, T - 1, T)).to.equal('CLOSED');
    expect(statusAt(T + 1, null, T)).to.equal('FORECASTED');
  });

  it('from ISO dates, an absent opensAt (a document stored before the field) read as null', () => {
    expect(grantStatus({ opensAt: '2026-06-15T12:00:00.001Z', deadline: null }, T)).to.equal('FORECASTED');
    expect(grantStatus({ deadline: '2026-06-15T11:59:59.999Z' } as never, T)).to.equal('CLOSED');
  });
});

describe('grant lifecycle: the served JSON text', () => {
  it('adds the status last, the rest of the text byte for byte', () => {
    const stored =
      '{"id":"a","description":"x","opensAt":"2026-06-15T13:00:00.000Z",' +
      '"deadline":"2026-07-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}';
    expect(servedGrantJson(stored, T)).to.equal(`${stored.slice(0, -1)},"status":"FORECASTED"}`);
    expect(JSON.parse(servedGrantJson(stored, Date.parse('2026-06-15T13:00:00.000Z'))).status).to.equal('OPEN');
  });

  it('reads the dates themselves, never text that looks like them inside a string', () => {
    const description =
      'Note: ,"deadline":"2000-01-01T00:00:00.000Z" and ,"opensAt":"2999-01-01T00:00:00.000Z" in the text';
    const stored = JSON.stringify({
      id: 'a',
      description,
      opensAt: null,
      deadline: '2030-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(JSON.parse(servedGrantJson(stored, T))).to.deep.equal({ ...JSON.parse(stored), status: 'OPEN' });
  });

  it('a document stored before grants had opensAt gains "opensAt":null before deadline', () => {
    const stored = '{"id":"a","currency":"CAD","deadline":"2026-01-01T00:00:00.000Z","applicationUrl":null}';
    const served = servedGrantJson(stored, T);
    expect(served).to.equal(
      '{"id":"a","currency":"CAD","opensAt":null,"deadline":"2026-01-01T00:00:00.000Z",' +
        '"applicationUrl":null,"status":"CLOSED"}',
    );
  });
});
