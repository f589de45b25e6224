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

/** Number of set bits of one word (the classic SWAR count). */
export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

export function countBits(bits: Bits): number {
  let count = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) count += popcount32(bits[i]);
  return count;
}

/** |a ∧ b| without building the intersection. */
export function countAnd(a: Bits, b: Bits): number {
  let count = 0;
  for (let i = 0; i < a.length; i++) {
    const word = a[i] & b[i];
    if (word !== 0) count += popcount32(word);
  }
  return count;
}

/** a := a ∧ b. */
export function andInto(a: Bits, b: Bits): Bits {
  for (let i = 0; i < a.length; i++) a[i] &= b[i];
  return a;
}

/** a := a ∨ b. */
export function orInto(a: Bits, b: Bits): Bits {
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

/** The set positions in ascending order. */
export function positionsOf(bits: Bits): Int32Array {
  const positions = new Int32Array(countBits(bits));
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
