// The catalog's filter and sort fields held in memory, column by column, as search engines keep
// doc values: one bit set per enum value, one Float64Array per date or amount (NaN for null) and
// one order per sort key and direction. Positions 0 … size − 1 are the grants in id order, so "ties
// by id" is "ties by position". Built from one read snapshot of the catalog and never changed: a
// new catalog gets a new CatalogColumns. Every array can live in shared memory (shareColumns), so
// the search workers of one process hold one copy, loaded once (sharedIndex.ts). A CatalogColumns
// is data only: reading it (readColumns) is the one place that touches the catalog.
import { FACET_VALUES, STORED_FACET_NAMES, type SortKey, type StoredFacetName } from '../../../grants/query.js';
import { titleSortKey } from '../../../grants/folding.js';
import { emptyBits, setBit, type Bits } from './bitset.js';
import type { Db } from '../storage/catalogFile.js';

export type NumericKey = Exclude<SortKey, 'relevance' | 'title'>;
export type OrderKey = Exclude<SortKey, 'relevance'>;

const NUMERIC_KEYS: readonly NumericKey[] = ['deadline', 'opensAt', 'amountMin', 'amountMax', 'createdAt', 'updatedAt'];

// Fields the table has no column for are read from the stored document (json_extract parses each
// document once per row: SQLite keeps the last parse). Read raw, in table order.
const LOAD_SQL = `SELECT rowid, funder_type, funding_type, currency, provinces, beneficiaries, amount_min, amount_max,
  deadline, updated_at,
  json_extract(doc, '$.createdAt'), json_extract(doc, '$.title'), json_extract(doc, '$.sdgAlignment'),
  json_extract(doc, '$.applicationComplexity'), json_extract(doc, '$.isRecurring'), json_extract(doc, '$.opensAt')
  FROM grants`;
type LoadRow = [
  number,
  string,
  string,
  string,
  number,
  number,
  number | null,
  number | null,
  string | null,
  string,
  string,
  string,
  string,
  string | null,
  number | null,
  string | null,
];

/** Read from the id index alone (it holds each rowid): no table page is read. */
const ROWIDS_BY_ID_SQL = 'SELECT rowid FROM grants ORDER BY id';

const epochOrNaN = (iso: string | null): number => (iso === null ? Number.NaN : Date.parse(iso));
const numberOrNaN = (value: number | null): number => (value === null ? Number.NaN : value);

/**
 * Compares two strings by Unicode code point (UTF-8 byte order), which `<` on JavaScript strings
 * (UTF-16 code units) gets wrong only where a surrogate meets a code unit from U+E000 up.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (astral code points) belong above U+E000 … U+FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** A sort order: positions in order, and each position's place in it (for sorting a few matches). */
export interface SortOrder {
  positions: Int32Array;
  rank: Int32Array;
}

type ValueMasks = Uint8Array | Uint16Array | Uint32Array;

/** An array of `size` masks of `values` bits each. */
const masksFor = (values: number, size: number): ValueMasks =>
  values <= 8 ? new Uint8Array(size) : values <= 16 ? new Uint16Array(size) : new Uint32Array(size);

/** Everything a CatalogColumns holds, as typed arrays (in shared memory once shareColumns copied them). */
export interface ColumnsData {
  size: number;
  rowids: Float64Array;
  positionByRowid: Int32Array;
  /** Per stored facet, one bit set per value of FACET_VALUES. */
  valueBits: Record<StoredFacetName, Bits[]>;
  /**
   * Per facet, each position's values as a mask (bit i: FACET_VALUES[facet][i]; every facet has at
   * most 32), in the narrowest array that holds them: counting reads them in random order, and
   * fewer bytes stay in the cache.
   */
  valueMasks: Record<StoredFacetName, ValueMasks>;
  numbers: Record<NumericKey, Float64Array>;
  /** Per `${key}:${descending}`, every order. */
  orders: Record<string, SortOrder>;
}

const orderName = (key: OrderKey, descending: boolean): string => `${key}:${descending}`;

function withRank(positions: Int32Array): SortOrder {
  const rank = new Int32Array(positions.length);
  for (let i = 0; i < positions.length; i++) rank[positions[i]] = i;
  return { positions, rank };
}

/**
 * The positions whose value is a number, ordered by value ascending, ties by position: a stable
 * least-significant-digit radix sort over the IEEE 754 bits made to sort as unsigned integers
 * (four passes of 16 bits), linear where a comparison sort of a million values takes seconds.
 */
