/**
 * What a run published, recorded right after its push so that a retry finishes the run instead of
 * redoing it. A worker that dies between the push and the completion leaves the job to another
 * attempt; that attempt finds this record, opens the pull request if it was not yet opened (the
 * code hosts reuse the branch's pull request, so this is safe to repeat) and completes the job with
 * the recorded outcome, without running the agent again and without a second commit. `complete`,
 * `fail` and a reclaim that fails the job clear the record.
 */
import type { RunUsage } from '../../domain/job.js';
import type { Db } from '../db.js';
import { fence, type Lease } from './lease.js';

/** A run between its push and its completion. */
export interface PublishedRun {
  summary: string;
  title: string;
  /** The pull request, once opened; null in `push` mode or while it is still to open. */
  prLink: string | null;
  /** The pull request still to open (the branch is pushed), or null when nothing is left to do. */
  pullRequest: { title: string; body: string; draft: boolean } | null;
  /** The commit pushed. */
  headSha: string;
  filesChanged: number;
  /** The run's usage, added to the job's when it completes. */
  usage: RunUsage;
}

/** The conversation a run saves with its published state, for a follow-up. */
export interface SavedConversation {
  conversation: unknown[];
  /** The newest message id the conversation includes. */
  deliveredThrough: string | null;
}

export function publishedQueries(db: Db) {
  return {
    /**
     * Records what the run published (fenced); `saved` also stores its conversation, which the
     * completion then leaves as it is. Throws `LeaseLostError`.
     */
    async recordPublished(lease: Lease, run: PublishedRun, saved?: SavedConversation): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const state = {
          published: JSON.stringify(run),
          head_sha: run.headSha,
          updated_at: new Date().toISOString(),
          ...(saved
            ? { conversation: JSON.stringify(saved.conversation), delivered_through: saved.deliveredThrough }
            : {}),
        };
        await trx
          .insertInto('job_worker_state')
          .values({ job_id: lease.jobId, lost_attempts: 0, ...state })
          .onConflict((conflict) => conflict.column('job_id').doUpdateSet(state))
          .execute();
      });
    },

    /** The published state of the job's current run, or null when it has none. */
    async published(jobId: string): Promise<PublishedRun | null> {
      const row = await db
        .read()
        .selectFrom('job_worker_state')
        .select('published')
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row?.published ? (JSON.parse(row.published) as PublishedRun) : null;
    },
  };
}
