// The query parameters of the alert lists (GET /alerts, GET /alerts/{id}/deliveries), which the
// handlers, the list_alerts MCP tool and the OpenAPI document all read.
import type { ParamSpecs } from './queryParams.js';

export const ALERT_LIST_PARAMS: ParamSpecs = {
  limit: {
    kind: 'integer',
    min: 1,
    default: 20,
    message: 'must be an integer ≥ 1 (above 100 it is served as 100)',
    description: 'Items per page (default 20, at most 100: a larger limit is served as 100).',
    example: 20,
  },
  cursor: {
    kind: 'string',
    maxLength: 200,
    message: 'must be a nextCursor the API gave out',
    description: 'The `pagination.nextCursor` of the previous page; absent for the first page.',
    example: 'WyIyMDI2LTExLTI1VDEwOjAwOjAwLjAwMFoiLCJhbHRfeHl6Il0',
    fillIn: false,
  },
};
