// GET /grants/{id}/history: a grant's versions, newest first, cursor paged. What the MCP tool
// get_grant_history answers too.
import type { Middleware } from 'koa';
import { versionJson } from '../../grants/history.js';
import type { SearchEngine } from '../../search/engine.js';
import { ServiceUnavailableError } from '../../failures.js';
import { JSON_CONTENT_TYPE, successJson } from '../envelope.js';
import { notFound } from '../errors.js';
import { decodeHistoryCursor, encodeHistoryCursor, MAX_HISTORY_CURSOR_LENGTH } from '../parameters/historyCursor.js';
import {
  clip,
  paramValidator,
  parseQueryString,
  type ParamSpecs,
  type ParamValues,
} from '../parameters/queryParams.js';
import type { AppState } from '../state.js';

const HISTORY_DEFAULT_LIMIT = 20;
const HISTORY_MAX_LIMIT = 100;

export const HISTORY_PARAMS: ParamSpecs = {
  limit: {
    kind: 'integer',
    min: 1,
    clampAbove: HISTORY_MAX_LIMIT,
    default: HISTORY_DEFAULT_LIMIT,
    message: 'must be an integer ≥ 1',
    description:
      `Versions per page (default ${HISTORY_DEFAULT_LIMIT}, at most ${HISTORY_MAX_LIMIT}: a larger limit is ` +
      `served as ${HISTORY_MAX_LIMIT}).`,
    example: 20,
  },
  cursor: {
    kind: 'string',
    maxLength: MAX_HISTORY_CURSOR_LENGTH,
    message: 'must be a nextCursor the API gave out for this grant',
    description: 'The `pagination.nextCursor` of the previous page (older versions); absent for the newest.',
    example: 'eyJ2IjoxLCJnIjoiYWJjZGVmZ2hpamtsIiwicyI6NDJ9',
    fillIn: false,
  },
};

/** Validates GET /grants/{id}/history parameters (every problem listed). */
const validateHistoryParams = paramValidator(HISTORY_PARAMS);

interface HistoryPagination {
  limit: number;
  nextCursor: string | null;
}

/**
 * A page of a grant's history for valid parameters: the versions as JSON text, newest first, and
 * the pagination; NOT_FOUND when neither the catalog nor the history knows the id.
 */
export async function historyPage(
  engine: SearchEngine,
  id: string,
  p: ParamValues,
): Promise<{ dataJson: string; pagination: HistoryPagination }> {
  const limit = (p.limit as number | undefined) ?? HISTORY_DEFAULT_LIMIT;
  const before = p.cursor === undefined ? null : decodeHistoryCursor(p.cursor as string, id);
  if (engine.historyJson === undefined)
    throw new ServiceUnavailableError(`the ${engine.name} engine keeps no history`, 30);
  const { known, versions } =
    id.length <= 200 ? await engine.historyJson(id, before, limit) : { known: false, versions: [] };
  if (!known) throw notFound(`No grant has the id "${clip(id)}", and none had it within the history kept.`);
  const page = versions.slice(0, limit);
  const last = page.at(-1);
  return {
    dataJson: `[${page.map(versionJson).join(',')}]`,
    pagination: {
      limit,
      nextCursor: versions.length > limit && last !== undefined ? encodeHistoryCursor(id, last.seq) : null,
    },
  };
}

export function historyHandler(engine: SearchEngine): Middleware<AppState> {
  return async function history(ctx) {
    const { dataJson, pagination } = await historyPage(
      engine,
      ctx.state.params.id,
      validateHistoryParams(parseQueryString(ctx.querystring)),
    );
    ctx.set('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = successJson(ctx.state.requestId, dataJson, pagination);
  };
}
