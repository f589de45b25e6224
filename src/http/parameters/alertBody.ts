// The JSON bodies of POST and PATCH /alerts (read by jsonBody.ts, within its bounds), checked
// field by field, every problem listed. The `query` is checked by the GET /grants
// parameter definitions themselves (grantSearchParams.ts): one definition, two doors.
import {
  EVENT_TYPES,
  MAX_ALERT_NAME,
  MAX_CLOSING_DAYS,
  MIN_CLOSING_DAYS,
  type AlertChanges,
  type AlertQuery,
  type EventType,
} from '../../alerts/model.js';
import { urlProblem, type TargetPolicy } from '../../alerts/targets.js';
import { InvalidBodyError, InvalidInputError, type ErrorDetail } from '../../failures.js';
import { ALERT_QUERY_PARAMS, NOT_ALERT_PARAMS, parseAlertConditions } from './grantSearchParams.js';
import { jsonAsParameters, parseJsonParameters } from './jsonParams.js';
import { clip } from './queryParams.js';

/** The names of an alert query that are no filter of GET /grants, each with its problem. */
function nameProblems(query: Record<string, unknown>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const name of Object.keys(query)) {
    const at = `query.${clip(name)}`;
    if ((NOT_ALERT_PARAMS as readonly string[]).includes(name)) {
      problems.push({
        parameter: at,
        message:
          'does not apply to an alert: paging, sort, facets, fields, cursor and highlights belong to GET /grants',
      });
    } else if (!Object.hasOwn(ALERT_QUERY_PARAMS, name)) {
      problems.push({
        parameter: at,
        message: `is not a filter of GET /grants (allowed: ${Object.keys(ALERT_QUERY_PARAMS).join(', ')})`,
      });
    }
  }
  return problems;
}

/** Checks an alert query; returns it as stored (the fields given) or adds its problems to `details`. */
function checkQuery(value: unknown, details: ErrorDetail[]): AlertQuery | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    details.push({ parameter: 'query', message: 'must be a JSON object of GET /grants filter parameters' });
    return undefined;
  }
  const query = value as Record<string, unknown>;
  const own = nameProblems(query);
  const filters = Object.fromEntries(Object.entries(query).filter(([name]) => Object.hasOwn(ALERT_QUERY_PARAMS, name)));
  try {
    parseJsonParameters(filters, ALERT_QUERY_PARAMS, parseAlertConditions, (name) => `query.${name}`);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    own.push(...error.details);
  }
  details.push(...own);
  if (own.length > 0) return undefined;
  const stored: AlertQuery = {};
  for (const [name, v] of Object.entries(query)) {
    if (Array.isArray(v) && v.length === 0) continue;
    stored[name] = Array.isArray(v) ? [...new Set(v as string[])] : (v as string | number | boolean);
  }
  return stored;
}

/** The conditions of a stored alert query (for the matcher): the same translation as GET /grants. */
export const compileAlertQuery = (query: AlertQuery) =>
  parseAlertConditions(jsonAsParameters(query, ALERT_QUERY_PARAMS, []));

const CREATE_FIELDS = ['name', 'query', 'url', 'events', 'closingReminderDays'] as const;
const PATCH_FIELDS = [...CREATE_FIELDS, 'status'] as const;

/**
 * The fields of a POST (every required one present) or a PATCH (any of them, and `status`
 * ACTIVE or PAUSED), checked; throws InvalidInputError listing every problem.
 */
export function checkAlertBody(
  body: Record<string, unknown>,
  mode: 'create' | 'patch',
  policy: TargetPolicy,
): AlertChanges {
  const details: ErrorDetail[] = [];
  const allowed: readonly string[] = mode === 'create' ? CREATE_FIELDS : PATCH_FIELDS;
  for (const name of Object.keys(body)) {
    if (!allowed.includes(name))
      details.push({ parameter: clip(name), message: `is not a field of this body (allowed: ${allowed.join(', ')})` });
  }
  const out: AlertChanges = {};
  const has = (name: string) => Object.hasOwn(body, name);
  if (mode === 'create')
    for (const name of ['name', 'query', 'url'])
      if (!has(name)) details.push({ parameter: name, message: 'is required' });
  if (has('name')) {
    const name = body.name;
    if (typeof name !== 'string' || name.trim().length < 1 || name.length > MAX_ALERT_NAME)
      details.push({ parameter: 'name', message: `must be a string of 1 to ${MAX_ALERT_NAME} characters` });
    else out.name = name.trim();
  }
  if (has('query')) {
    const query = checkQuery(body.query, details);
    if (query !== undefined) out.query = query;
  }
  if (has('url')) {
    const problem = typeof body.url === 'string' ? urlProblem(body.url, policy) : 'must be a string';
    if (problem !== null) details.push({ parameter: 'url', message: problem });
    else out.url = body.url as string;
  }
  if (has('events')) {
    const events = body.events;
    if (
      !Array.isArray(events) ||
      events.length === 0 ||
      events.some((e) => !(EVENT_TYPES as readonly unknown[]).includes(e))
    ) {
      details.push({ parameter: 'events', message: `must be a non-empty array of ${EVENT_TYPES.join(', ')}` });
    } else out.events = [...new Set(events as EventType[])];
  }
  if (has('closingReminderDays')) {
    const days = body.closingReminderDays;
    if (
      days !== null &&
      (typeof days !== 'number' || !Number.isInteger(days) || days < MIN_CLOSING_DAYS || days > MAX_CLOSING_DAYS)
    ) {
      details.push({
        parameter: 'closingReminderDays',
        message: `must be an integer from ${MIN_CLOSING_DAYS} to ${MAX_CLOSING_DAYS}, or null`,
      });
    } else out.closingReminderDays = days as number | null;
  }
  if (has('status')) {
    if (body.status !== 'ACTIVE' && body.status !== 'PAUSED')
      details.push({ parameter: 'status', message: 'must be ACTIVE or PAUSED' });
    else out.status = body.status;
  }
  if (details.length > 0) throw new InvalidBodyError(details);
  return out;
}
