// What an outer layer leaves on ctx.state for the layers inside it. What travels the other way, from
// an inner layer to the outer ones once `next()` returns, is the request's outcome (requestOutcome.ts).
import type { Logger } from '../log.js';
import type { RequestOutcome } from './requestOutcome.js';
import type { Caller } from '../subscriptions/port.js';
import type { RouteSpec } from './routeTable.js';

export interface AppState {
  requestId: string;
  /** The request's logger: every line it writes carries the requestId (set by accessLog). */
  log?: Logger;
  /** The request's route in the API's route table, or undefined for an unknown path. */
  route?: RouteSpec;
  /** Path parameters of the request's route. */
  params: Record<string, string>;
  /** The authenticated caller: its subscription and key. */
  caller?: Caller;
  /**
   * The client's address (the connection's, or from X-Forwarded-For behind a trusted proxy), set once the key is known.
   */
  clientAddress?: string;
  /** Billable calls counted in a month, as read (or counted) by the limits layer for its headers. */
  monthCalls?: { month: string; calls: number };
  /**
   * On a route billed by its handler (RouteSpec.billedByHandler): counts one call toward the
   * monthly allowance (a further one in the same request also spends the per-second rate), or
   * throws QUOTA_EXCEEDED / RATE_LIMITED without counting.
   */
  bill?: () => Promise<void>;
  /** What inner layers found out for the outer ones: read and written only through outcomeOf() (requestOutcome.ts). */
  outcome?: RequestOutcome;
}
