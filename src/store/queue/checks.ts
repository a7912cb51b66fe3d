/**
 * A run's check results (docs/architecture.md#the-runs-phases): the job's `checks` field takes the latest run and a
 * `check` event records it, in one fenced transaction. Beside them, the commits of the context
 * repositories the run read (the job's `contextRepositories`), what the run worked from.
 */
import type { CheckRun } from '../../domain/checks.js';
import type { ContextRepositoryRead } from '../../domain/context-repository.js';
import type { CheckRequest } from '../../domain/events.js';
import type { Db } from '../db.js';
import { eventAppender } from '../events.js';
import { fence, type Lease } from './lease.js';

export function checkQueries(db: Db) {
  const appendEvent = eventAppender(db);
  return {
    /** Stores `run` as the job's latest checks, with its `check` event (who asked). Throws `LeaseLostError`. */
    async recordChecks(lease: Lease, run: CheckRun, request: CheckRequest): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = new Date().toISOString();
        await trx
          .updateTable('jobs')
          .set({ checks: JSON.stringify(run), updated_at: at })
          .where('id', '=', lease.jobId)
          .execute();
        await appendEvent(trx, lease.jobId, 'check', { ...request, ...run }, at);
      });
    },

    /**
     * Stores what the run read of the project's context repositories (the job's
     * `contextRepositories`), replacing what an earlier run read. Throws `LeaseLostError`.
     */
    async recordContextRepositories(lease: Lease, read: ContextRepositoryRead[]): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await trx
          .updateTable('jobs')
          .set({ context_repositories: JSON.stringify(read), updated_at: new Date().toISOString() })
          .where('id', '=', lease.jobId)
          .execute();
      });
    },
  };
}
