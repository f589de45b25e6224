// Rate-limit response headers: IETF httpapi draft-11 RateLimit-Policy / RateLimit, and GitHub-style X-RateLimit-*.
import type { RateDecision } from './limiter.js';

interface MonthBudget {
  limit: number;
  remaining: number;
  /** Length of the month in seconds (the policy window). */
  windowSeconds: number;
  /** Seconds until the month resets. */
  resetSeconds: number;
}

/** The names of the headers rateLimitHeaders() sets. */
export const RATE_LIMIT_HEADER_NAMES = [
  'RateLimit-Policy',
  'RateLimit',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
] as const;

export function rateLimitHeaders(rate: RateDecision, month: MonthBudget, nowMs: number): Record<string, string> {
  const resetSeconds = Math.max(1, Math.ceil(rate.resetMs / 1000));
  return {
    'RateLimit-Policy': `"second";q=${rate.limit};w=1, "month";q=${month.limit};w=${month.windowSeconds}`,
    RateLimit: `"second";r=${rate.remaining};t=${resetSeconds}, "month";r=${month.remaining};t=${month.resetSeconds}`,
    'X-RateLimit-Limit': String(rate.limit),
    'X-RateLimit-Remaining': String(rate.remaining),
    'X-RateLimit-Reset': String(Math.ceil((nowMs + rate.resetMs) / 1000)),
  };
}
