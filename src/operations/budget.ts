/**
 * The per-project hourly budget of creates and follow-ups (docs/api.md, 429 `rate_limited`). Counted
 * in the database, so it holds across every API process; spent by the operations themselves, so a
 * job started from the dashboard, MCP or the API counts the same, one call at a time.
 */
import { AppError, type LimitState } from '../domain/errors.js';
import type { Store } from '../store/store.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Counts one create or follow-up against the project's budget and says where the project stands.
 *
 * @throws AppError `rate_limited`, with the limit and the seconds until the hour's window ends,
 * when this call is over the budget.
 */
export async function spendHourlyBudget(
  rateLimits: Store['rateLimits'],
  projectId: string,
  requestsPerHour: number,
): Promise<LimitState> {
  const { count, ttlMs } = await rateLimits.hit(`project:${projectId}`, HOUR_MS);
  const state = {
    limit: requestsPerHour,
    remaining: Math.max(0, requestsPerHour - count),
    resetSeconds: Math.ceil(ttlMs / 1000),
  };
  if (count <= requestsPerHour) return state;
  throw new AppError(
    'rate_limited',
    `This project used its budget of ${requestsPerHour} jobs and follow-ups per hour; retry in ${waitText(state.resetSeconds)}.`,
    { retryAfterSeconds: state.resetSeconds, limit: state },
  );
}

/** `42 seconds`, `17 minutes`: how long a person waits, in words. */
export function waitText(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.ceil(seconds))} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
