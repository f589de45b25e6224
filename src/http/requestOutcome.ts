// What the inner layers of the pipeline find out about a request that outer layers act on once
// their `await next()` returns: the only facts that travel outwards, kept in one record per
// request, each written by one layer and read by the layers named beside it. Everything else a
// request carries (state.ts) travels inwards: written by an outer layer, read by inner ones.

export interface RequestOutcome {
  /**
   * Counted toward the monthly allowance. Written by the rate-and-allowance layer (or a handler's `bill()`); read by
   * the usage recorder.
   */
  billed: boolean;
  /**
   * Answered 304 Not Modified. Written by the conditional layer; read by the rate-and-allowance layer, which then does
   * not count it.
   */
  notModified: boolean;
  /** The code of the error answered. Written by the error handler; read by the access log and the metrics. */
  errorCode: string | undefined;
  /** The domain failure behind a 503. Written by the error handler; read by the metrics (their cause label). */
  failure: unknown;
}

/** The request's outcome record, made by the first layer that asks for it. */
export function outcomeOf(state: { outcome?: RequestOutcome }): RequestOutcome {
  return (state.outcome ??= { billed: false, notModified: false, errorCode: undefined, failure: undefined });
}
