/**
 * The end of a failed run, in one transaction: `failed` with the error, an `error` and a `status`
 * event. When the agent got as far as talking to the model, its partial conversation and usage are
 * kept, so a follow-up continues from there; otherwise the conversation stays as the last run saved
 * it and the messages this run received stay uncovered by it, so a follow-up hands them over again.
 */
import { type JobError, type RunUsage, transitionOf } from '../../domain/job.js';
import type { Db } from '../db.js';
import { eventAppender } from '../events.js';
import { readJob } from '../jobs.js';
import { addUsage, releaseReservation } from '../spend.js';
import { webhookOutbox } from '../webhooks/outbox.js';
import { fence, type Lease, resetLostAttempts } from './lease.js';
import { deleteProgressMessages } from './progress.js';

/** What a failed run had done (the agent's `AgentError.partial`). */
export interface PartialRun {
  conversation: unknown[];
  usage: RunUsage;
  /** The newest message id the conversation includes. */
  deliveredThrough: string | null;
}

export function failQueries(db: Db) {
  const appendEvent = eventAppender(db);
  const emitWebhook = webhookOutbox(db);
  return {
    /** Throws `LeaseLostError` when the run no longer holds the job. */
    async fail(lease: Lease, error: JobError, partial?: PartialRun): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = new Date().toISOString();
        // The run is over: a follow-up starts a new one, from the branch as it was pushed.
        const state = {
          ...(partial
            ? {
                conversation: JSON.stringify(partial.conversation),
                delivered_through: partial.deliveredThrough,
              }
            : {}),
          published: null,
          progress: null,
          updated_at: at,
        };
        await trx
          .insertInto('job_worker_state')
          .values({ job_id: lease.jobId, head_sha: null, lost_attempts: 0, ...state })
          .onConflict((conflict) => conflict.column('job_id').doUpdateSet(state))
          .execute();
        await deleteProgressMessages(trx, lease.jobId);
        await releaseReservation(trx, lease.jobId);
        if (partial) await addUsage(trx, lease.jobId, partial.usage, at);
        const change = transitionOf('fail');
        await trx
          .updateTable('jobs')
          .set({
            status: change.to,
            phase: null,
            error_code: error.code,
            error_message: error.message,
            completed_at: at,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: at,
          })
          .where('id', '=', lease.jobId)
          .where('attempt', '=', lease.attempt)
          .where('status', 'in', change.from)
          .execute();
        await resetLostAttempts(trx, lease.jobId, at);
        await appendEvent(trx, lease.jobId, 'error', { ...error }, at);
        await appendEvent(trx, lease.jobId, 'status', { status: change.to, error }, at);
        await emitWebhook(trx, 'job.failed', await readJob(trx, lease.jobId));
      });
    },
  };
}
