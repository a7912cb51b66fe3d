/**
 * The job queue, graphile-worker style: one file per operation (claim, reclaim, lease and fenced
 * writes, messages, complete, fail, why a job waits), assembled here into `store.queue`.
 */
import type { Db } from '../db.js';
import { checkQueries } from './checks.js';
import { claimQueries } from './claim.js';
import { completeQueries } from './complete.js';
import { failQueries } from './fail.js';
import { leaseQueries } from './lease.js';
import { messageQueries } from './messages.js';
import { progressQueries } from './progress.js';
import { publishedQueries } from './published.js';
import { reclaimQueries } from './reclaim.js';
import { reserveQueries } from './reserve.js';
import { usageQueries } from './usage.js';
import { waitingQueries } from './waiting.js';

export type { ClaimedJob, ClaimOptions } from './claim.js';
export type { RunOutcome } from './complete.js';
export type { PartialRun } from './fail.js';
export { isLeaseLost, type Lease, LeaseLostError } from './lease.js';
export type { Prompt } from './messages.js';
export type { PendingChanges, ProgressSave, RunProgress } from './progress.js';
export type { PublishedRun, SavedConversation } from './published.js';
export { MAX_LOST_ATTEMPTS, type ReclaimResult } from './reclaim.js';
export type { SpendReservation } from './reserve.js';
export type { RecordedStep } from './usage.js';

export function queueQueries(db: Db) {
  return {
    ...claimQueries(db),
    ...reclaimQueries(db),
    ...leaseQueries(db),
    ...messageQueries(db),
    ...publishedQueries(db),
    ...progressQueries(db),
    ...completeQueries(db),
    ...failQueries(db),
    ...usageQueries(db),
    ...reserveQueries(db),
    ...waitingQueries(db),
    ...checkQueries(db),
  };
}

export type QueueQueries = ReturnType<typeof queueQueries>;
