// GetBatch: the reads of one event-loop turn become one fetch (at most maxBatch ids each), each
// caller gets its own answer, and a failure reaches exactly the reads it concerns.
import { expect } from 'chai';
import { GetBatch } from '../../src/search/elasticsearch/getBatch.js';

describe('GetBatch', () => {
  it('fetches the ids asked for in one turn together, in order, and answers each caller', async () => {
    const calls: string[][] = [];
    const batch = new GetBatch(async (ids) => {
      calls.push(ids);
      return ids.map((id) => (id.startsWith('known') ? `{"id":"${id}"}` : null));
    });
    const answers = await Promise.all(['known1', 'nope', 'known2', 'known1'].map((id) => batch.get(id)));
    expect(answers).to.deep.equal(['{"id":"known1"}', null, '{"id":"known2"}', '{"id":"known1"}']);
    expect(calls).to.deep.equal([['known1', 'nope', 'known2', 'known1']]);
    // A later turn is a new fetch.
    expect(await batch.get('known3')).to.equal('{"id":"known3"}');
    expect(calls).to.have.length(2);
  });

  it('splits a turn into fetches of at most maxBatch ids', async () => {
    const sizes: number[] = [];
    const batch = new GetBatch(async (ids) => {
      sizes.push(ids.length);
      return ids;
    }, 3);
    const ids = Array.from({ length: 7 }, (_, i) => `g${i}`);
    expect(await Promise.all(ids.map((id) => batch.get(id)))).to.deep.equal(ids);
    expect(sizes).to.deep.equal([3, 3, 1]);
  });

  it('a failed fetch rejects its reads; an error for one document rejects that read only', async () => {
    const down = new GetBatch(async () => {
      throw new Error('unreachable');
    });
    const failed = await Promise.allSettled([down.get('a'), down.get('b')]);
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);

    const partial = new GetBatch(async (ids) => ids.map((id) => (id === 'bad' ? new Error(`cannot read ${id}`) : id)));
    const settled = await Promise.allSettled([partial.get('a'), partial.get('bad'), partial.get('c')]);
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal([
      'a',
      'cannot read bad',
      'c',
    ]);
  });
});
