import { AppError } from '../domain/errors.js';

/** Shared with the process: once draining, `/readyz` and new work answer 503. */
export interface Lifecycle {
  draining: boolean;
}

/**
 * What new work is answered while the process drains (the API, MCP and the dashboard alike):
 * clients retry against another instance, or this one once it is back.
 */
export const drainingError = () =>
  new AppError('unavailable', 'The server is shutting down; retry against another instance.', {
    retryAfterSeconds: 5,
  });
