// The monthly counts an instance remembers (src/subscriptions/allowanceCountsSeen.ts): raised, never
// lowered; only the latest two months kept, so a process running for years over many
// subscriptions holds at most two months of them.
import { expect } from 'chai';
import { SeenMonthlyCounts } from '../../src/subscriptions/allowanceCountsSeen.js';

describe('SeenMonthlyCounts: the highest count seen per subscription and month, bounded', function () {
  it('keeps the highest count seen (zero included), never a lower one', function () {
    const seen = new SeenMonthlyCounts();
    expect(seen.get('sub_a', '2026-11')).to.equal(undefined);
    expect(seen.see('sub_a', '2026-11', 0)).to.equal(0);
    expect(seen.get('sub_a', '2026-11')).to.equal(0);
    seen.see('sub_a', '2026-11', 7);
    expect(seen.see('sub_a', '2026-11', 5), 'returns what it was given').to.equal(5);
    expect(seen.get('sub_a', '2026-11')).to.equal(7);
    expect(seen.get('sub_b', '2026-11')).to.equal(undefined);
  });

  it('keeps the latest two months: three years of months over 1,000 subscriptions hold 2,000 counts', function () {
    const seen = new SeenMonthlyCounts();
    const months = Array.from(
      { length: 36 },
      (_, i) => `${2024 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`,
    );
    for (const month of months) for (let s = 0; s < 1000; s += 1) seen.see(`sub_${s}`, month, s);
    expect(seen.size).to.equal(2000);
    expect(seen.get('sub_5', '2026-12')).to.equal(5);
    expect(seen.get('sub_5', '2026-11'), 'the month before, for requests across midnight').to.equal(5);
    expect(seen.get('sub_5', '2026-10')).to.equal(undefined);
  });

  it('ignores a month older than both kept, and keeps the previous month when it comes late', function () {
    const seen = new SeenMonthlyCounts();
    seen.see('sub_a', '2026-12', 3);
    seen.see('sub_a', '2026-11', 9); // a request that began before midnight, answered after
    expect(seen.get('sub_a', '2026-11')).to.equal(9);
    seen.see('sub_a', '2026-10', 4);
    expect(seen.get('sub_a', '2026-10')).to.equal(undefined);
    expect(seen.size).to.equal(2);
    seen.see('sub_a', '2027-01', 1);
    expect(seen.get('sub_a', '2026-11')).to.equal(undefined);
    expect(seen.get('sub_a', '2026-12')).to.equal(3);
  });
});
