// Records every authenticated request in the usage log, with its final status and latency. The
// answer is sent once the row is committed (Koa writes the response after this middleware
// returns): a crash after an answer left cannot lose its row.
import type { Middleware } from 'koa';
import { isPromise, type UsageLog } from '../../subscriptions/port.js';
import { outcomeOf } from '../requestOutcome.js';
import type { AppState } from '../state.js';

export function recordUsage(usage: UsageLog, clock: () => Date): Middleware<AppState> {
  return async function recordUsage(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const caller = ctx.state.caller;
      if (caller !== undefined) {
        const written = usage.record({
          at: clock(),
          subscriptionId: caller.subscription.id,
          keyId: caller.keyId,
          keyPrefix: caller.keyPrefix,
          endpoint: ctx.state.route?.template ?? null,
          billable: outcomeOf(ctx.state).billed,
          status: ctx.status,
          latencyMs: performance.now() - started,
          requestId: ctx.state.requestId,
        });
        if (isPromise(written)) await written;
      }
    }
  };
}
