/**
 * The progress of a run, saved after each of its finished steps, so that the attempt that follows a
 * lost one (a worker killed, a server restarted) continues from there instead of asking the model
 * for the same steps again (worker/progress.ts). Cleared when the run ends (complete, fail).
 */
import type { Db } from '../db.js';
import { fence, type Lease } from './lease.js';

/** The agent's changes not yet committed, as blob ids in the project's mirror over `head`. */
export interface PendingChanges {
  /** The commit the changes apply to. */
  head: string;
  written: { path: string; mode: string; sha: string }[];
  deleted: string[];
}

/** What a run has done so far. */
export interface RunProgress {
  /** The attempt that saved it. */
  attempt: number;
  /** The conversation after the last finished step (AI SDK `ModelMessage[]`). */
  conversation: unknown[];
  /** The newest message id the conversation includes. */
  deliveredThrough: string | null;
  /** The files written so far; null when the run had no workspace open. */
  changes: PendingChanges | null;
  savedAt: string;
}

export function progressQueries(db: Db) {
  return {
    /**
     * Saves the run's progress (fenced). A run that makes progress also clears the job's count of
     * lost attempts: that count is there to fail a job whose runs keep dying without getting
     * anywhere (one that brings its worker down), not one whose server was stopped a few times.
     */
    async saveProgress(lease: Lease, progress: Omit<RunProgress, 'attempt' | 'savedAt'>): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = new Date().toISOString();
        const saved: RunProgress = { ...progress, attempt: lease.attempt, savedAt: at };
        const state = { progress: JSON.stringify(saved), lost_attempts: 0, updated_at: at };
        await trx
          .insertInto('job_worker_state')
          .values({ job_id: lease.jobId, ...state })
          .onConflict((conflict) => conflict.column('job_id').doUpdateSet(state))
          .execute();
      });
    },

    /** The progress an earlier attempt of the job's current run saved, or null. */
    async progress(jobId: string): Promise<RunProgress | null> {
      const row = await db
        .read()
        .selectFrom('job_worker_state')
        .select('progress')
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row?.progress ? (JSON.parse(row.progress) as RunProgress) : null;
    },
  };
}
