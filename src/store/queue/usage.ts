/**
 * A run's usage as it grows: after each step the worker adds what the step used to the job (and its
 * cost to the project's spend of the day) together with the `usage` event, so `usage.costUsd` on
 * the job, in the list and on the dashboard is live, and a project's daily budget sees runs that
 * are still going. What complete and fail add at the end is only what was not recorded here.
 */
import type { NewEvent } from '../../domain/events.js';
import type { RunUsage } from '../../domain/job.js';
import type { Db } from '../db.js';
import { eventAppender } from '../events.js';
import { addUsage, releaseReservation } from '../spend.js';
import { fence, type Lease } from './lease.js';

export function usageQueries(db: Db) {
  const appendEvent = eventAppender(db);
  return {
    /**
     * Adds `added` to the job's usage and appends the step's events (its `usage` event holds the
     * run's running totals), in one transaction, giving back the step's reservation (`reserveSpend`). Throws `LeaseLostError` when the run no longer
     * holds the job.
     */
    async recordUsage(lease: Lease, added: RunUsage, events: readonly NewEvent[]): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = new Date().toISOString();
        // The step is settled: its real cost takes the place of its reservation.
        await releaseReservation(trx, lease.jobId);
        await addUsage(trx, lease.jobId, added, at);
        for (const event of events) await appendEvent(trx, lease.jobId, event.type, event.data, at);
      });
    },
  };
}
