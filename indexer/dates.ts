// Dates as sources write them: date-only days in a stated time zone, and day patterns such as
// MM/DD/YYYY or MMDDYYYY. Pure: text in, an ISO 8601 UTC instant (or why not) out.

/** The time zone of a date-only date when the source or its mapping names none. */
export const DEFAULT_TIME_ZONE = 'America/Toronto';

/** Whether `zone` is an IANA time zone this runtime knows ("America/Toronto", "UTC"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();

/** How far `zone`'s wall clock is ahead of UTC at the instant `epoch`, in milliseconds. */
function offsetAt(epoch: number, zone: string): number {
  let format = partsFormat.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partsFormat.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(epoch)).map((p) => [p.type, p.value]));
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return wall - (epoch - (((epoch % 1000) + 1000) % 1000));
}

export interface Day {
  year: number;
  month: number;
  day: number;
}

/** The instant a wall-clock time of `zone` names (the later one where a clock change repeats it). */
export function zonedInstant(
  day: Day,
  hour: number,
  minute: number,
  second: number,
  millisecond: number,
  zone: string,
): string {
  const wall = Date.UTC(day.year, day.month - 1, day.day, hour, minute, second, millisecond);
  let epoch = wall - offsetAt(wall, zone);
  // Once more at the first guess: the offset there is the one that holds on either side of a clock change.
  epoch = wall - offsetAt(epoch, zone);
  return new Date(epoch).toISOString();
}

/** The last millisecond of `day` in `zone` (a date-only deadline). */
export const endOfDay = (day: Day, zone: string): string => zonedInstant(day, 23, 59, 59, 999, zone);

/** The first millisecond of `day` in `zone` (a date-only creation or update date). */
export const startOfDay = (day: Day, zone: string): string => zonedInstant(day, 0, 0, 0, 0, zone);

/** Whether the day exists in the calendar (no 31 April, 29 February only in leap years). */
function dayExists({ year, month, day }: Day): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A date-only ISO 8601 date ("2027-01-15"), or null for anything else. */
export function isoDay(text: string): Day | null {
  const m = ISO_DAY.exec(text);
  if (m === null) return null;
  const day = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return dayExists(day) ? day : null;
}

/**
 * A day pattern: YYYY, MM, DD (M and D accept one or two digits) and any other character
 * standing for itself ("MM/DD/YYYY", "DD.MM.YYYY", "MMDDYYYY").
 */
export function dayPattern(pattern: string): RegExp | null {
  const tokens = pattern.match(/YYYY|MM|DD|M|D|[^YMD]+|[YMD]/g) ?? [];
  let source = '';
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token === 'YYYY') source += '(?<year>\\d{4})';
    else if (token === 'MM') source += '(?<month>\\d{2})';
    else if (token === 'DD') source += '(?<day>\\d{2})';
    else if (token === 'M') source += '(?<month>\\d{1,2})';
    else if (token === 'D') source += '(?<day>\\d{1,2})';
    else if (/^[YMD]$/.test(token)) return null;
    else {
      source += token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      continue;
    }
    const kind = token[0];
    if (seen.has(kind)) return null;
    seen.add(kind);
  }
  return seen.size === 3 ? new RegExp(`^${source}$`) : null;
}

/** The day `text` names in `pattern` (a RegExp of dayPattern), or null. */
export function dayIn(text: string, pattern: RegExp): Day | null {
  const groups = pattern.exec(text)?.groups;
  if (groups === undefined) return null;
  const day = { year: Number(groups.year), month: Number(groups.month), day: Number(groups.day) };
  return dayExists(day) ? day : null;
}
