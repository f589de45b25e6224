// The catalog's filter and sort fields held in memory, column by column, as search engines keep
// doc values: one bit set per enum value, one Float64Array per date or amount (NaN for null) and,
// built on first use, one order per sort key and direction. Positions 0 … size − 1 are the grants
// in id order, so "ties by id" is "ties by position". Built from one read snapshot of the catalog
// and never changed: a new catalog gets a new CatalogColumns (see SqliteSearchEngine).
import { FACET_NAMES, FACET_VALUES, type FacetName, type SortKey } from '../../grants/query.js';
import { titleSortKey } from '../../grants/folding.js';
import { emptyBits, setBit, type Bits } from './bitset.js';
import type { Db } from './catalogFile.js';


export type NumericKey = Exclude<SortKey, 'relevance' | 'title'>;

/** One row of the catalog as the columns read it (dates as ISO text, lists as bit masks or JSON). */
interface ColumnRow {
  rowid: number;
  id: string;
  funder_type: string;
  funding_type: string;
  currency: string;
  provinces: number;
  beneficiaries: number;
  amount_min: number | null;
  amount_max: number | null;
  deadline: string | null;
  updated_at: string;
  created_at: string;
  title: string;
  sdgs: string;
  complexity: string | null;
  recurring: number | null;
}

// Fields the table has no column for are read from the stored document (json_extract parses each
// document once per row: SQLite keeps the last parse).
const LOAD_SQL = `SELECT rowid, id, funder_type, funding_type, currency, provinces, beneficiaries, amount_min, amount_max, deadline, updated_at,
  json_extract(doc, '$.createdAt') AS created_at, json_extract(doc, '$.title') AS title, json_extract(doc, '$.sdgAlignment') AS sdgs,
  json_extract(doc, '$.applicationComplexity') AS complexity, json_extract(doc, '$.isRecurring') AS recurring
  FROM grants`;

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

function withRank(positions: Int32Array): SortOrder {
  const rank = new Int32Array(positions.length);
  for (let i = 0; i < positions.length; i++) rank[positions[i]] = i;
  return { positions, rank };
}

export class CatalogColumns {
  readonly size: number;
  readonly rowids: Float64Array;
  /** Per facet, one bit set per value of FACET_VALUES. */
  readonly valueBits: Record<FacetName, Bits[]>;
  readonly numbers: Record<NumericKey, Float64Array>;
  private readonly titles: string[];
  private readonly positionByRowid: Int32Array;
  private readonly orders = new Map<string, SortOrder>();
  private foldedTitles: string[] | null = null;

  private constructor(rows: ColumnRow[]) {
    const size = rows.length;
    this.size = size;
    this.rowids = new Float64Array(size);
    this.titles = new Array<string>(size);
    this.numbers = {
      deadline: new Float64Array(size),
      amountMin: new Float64Array(size),
      amountMax: new Float64Array(size),
      createdAt: new Float64Array(size),
      updatedAt: new Float64Array(size),
    };
    const valueBits = {} as Record<FacetName, Bits[]>;
    const index = {} as Record<FacetName, Map<string, number>>;
    for (const name of FACET_NAMES) {
      valueBits[name] = FACET_VALUES[name].map(() => emptyBits(size));
      index[name] = new Map(FACET_VALUES[name].map((value, i) => [value, i]));
    }
    this.valueBits = valueBits;
    const mark = (name: FacetName, value: string, position: number) => {
      const i = index[name].get(value);
      if (i !== undefined) setBit(valueBits[name][i], position);
    };
    const markMask = (name: FacetName, mask: number, position: number) => {
      for (let i = 0; mask !== 0; i++, mask >>>= 1) if ((mask & 1) !== 0) setBit(valueBits[name][i], position);
    };
    let maxRowid = 0;
    for (let p = 0; p < size; p++) {
      const row = rows[p];
      this.rowids[p] = row.rowid;
      if (row.rowid > maxRowid) maxRowid = row.rowid;
      this.titles[p] = row.title;
      this.numbers.deadline[p] = epochOrNaN(row.deadline);
      this.numbers.amountMin[p] = numberOrNaN(row.amount_min);
      this.numbers.amountMax[p] = numberOrNaN(row.amount_max);
      this.numbers.createdAt[p] = epochOrNaN(row.created_at);
      this.numbers.updatedAt[p] = epochOrNaN(row.updated_at);
      mark('funderType', row.funder_type, p);
      mark('fundingType', row.funding_type, p);
      mark('currency', row.currency, p);
      markMask('eligibleProvinces', row.provinces, p);
      markMask('targetBeneficiaries', row.beneficiaries, p);
      for (const sdg of JSON.parse(row.sdgs) as string[]) mark('sdgAlignment', sdg, p);
      if (row.complexity !== null) mark('applicationComplexity', row.complexity, p);
      if (row.recurring !== null) mark('isRecurring', row.recurring === 0 ? 'false' : 'true', p);
    }
    this.positionByRowid = new Int32Array(maxRowid + 1).fill(-1);
    for (let p = 0; p < size; p++) this.positionByRowid[this.rowids[p]] = p;
  }

