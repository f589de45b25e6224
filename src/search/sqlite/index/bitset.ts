// Fixed-size bit sets over catalog positions (0 … size − 1), 32 positions to a word. The bits of
// the last word past `size` are always zero, so counts and ANDs never see positions that do not exist.

export type Bits = Uint32Array;

export const wordsFor = (size: number): number => (size + 31) >>> 5;

export const emptyBits = (size: number): Bits => new Uint32Array(wordsFor(size));

/** Every position of 0 … size − 1. */
export function fullBits(size: number): Bits {
  const bits = new Uint32Array(wordsFor(size)).fill(0xffffffff);
  const tail = size & 31;
  if (tail !== 0) bits[bits.length - 1] = (1 << tail) - 1;
  return bits;
}

export const setBit = (bits: Bits, position: number): void => {
  bits[position >>> 5] |= 1 << (position & 31);
};

export const hasBit = (bits: Bits, position: number): boolean => (bits[position >>> 5] & (1 << (position & 31))) !== 0;

/** The bit set of `positions` (each below `size`). */
export function bitsOf(positions: ArrayLike<number>, size: number): Bits {
  const bits = emptyBits(size);
  for (let i = 0; i < positions.length; i++) setBit(bits, positions[i]);
  return bits;
}

/**
 * Whether `count` of `size` positions are held in fewer bytes as a bit set (a word for 32
 * positions) than as a list (a word each): more than one in 32. A set that dense is also tested
 * position by position in one step rather than searched in its list.
 */
export const denserThanList = (count: number, size: number): boolean => count * 32 > size;

/** Number of set bits of one word (the classic SWAR count). */
export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * The number of set positions: countAnd's carry-save count of the set with itself (faster than a count of each word at
 * any density: 8–10 µs against 11–17 at 100,000 grants).
 */
export const countBits = (bits: Bits): number => countAnd(bits, bits);

/**
 * |a ∧ b| without building the intersection. Eight words at a time through carry-save adders
 * (Harley and Seal's count: each adder takes three words of equal weight and gives their sum as a
 * word of twice the weight and one of the same weight), so that one word of weight 8 is counted
 * for every eight words, then the leftover ones, twos and fours, then the last words one by one.
 * About twice as fast as a count of each word (test/bench/facetCount.ts); the facets' count by
 * value bits (collect/facets.ts) spends its time here.
 */
export function countAnd(a: Bits, b: Bits): number {
  const end = a.length - (a.length & 7);
  let ones = 0;
  let twos = 0;
  let fours = 0;
  let eights = 0;
  for (let i = 0; i < end; i += 8) {
    // (high, low) = x + y + ones, written out: u = ones ^ x; high = (ones & x) | (u & y); low = u ^ y.
    let x = a[i] & b[i];
    let y = a[i + 1] & b[i + 1];
    let u = ones ^ x;
    let twosA = (ones & x) | (u & y);
    ones = u ^ y;
    x = a[i + 2] & b[i + 2];
    y = a[i + 3] & b[i + 3];
    u = ones ^ x;
    let twosB = (ones & x) | (u & y);
    ones = u ^ y;
    u = twos ^ twosA;
    const foursA = (twos & twosA) | (u & twosB);
    twos = u ^ twosB;
    x = a[i + 4] & b[i + 4];
    y = a[i + 5] & b[i + 5];
    u = ones ^ x;
    twosA = (ones & x) | (u & y);
    ones = u ^ y;
    x = a[i + 6] & b[i + 6];
    y = a[i + 7] & b[i + 7];
    u = ones ^ x;
    twosB = (ones & x) | (u & y);
    ones = u ^ y;
    u = twos ^ twosA;
    const foursB = (twos & twosA) | (u & twosB);
    twos = u ^ twosB;
    u = fours ^ foursA;
    eights += popcount32((fours & foursA) | (u & foursB));
    fours = u ^ foursB;
  }
  let count = 8 * eights + 4 * popcount32(fours) + 2 * popcount32(twos) + popcount32(ones);
  for (let i = end; i < a.length; i++) count += popcount32(a[i] & b[i]);
  return count;
}

/** a := a ∧ b. */
export function andInto(a: Bits, b: Bits): Bits {
  for (let i = 0; i < a.length; i++) a[i] &= b[i];
  return a;
}

/** a := a ∨ b. */
function orInto(a: Bits, b: Bits): Bits {
  for (let i = 0; i < a.length; i++) a[i] |= b[i];
  return a;
}

/** The intersection of the sets (a new set; every position when there are none). */
export function intersection(sets: readonly Bits[], size: number): Bits {
  if (sets.length === 0) return fullBits(size);
  const result = sets[0].slice();
  for (let i = 1; i < sets.length; i++) andInto(result, sets[i]);
  return result;
}

/** The union of the sets (a new set). */
export function union(sets: readonly Bits[], size: number): Bits {
  const result = emptyBits(size);
  for (const set of sets) orInto(result, set);
  return result;
}

/** The set positions in ascending order (`count`: how many are set, when the caller knows). */
export function positionsOf(bits: Bits, count = countBits(bits)): Int32Array {
  const positions = new Int32Array(count);
  let next = 0;
  for (let i = 0; i < bits.length; i++) {
    let word = bits[i];
    while (word !== 0) {
      const low = word & -word;
      positions[next++] = (i << 5) + (31 - Math.clz32(low));
      word ^= low;
    }
  }
  return positions;
}
