// The values of grants-admin's arguments, checked: our own message for each wrong one.
import { UsageError } from '../runner.js';

/** A whole number from 1 to max (or "default" → null, where allowed); our own message otherwise. */
export function positiveInt(
  name: string,
  raw: string | true | undefined,
  max: number,
  allowDefault: boolean,
): number | null | undefined {
  if (raw === undefined) return undefined;
  if (allowDefault && raw === 'default') return null;
  if (typeof raw !== 'string' || !/^\d{1,12}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new UsageError(
      `${name} must be an integer from 1 to ${max}${allowDefault ? ' (or "default")' : ''}, not "${String(raw)}"`,
    );
  }
  return Number(raw);
}

/** One of the allowed words; tier and status words are matched in any case. */
export function oneOf<T extends string>(
  what: string,
  raw: string | true | undefined,
  values: readonly T[],
  anyCase = false,
): T {
  const given = typeof raw === 'string' ? (anyCase ? raw.toUpperCase() : raw) : undefined;
  if (given === undefined || !(values as readonly string[]).includes(given)) {
    throw new UsageError(
      `${what} must be one of ${values.join(', ')}${typeof raw === 'string' ? `, not "${raw}"` : ''}`,
    );
  }
  return given as T;
}

/** An instant given as ISO 8601 or as a duration from now (30d, 12h, 45m); ahead (expiry) or back (since). */
export function instantArg(name: string, raw: string | true | undefined, direction: 1 | -1): string | undefined {
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  const relative = /^(\d{1,6})([dhm])$/.exec(text);
  if (relative !== null) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'];
    return new Date(Date.now() + direction * Number(relative[1]) * unit).toISOString();
  }
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)
    ? Date.parse(text)
    : NaN;
  if (Number.isNaN(at))
    throw new UsageError(
      `${name} must be an ISO 8601 instant (2027-01-31T00:00:00Z, or a date) or a duration such as 30d, 12h ` +
        `or 45m, not "${text}"`,
    );
  return new Date(at).toISOString();
}

/** A comma-separated list; a flag without a value is the empty list. */
export const listArg = (raw: string | true | undefined): string[] | undefined =>
  typeof raw === 'string'
    ? raw
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
    : raw === true
      ? []
      : undefined;