export function ascendingByNumber(values: Float64Array): Int32Array {
  let count = 0;
  for (let p = 0; p < values.length; p++) if (values[p] === values[p]) count++;
  const high = new Uint32Array(count);
  const low = new Uint32Array(count);
  const from = new Int32Array(count);
  const scratch = new Float64Array(1);
  const bits = new Uint32Array(scratch.buffer);
  for (let p = 0, i = 0; p < values.length; p++) {
    const value = values[p];
    if (value !== value) continue;
    scratch[0] = value === 0 ? 0 : value; // −0 sorts as +0
    const negative = bits[1] >>> 31 === 1;
    high[i] = negative ? ~bits[1] >>> 0 : (bits[1] | 0x80000000) >>> 0;
    low[i] = negative ? ~bits[0] >>> 0 : bits[0];
    from[i++] = p;
  }
  // `from` holds indexes into values in order; each pass reorders by one 16-bit digit, stably.
  let keyIndex = Int32Array.from({ length: count }, (_, i) => i);
  let next = new Int32Array(count);
  const counts = new Int32Array(65537);
  for (const [words, shift] of [
    [low, 0],
    [low, 16],
    [high, 0],
    [high, 16],
  ] as const) {
    counts.fill(0);
    for (let i = 0; i < count; i++) counts[((words[keyIndex[i]] >>> shift) & 0xffff) + 1]++;
    for (let d = 0; d < 65536; d++) counts[d + 1] += counts[d];
    for (let i = 0; i < count; i++) next[counts[(words[keyIndex[i]] >>> shift) & 0xffff]++] = keyIndex[i];
    [keyIndex, next] = [next, keyIndex];
  }
  const positions = new Int32Array(count);
  for (let i = 0; i < count; i++) positions[i] = from[keyIndex[i]];
  return positions;
}

/** Positions ordered by the key ascending, nulls last, ties by position. */
function ascendingOrder(values: Float64Array): Int32Array {
  const present = ascendingByNumber(values);
  const positions = new Int32Array(values.length);
  positions.set(present);
  let next = present.length;
  for (let p = 0; p < values.length; p++) if (values[p] !== values[p]) positions[next++] = p;
  return positions;
}

/**
 * The descending order from the ascending one in linear time: the non-null part reversed, then
 * each run of equal keys reversed back so ties stay in ascending position.
 */
function descendingOrder(
  ascending: Int32Array,
  present: number,
  sameKey: (a: number, b: number) => boolean,
): Int32Array {
  const positions = ascending.slice();
  positions.subarray(0, present).reverse();
  for (let start = 0; start < present;) {
    let end = start + 1;
    while (end < present && sameKey(positions[start], positions[end])) end += 1;
    if (end - start > 1) positions.subarray(start, end).reverse();
    start = end;
  }
  return positions;
}

/** Both orders of every sort key. `titleKeys` are the folded titles by position. */
function allOrders(numbers: Record<NumericKey, Float64Array>, titleKeys: string[]): Record<string, SortOrder> {
  const orders: Record<string, SortOrder> = {};
  for (const key of NUMERIC_KEYS) {
    const values = numbers[key];
    const ascending = ascendingOrder(values);
    let present = ascending.length;
    while (present > 0 && Number.isNaN(values[ascending[present - 1]])) present -= 1;
    orders[orderName(key, false)] = withRank(ascending);
    orders[orderName(key, true)] = withRank(descendingOrder(ascending, present, (a, b) => values[a] === values[b]));
  }
  const ascending = Int32Array.from({ length: titleKeys.length }, (_, i) => i).sort(
    (a, b) => compareCodePoints(titleKeys[a], titleKeys[b]) || a - b,
  );
  orders[orderName('title', false)] = withRank(ascending);
  orders[orderName('title', true)] = withRank(
    descendingOrder(ascending, ascending.length, (a, b) => titleKeys[a] === titleKeys[b]),
  );
  return orders;
}

/** The same data with every typed array copied into shared memory (SharedArrayBuffer), for other threads. */
export function shareColumns(data: ColumnsData): ColumnsData {
  const valueBits = {} as ColumnsData['valueBits'];
  const valueMasks = {} as ColumnsData['valueMasks'];
  for (const name of STORED_FACET_NAMES) {
    valueBits[name] = data.valueBits[name].map(shared);
    valueMasks[name] = shared(data.valueMasks[name]);
  }
  const numbers = {} as ColumnsData['numbers'];
  for (const key of NUMERIC_KEYS) numbers[key] = shared(data.numbers[key]);
  const orders: Record<string, SortOrder> = {};
  for (const [name, order] of Object.entries(data.orders))
    orders[name] = { positions: shared(order.positions), rank: shared(order.rank) };
  return {
    size: data.size,
    rowids: shared(data.rowids),
    positionByRowid: shared(data.positionByRowid),
    valueBits,
    valueMasks,
    numbers,
    orders,
  };
}

type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

/** A copy of the array in a SharedArrayBuffer (the array itself when it is there already). */
export function shared<T extends TypedArray>(array: T): T {
  if (array.buffer instanceof SharedArrayBuffer) return array;
  const Kind = array.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Kind(new SharedArrayBuffer(array.byteLength));
  copy.set(array as never);
  return copy;
}

export class CatalogColumns {
  readonly size: number;
  readonly rowids: Float64Array;
  /** Per stored facet, one bit set per value of FACET_VALUES. */
  readonly valueBits: Record<StoredFacetName, Bits[]>;
  /** Per stored facet, each position's values as a mask. */
  readonly valueMasks: Record<StoredFacetName, ValueMasks>;
  readonly numbers: Record<NumericKey, Float64Array>;
  private readonly positionByRowid: Int32Array;
  private readonly orders: Record<string, SortOrder>;

