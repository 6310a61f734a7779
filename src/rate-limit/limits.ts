import type { Plan } from '../db/schema.js';

/** D8: fixed windows of 60 seconds. */
export const RATE_WINDOW_MS = 60_000;

/** api-v1.md section 8: 120 requests a minute times the plan's multiplier. */
const BASE_USER_LIMIT = 120;
const PLAN_MULTIPLIER: Record<Plan, number> = { solo: 1, business: 3, enterprise: 10 };

/** D8: requests without a valid token get this many per window per client IP. */
export const ANONYMOUS_IP_LIMIT = 10;

/**
 * E2.3: requests per window for each public badge key. README images are fetched through proxies
 * (GitHub's camo, CDNs) that share a few addresses among many readers, so a badge counts against
 * its key, not the client IP (D8's per-IP budget does not apply).
 */
export const BADGE_KEY_LIMIT = 600;

/**
 * D31: pings and redeliveries per window for each webhook. Each makes a request to a receiver the
 * user chose, so a user's D8 budget alone would let them aim hundreds a minute at one address.
 */
export const WEBHOOK_SEND_LIMIT = 10;

/**
 * D8: a user with no active subscription gets multiplier 1. `base` is 120 unless the operator
 * raises it (RATE_LIMIT_USER_BASE, for load tests such as the benchmark).
 */
export function userRequestLimit(plan: Plan | null, base = BASE_USER_LIMIT): number {
  return base * (plan ? PLAN_MULTIPLIER[plan] : 1);
}
