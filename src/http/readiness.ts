/**
 * Whether a process can take work, for `/readyz` on the API's port and on a worker's health port:
 * the database answers, the schema has every migration this version needs, and the process is not
 * draining. A load balancer (or Kubernetes' endpoints) sends traffic only to a ready process.
 */
import type { UnavailableReason } from '../domain/errors.js';
import type { Lifecycle } from '../domain/lifecycle.js';
import { pendingMigrations } from '../store/migrate.js';
import type { Store } from '../store/store.js';

/** What `/readyz` answers: 200 with the first, 503 with the second. */
export type Readiness = { ready: true } | { ready: false; reason: UnavailableReason; message: string };

/** Reads a process's readiness; each call asks the database again (a probe comes every few seconds). */
export function readinessCheck(
  store: Pick<Store, 'ping' | 'db'>,
  lifecycle: Lifecycle,
): () => Promise<Readiness> {
  // Migrations are never taken back: once current, only the database's answer is asked again.
  let migrated = false;
  return async () => {
    if (lifecycle.draining)
      return { ready: false, reason: 'draining', message: 'The process is shutting down.' };
    try {
      if (!migrated) {
        const pending = await pendingMigrations(store.db);
        if (pending.length > 0)
          return {
            ready: false,
            reason: 'migrations_pending',
            message: `The database lacks ${pending.length} migration(s) this version needs; run \`agentjobs migrate\`.`,
          };
        migrated = true;
      } else {
        await store.ping();
      }
      return { ready: true };
    } catch {
      // The cause stays out of the answer (it may name the database's address); the process logs its own.
      return { ready: false, reason: 'database_unavailable', message: 'The database does not answer.' };
    }
  };
}