  constructor(readonly data: ColumnsData) {
    this.size = data.size;
    this.rowids = data.rowids;
    this.valueBits = data.valueBits;
    this.valueMasks = data.valueMasks;
    this.numbers = data.numbers;
    this.positionByRowid = data.positionByRowid;
    this.orders = data.orders;
  }

  /**
   * Reads the columns of the catalog the connection's current transaction sees: in table order
   * (a walk of the id index would read the rows in random order), then placed in id order.
   */
  static load(db: Db): CatalogColumns {
    return new CatalogColumns(readColumns(db));
  }

  /** The position of a table rowid, or −1 when the catalog these columns hold has no such row. */
  positionOf(rowid: number): number {
    return rowid < this.positionByRowid.length ? this.positionByRowid[rowid] : -1;
  }

  /** Positions ordered by the key, nulls last in both directions, ties by position (id) ascending. */
  order(key: OrderKey, descending: boolean): SortOrder {
    return this.orders[orderName(key, descending)];
  }

  /** A position's value of a numeric sort key as the orders compare it (null for null). */
  numberOf(key: NumericKey, position: number): number | null {
    const value = this.numbers[key][position];
    return Number.isNaN(value) ? null : value;
  }
}

/** The columns of the connection's current snapshot, every order built. */
export function readColumns(db: Db): ColumnsData {
  // Positions are in id order: the id index gives the rowids in that order without reading the table.
  const rowids = Float64Array.from(db.prepare(ROWIDS_BY_ID_SQL).pluck().all() as number[]);
  const size = rowids.length;
  let maxRowid = 0;
  for (let p = 0; p < size; p++) if (rowids[p] > maxRowid) maxRowid = rowids[p];
  const positionByRowid = new Int32Array(maxRowid + 1).fill(-1);
  for (let p = 0; p < size; p++) positionByRowid[rowids[p]] = p;
  const numbers: Record<NumericKey, Float64Array> = {
    deadline: new Float64Array(size),
    opensAt: new Float64Array(size),
    amountMin: new Float64Array(size),
    amountMax: new Float64Array(size),
    createdAt: new Float64Array(size),
    updatedAt: new Float64Array(size),
  };
  const titleKeys = new Array<string>(size).fill('');
  const valueBits = {} as Record<StoredFacetName, Bits[]>;
  const valueMasks = {} as Record<StoredFacetName, ValueMasks>;
  const index = {} as Record<StoredFacetName, Map<string, number>>;
  for (const name of STORED_FACET_NAMES) {
    valueBits[name] = FACET_VALUES[name].map(() => emptyBits(size));
    valueMasks[name] = masksFor(FACET_VALUES[name].length, size);
    index[name] = new Map(FACET_VALUES[name].map((value, i) => [value, i]));
  }
  const mark = (name: StoredFacetName, value: string, position: number) => {
    const i = index[name].get(value);
    if (i === undefined) return;
    setBit(valueBits[name][i], position);
    valueMasks[name][position] |= 1 << i;
  };
  const markMask = (name: StoredFacetName, mask: number, position: number) => {
    valueMasks[name][position] = mask >>> 0;
    for (let i = 0; mask !== 0; i++, mask >>>= 1) if ((mask & 1) !== 0) setBit(valueBits[name][i], position);
  };
  // Then the table in its own order (sequential reads), each row placed at its position.
  for (const row of db.prepare(LOAD_SQL).raw().iterate() as Iterable<LoadRow>) {
    const [
      rowid,
      funderType,
      fundingType,
      currency,
      provinces,
      beneficiaries,
      amountMin,
      amountMax,
      deadline,
      updatedAt,
      createdAt,
      title,
      sdgs,
      complexity,
      recurring,
      opensAt,
    ] = row;
    const p = positionByRowid[rowid];
    titleKeys[p] = titleSortKey(title);
    numbers.deadline[p] = epochOrNaN(deadline);
    numbers.opensAt[p] = epochOrNaN(opensAt);
    numbers.amountMin[p] = numberOrNaN(amountMin);
    numbers.amountMax[p] = numberOrNaN(amountMax);
    numbers.createdAt[p] = epochOrNaN(createdAt);
    numbers.updatedAt[p] = epochOrNaN(updatedAt);
    mark('funderType', funderType, p);
    mark('fundingType', fundingType, p);
    mark('currency', currency, p);
    markMask('eligibleProvinces', provinces, p);
    markMask('targetBeneficiaries', beneficiaries, p);
    for (const sdg of JSON.parse(sdgs) as string[]) mark('sdgAlignment', sdg, p);
    if (complexity !== null) mark('applicationComplexity', complexity, p);
    if (recurring !== null) mark('isRecurring', recurring === 0 ? 'false' : 'true', p);
  }
  return { size, rowids, positionByRowid, valueBits, valueMasks, numbers, orders: allOrders(numbers, titleKeys) };
}
