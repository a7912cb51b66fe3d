/** Shared with the process: once draining, `/readyz` and new work answer 503. */
export interface Lifecycle {
  draining: boolean;
}
