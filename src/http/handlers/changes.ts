// GET /grants/changes: the changes feed. Each entry is a grant at its latest
// sequence or a tombstone; `pagination.nextSince` is the token to poll with next.
import type { Middleware } from 'koa';
import { servedGrantJson } from '../../grants/lifecycle.js';
import { checkSince, decodeSince, encodeSince, MAX_SINCE_LENGTH, type ChangeEntryJson } from '../../search/changes.js';
import type { SearchEngine } from '../../search/engine.js';
import { ServiceUnavailableError } from '../../failures.js';
import { JSON_CONTENT_TYPE, successJson } from '../envelope.js';
import { paramValidator, parseQueryString, type ParamSpecs, type ParamValues } from '../parameters/queryParams.js';
import type { AppState } from '../state.js';

const CHANGES_DEFAULT_LIMIT = 100;
export const CHANGES_MAX_LIMIT = 1000;

export const CHANGES_PARAMS: ParamSpecs = {
  since: {
    kind: 'string',
    maxLength: MAX_SINCE_LENGTH,
    message: `must be 0 or a nextSince token (at most ${MAX_SINCE_LENGTH} characters)`,
    description:
      'The position to read changes after: 0 (the default) for the whole catalog, else the pagination.nextSince ' +
      'of the previous answer.',
    example: '0',
  },
  /** Above CHANGES_MAX_LIMIT it is served as CHANGES_MAX_LIMIT (pagination.limit says so), as on GET /grants. */
  limit: {
    kind: 'integer',
    min: 1,
    clampAbove: CHANGES_MAX_LIMIT,
    default: CHANGES_DEFAULT_LIMIT,
    message: 'must be an integer ≥ 1',
    description:
      `How many changes per answer (at most ${CHANGES_MAX_LIMIT}: a larger limit is served as ` +
      `${CHANGES_MAX_LIMIT}).`,
    example: 500,
  },
};

/** Validates GET /grants/changes parameters (every problem listed). */
export const validateChangesParams = paramValidator(CHANGES_PARAMS);

/**
 * One entry as served at `now`: id, deleted, changedAt, changes (the fields the grant's latest
 * change updated, grants/history.ts), grant (the stored JSON text with its status at `now`, spliced in).
 */
const entryJson = (entry: ChangeEntryJson, now: number): string =>
  `{"id":${JSON.stringify(entry.id)},"deleted":${entry.deleted},` +
  `"changedAt":${JSON.stringify(entry.changedAt)},"changes":${entry.changesJson ?? 'null'},` +
  `"grant":${entry.grantJson === null ? 'null' : servedGrantJson(entry.grantJson, now)}}`;

interface ChangesPagination {
  limit: number;
  hasMore: boolean;
  nextSince: string;
}

/**
 * The changes after valid parameters' `since`: the entries as JSON text (each grant's status at
 * `now`, epoch ms) and the pagination; what GET /grants/changes and the MCP tool get_changes answer.
 */
export async function changesPage(
  engine: SearchEngine,
  p: ParamValues,
  now: number,
): Promise<{ dataJson: string; pagination: ChangesPagination }> {
  const sinceText = (p.since as string | undefined) ?? '0';
  const since = decodeSince(sinceText);
  const limit = (p.limit as number | undefined) ?? CHANGES_DEFAULT_LIMIT;
  if (engine.changesJson === undefined)
    throw new ServiceUnavailableError(`the ${engine.name} engine keeps no change log`, 30);
  const { state, entries } = await engine.changesJson(since?.seq ?? 0, limit);
  checkSince(since, state);
  const page = entries.slice(0, limit);
  const last = page.at(-1);
  return {
    dataJson: `[${page.map((entry) => entryJson(entry, now)).join(',')}]`,
    pagination: {
      limit,
      hasMore: entries.length > limit,
      nextSince: last === undefined ? sinceText : encodeSince(state.log!, last.seq),
    },
  };
}

export function changesHandler(engine: SearchEngine, clock: () => Date): Middleware<AppState> {
  return async function changes(ctx) {
    const { dataJson, pagination } = await changesPage(
      engine,
      validateChangesParams(parseQueryString(ctx.querystring)),
      clock().getTime(),
    );
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = successJson(ctx.state.requestId, dataJson, pagination);
  };
}
