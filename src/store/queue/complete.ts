/**
 * The end of a successful run, in one transaction: the job's outcome, the conversation a follow-up
 * continues, and the `status` event. A follow-up that arrived after the agent's last look at its
 * messages is not dropped: the job stays active and goes back to the queue, to continue on the same
 * branch, with the outcome so far (PR link included) already on the job. The run's published state
 * (published.ts) is cleared: the run is over.
 */
import { type RunUsage, transitionOf } from '../../domain/job.js';
import { JOBS_CHANNEL } from '../channels.js';
import type { Db } from '../db.js';
import { eventAppender } from '../events.js';
import { readJob } from '../jobs.js';
import { addUsage, releaseReservation } from '../spend.js';
import { webhookOutbox } from '../webhooks/outbox.js';
import { fence, type Lease } from './lease.js';
import { deleteProgressMessages } from './progress.js';

export interface RunOutcome {
  summary: string;
  title: string | null;
  /** The pull request, or null when nothing was published as one. */
  prLink: string | null;
  /** This run's usage not yet recorded step by step (`recordUsage`); added to the job's total. */
  usage: RunUsage;
  filesChanged: number;
  /**
   * The whole conversation so far (AI SDK `ModelMessage[]`), for the next follow-up; absent when
   * the run saved it already (`recordPublished`), and then `deliveredThrough` is ignored too.
   */
  conversation?: unknown[];
  /** The newest message id this run's conversation includes (see `job_worker_state.delivered_through`). */
  deliveredThrough?: string | null;
  /** The commit pushed, when one was. */
  headSha: string | null;
  /** The pull request was opened as a draft (failing checks under `draft`): the job says so too. */
  draft?: boolean;
}

export function completeQueries(db: Db) {
  const appendEvent = eventAppender(db);
  const emitWebhook = webhookOutbox(db);
  return {
    /** Returns `completed`, or `requeued` when a follow-up is waiting. Throws `LeaseLostError`. */
    async complete(lease: Lease, outcome: RunOutcome): Promise<'completed' | 'requeued'> {
      return db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = new Date().toISOString();
        const state = {
          ...(outcome.conversation
            ? {
                conversation: JSON.stringify(outcome.conversation),
                delivered_through: outcome.deliveredThrough ?? null,
              }
            : {}),
          published: null,
          progress: null,
          lost_attempts: 0,
          updated_at: at,
          ...(outcome.headSha ? { head_sha: outcome.headSha } : {}),
        };
        await trx
          .insertInto('job_worker_state')
          .values({ job_id: lease.jobId, head_sha: null, ...state })
          .onConflict((conflict) => conflict.column('job_id').doUpdateSet(state))
          .execute();
        await deleteProgressMessages(trx, lease.jobId);

        const waiting = await trx
          .selectFrom('job_messages')
          .select('id')
          .where('job_id', '=', lease.jobId)
          .where('delivered_at', 'is', null)
          .limit(1)
          .executeTakeFirst();
        const common = {
          summary: outcome.summary,
          title: outcome.title,
          pr_link: outcome.prLink,
          files_changed: outcome.filesChanged,
          ...(outcome.draft ? { draft: 1 } : {}),
          lease_owner: null,
          lease_expires_at: null,
          updated_at: at,
        };
        const change = transitionOf(waiting ? 'requeue' : 'finish');
        await releaseReservation(trx, lease.jobId);
        await addUsage(trx, lease.jobId, outcome.usage, at);
        await trx
          .updateTable('jobs')
          .set({
            ...common,
            status: change.to,
            ...(waiting ? { phase: 'queued', available_at: at } : { phase: null, completed_at: at }),
          })
          .where('id', '=', lease.jobId)
          .where('attempt', '=', lease.attempt)
          .where('status', 'in', change.from)
          .execute();
        if (waiting) {
          await appendEvent(trx, lease.jobId, 'phase', { phase: 'queued', reason: 'follow_up' }, at);
          await db.notify(JOBS_CHANNEL, lease.jobId);
          return 'requeued';
        }
        await appendEvent(trx, lease.jobId, 'status', { status: change.to, prLink: outcome.prLink }, at);
        await emitWebhook(trx, 'job.completed', await readJob(trx, lease.jobId));
        return 'completed';
      });
    },
  };
}
