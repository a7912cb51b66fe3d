/**
 * The pull requests that archiving jobs left to close (`jobs.pr_close_due_at`, set by
 * `jobs.archive`): taken by any process that has the code hosts, closed there, then cleared, or
 * tried again later when the host failed.
 */
import type { Db } from './db.js';
import { eventAppender } from './events.js';

/** An archived job whose pull request is to be closed. */
export interface DuePullRequestClose {
  jobId: string;
  projectId: string;
  /** The pull request's head branch. */
  branch: string;
  prLink: string;
  /** Tries before this one. */
  attempts: number;
}

export function pullRequestCloseQueries(db: Db) {
  const { kysely } = db;
  const appendEvent = eventAppender(db);
  return {
    /**
     * Takes up to `limit` closes that are due: each is pushed `leaseMs` into the future by a
     * conditional update, so two processes never close the same one at once, and one that died
     * mid-close leaves it to be taken again.
     */
    async take(limit: number, leaseMs: number, now = new Date()): Promise<DuePullRequestClose[]> {
      const at = now.toISOString();
      const rows = await db
        .read()
        .selectFrom('jobs')
        .select(['id', 'project_id', 'source_ref', 'pr_link', 'pr_close_attempts', 'pr_close_due_at'])
        .where('pr_close_due_at', '<=', at)
        .orderBy('pr_close_due_at')
        .limit(limit)
        .execute();
      const taken: DuePullRequestClose[] = [];
      const until = new Date(now.getTime() + leaseMs).toISOString();
      for (const row of rows) {
        const result = await kysely
          .updateTable('jobs')
          .set({ pr_close_due_at: until })
          .where('id', '=', row.id)
          .where('pr_close_due_at', '=', row.pr_close_due_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1 || row.pr_link === null) continue;
        taken.push({
          jobId: row.id,
          projectId: row.project_id,
          branch: row.source_ref,
          prLink: row.pr_link,
          attempts: Number(row.pr_close_attempts),
        });
      }
      return taken;
    },

    /** The close is done (or given up): a `pull_request` event on the job says which. */
    async finish(jobId: string, outcome: { closed: boolean; url: string; message: string }): Promise<void> {
      await db.write(async (trx) => {
        await trx.updateTable('jobs').set({ pr_close_due_at: null }).where('id', '=', jobId).execute();
        await appendEvent(trx, jobId, 'pull_request', {
          action: outcome.closed ? 'closed' : 'close_failed',
          url: outcome.url,
          message: outcome.message,
        });
      });
    },

    /** The host failed: try again at `nextAt`. */
    async retryAt(jobId: string, attempts: number, nextAt: Date): Promise<void> {
      await kysely
        .updateTable('jobs')
        .set({ pr_close_due_at: nextAt.toISOString(), pr_close_attempts: attempts })
        .where('id', '=', jobId)
        .execute();
    },
  };
}