  /**
   * Reads the columns of the catalog the connection's current transaction sees: in table order
   * (a walk of the id index would read the rows in random order), then sorted by id.
   */
  static load(db: Db): CatalogColumns {
    const rows = db.prepare(LOAD_SQL).all() as ColumnRow[];
    return new CatalogColumns(rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  }

  /** The position of a table rowid, or −1 when the catalog these columns hold has no such row. */
  positionOf(rowid: number): number {
    return rowid < this.positionByRowid.length ? this.positionByRowid[rowid] : -1;
  }

  /**
   * Positions ordered by the key, nulls last in both directions, ties by position (id) ascending.
   * Built on the first request for it, then kept with these columns.
   */
  order(key: Exclude<SortKey, 'relevance'>, descending: boolean): SortOrder {
    const name = `${key}:${descending}`;
    let order = this.orders.get(name);
    if (order === undefined) {
      order = withRank(descending ? this.descendingOf(key) : this.ascendingOf(key));
      this.orders.set(name, order);
    }
    return order;
  }

  private ascendingOf(key: Exclude<SortKey, 'relevance'>): Int32Array {
    if (key === 'title') {
      const keys = this.titleKeys();
      const positions = Int32Array.from({ length: this.size }, (_, i) => i);
      return positions.sort((a, b) => compareCodePoints(keys[a], keys[b]) || a - b);
    }
    const values = this.numbers[key];
    const present: number[] = [];
    const absent: number[] = [];
    for (let p = 0; p < this.size; p++) (Number.isNaN(values[p]) ? absent : present).push(p);
    present.sort((a, b) => values[a] - values[b] || a - b);
    const positions = new Int32Array(this.size);
    positions.set(present);
    positions.set(absent, present.length);
    return positions;
  }

  /** A position's value of a sort key as the orders compare it: the folded title, or the number (null for null). */
  sortKeyOf(key: Exclude<SortKey, 'relevance'>, position: number): number | string | null {
    if (key === 'title') return this.titleKeys()[position];
    const value = this.numbers[key][position];
    return Number.isNaN(value) ? null : value;
  }

  private titleKeys(): string[] {
    this.foldedTitles ??= this.titles.map(titleSortKey);
    return this.foldedTitles;
  }

  /**
   * The descending order from the ascending one in linear time: the non-null part reversed, then
   * each run of equal values reversed back so ties stay in ascending position.
   */
  private descendingOf(key: Exclude<SortKey, 'relevance'>): Int32Array {
    const ascending = this.order(key, false).positions;
    const values = key === 'title' ? null : this.numbers[key];
    const keys = key === 'title' ? this.titleKeys() : null;
    const sameKey = (a: number, b: number) => (keys !== null ? keys[a] === keys[b] : values![a] === values![b]);
    let present = this.size;
    if (values !== null) while (present > 0 && Number.isNaN(values[ascending[present - 1]])) present -= 1;
    const positions = ascending.slice();
    positions.subarray(0, present).reverse();
    for (let start = 0; start < present; ) {
      let end = start + 1;
      while (end < present && sameKey(positions[start], positions[end])) end += 1;
      if (end - start > 1) positions.subarray(start, end).reverse();
      start = end;
    }
    return positions;
  }
}
