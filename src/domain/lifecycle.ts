/**
 * Whether a process is draining (stopping): shared by its parts, so that the readiness probe and
 * the operations that take new work (a job's create, a follow-up) all see the same moment.
 */
import { AppError } from './errors.js';

/** Shared with the process: once `draining`, `/readyz` answers 503 and new work is refused. */
export interface Lifecycle {
  draining: boolean;
}

/** How long a client refused while a process drains waits before it tries again. */
export const DRAINING_RETRY_AFTER_SECONDS = 5;

/**
 * What new work is answered while the process drains (the API, MCP and the dashboard alike):
 * clients retry against another instance, or this one once it is back.
 */
export const drainingError = () =>
  new AppError('unavailable', 'The server is shutting down; retry against another instance.', {
    retryAfterSeconds: DRAINING_RETRY_AFTER_SECONDS,
    reason: 'draining',
  });

/** Refuses new work while `lifecycle` drains (`drainingError`). */
export function refuseWhileDraining(lifecycle: Lifecycle | undefined): void {
  if (lifecycle?.draining) throw drainingError();
}
