// The relevance bench's metrics against values worked out by hand.
import { expect } from 'chai';
import { ndcgAt, recallAt, reciprocalRankAt, scoreQuery, summarise } from '../relevance/metrics.js';
import { searchParameters } from '../relevance/systems.js';

const rel = (...ids: string[]): Set<string> => new Set(ids);
const close = (actual: number, expected: number): void => {
  expect(actual).to.be.closeTo(expected, 1e-9);
};

describe('relevance metrics', () => {
  describe('nDCG@10 (binary gains)', () => {
    it('is 1 for an ideal ranking and 0 when nothing relevant is returned', () => {
      close(ndcgAt(['a', 'b', 'x'], rel('a', 'b')), 1);
      close(ndcgAt(['x', 'y'], rel('a')), 0);
      close(ndcgAt([], rel('a')), 0);
    });

    it('discounts by log2(place + 1)', () => {
      // relevant at places 2 and 4: DCG = 1/log2(3) + 1/log2(5) = 0.630930 + 0.430677 = 1.061606
      // ideal, 2 relevant: 1 + 1/log2(3) = 1.630930; nDCG = 0.650921
      close(
        ndcgAt(['x', 'a', 'y', 'b'], rel('a', 'b')),
        (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)),
      );
      expect(ndcgAt(['x', 'a', 'y', 'b'], rel('a', 'b'))).to.be.closeTo(0.650921, 1e-6);
      // one relevant id at place 3: (1/log2(4)) / 1 = 0.5
      close(ndcgAt(['x', 'y', 'a'], rel('a')), 0.5);
    });

    it('caps the ideal at 10 places when more than 10 ids are judged relevant', () => {
      const judged = rel(...Array.from({ length: 15 }, (_, i) => `r${i}`));
      close(
        ndcgAt(
          Array.from({ length: 10 }, (_, i) => `r${i}`),
          judged,
        ),
        1,
      );
      // one relevant at place 1 of 15 judged: 1 / IDCG(10) = 1 / 4.543559 = 0.220092
      expect(ndcgAt(['r0'], judged)).to.be.closeTo(0.220092, 1e-6);
    });

    it('ignores places after the 10th and counts a repeated id once', () => {
      close(ndcgAt([...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'], rel('a')), 0);
      // ['a', 'a', 'b']: a at 1, b at 2 (the repeat dropped): ideal for 2 relevant = 1
      close(ndcgAt(['a', 'a', 'b'], rel('a', 'b')), 1);
    });

    it('is 0 when nothing is judged relevant', () => {
      close(ndcgAt(['a'], rel()), 0);
    });
  });

  describe('recall@10', () => {
    it('is the share of the judged ids in the first 10 places', () => {
      close(recallAt(['a', 'x', 'b'], rel('a', 'b', 'c', 'd')), 0.5);
      close(recallAt(['x'], rel('a')), 0);
      // 12 judged, 10 of them on the page: 10/12
      const judged = rel(...Array.from({ length: 12 }, (_, i) => `r${i}`));
      close(
        recallAt(
          Array.from({ length: 12 }, (_, i) => `r${i}`),
          judged,
        ),
        10 / 12,
      );
    });
  });

  describe('reciprocal rank@10', () => {
    it('is 1 over the place of the first relevant id, 0 past the 10th place', () => {
      close(reciprocalRankAt(['a'], rel('a')), 1);
      close(reciprocalRankAt(['x', 'y', 'z', 'a', 'b'], rel('a', 'b')), 0.25);
      close(reciprocalRankAt([...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'], rel('a')), 0);
    });
  });

  describe('summaries', () => {
    it('averages each metric and counts the queries that matched nothing', () => {
      const scores = [
        scoreQuery({ ranked: ['a', 'b'], total: 2 }, rel('a', 'b')), // nDCG 1, recall 1, RR 1
        // nDCG (1/log2 3)/(1 + 1/log2 3), recall 0.5, RR 0.5
        scoreQuery({ ranked: ['x', 'a'], total: 7 }, rel('a', 'c')),
        scoreQuery({ ranked: [], total: 0 }, rel('a')), // all 0, no result
      ];
      const summary = summarise(scores);
      expect(summary.queries).to.equal(3);
      expect(summary.noResult).to.equal(1);
      // (1 + 0.630930 / 1.630930 + 0) / 3 = (1 + 0.386853) / 3
      expect(summary.ndcg).to.be.closeTo(0.462284, 1e-6);
      close(summary.recall, 0.5);
      close(summary.mrr, 0.5);
    });

    it('is all zero over no query', () => {
      expect(summarise([])).to.deep.equal({ queries: 0, ndcg: 0, recall: 0, mrr: 0, noResult: 0 });
    });
  });

  describe('the search parameters of a judged query', () => {
    it('asks the first page of ids, with the mode parameters after', () => {
      expect(searchParameters('R&D tax "credit"', { name: 'default', params: '' })).to.equal(
        'search=R%26D+tax+%22credit%22&limit=10&fields=id',
      );
      expect(searchParameters('brodband', { name: 'x', params: 'typos=auto&matching=frequency' })).to.equal(
        'search=brodband&limit=10&fields=id&typos=auto&matching=frequency',
      );
    });
  });
});
