/**
 * A run's usage as it grows: after each step the worker adds what the step used to the job (and its
 * cost to the project's spend of the day) together with the `usage` event, so `usage.costUsd` on
 * the job, in the list and on the dashboard is live, and a project's daily budget sees runs that
 * are still going. What complete and fail add at the end is only what was not recorded here.
 *
 * A step is recorded in one transaction (`recordStep`): its usage, its events and the progress a
 * later attempt would continue from (progress.ts), so each step pays for one fence and one commit.
 */
import type { NewEvent } from '../../domain/events.js';
import type { RunUsage } from '../../domain/job.js';
import type { Db, Transaction } from '../db.js';
import { type AppendEvents, eventsAppender } from '../events.js';
import { addUsage, releaseReservation } from '../spend.js';
import { fence, type Lease } from './lease.js';
import { type ProgressSave, writeProgress } from './progress.js';

/** One finished step of a run, as `recordStep` writes it. */
export interface RecordedStep {
  /** What the step added to the run's usage; null when its events carry no `usage`. */
  added: RunUsage | null;
  /** The step's events, in order. */
  events: readonly NewEvent[];
  /** The run's progress after the step; null to save none. */
  progress: ProgressSave | null;
  /**
   * Whether the run may hold a reservation to give back (`reserveSpend` wrote one since the last
   * step was recorded). Default true; a run that knows it reserved nothing spares the delete.
   */
  releaseReservation?: boolean;
}

async function writeStep(
  trx: Transaction,
  appendEvents: AppendEvents,
  lease: Lease,
  step: RecordedStep,
): Promise<void> {
  const at = new Date().toISOString();
  if (step.added) {
    // The step is settled: its real cost takes the place of its reservation.
    if (step.releaseReservation !== false) await releaseReservation(trx, lease.jobId);
    await addUsage(trx, lease.jobId, step.added, at);
  }
  await appendEvents(trx, lease.jobId, step.events, at);
  if (step.progress) await writeProgress(trx, lease, step.progress);
}

export function usageQueries(db: Db) {
  const appendEvents = eventsAppender(db);
  return {
    /**
     * Adds `added` to the job's usage and appends the step's events (its `usage` event holds the
     * run's running totals), in one transaction, giving back the step's reservation
     * (`reserveSpend`). Throws `LeaseLostError` when the run no longer holds the job.
     */
    async recordUsage(lease: Lease, added: RunUsage, events: readonly NewEvent[]): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await writeStep(trx, appendEvents, lease, { added, events, progress: null });
      });
    },

    /**
     * Records a finished step in one fenced transaction: its usage (when it has some, giving back
     * its reservation), its events, and the run's progress after it, so what a later attempt
     * continues from is never ahead of what was reported. Throws `LeaseLostError` when the run no
     * longer holds the job.
     */
    async recordStep(lease: Lease, step: RecordedStep): Promise<void> {
      if (!step.added && step.events.length === 0 && !step.progress) return;
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await writeStep(trx, appendEvents, lease, step);
      });
    },
  };
}
