/**
 * The prompts of a run and the conversation they continue. A job's prompts are its
 * `job_messages` (the first prompt and every follow-up). A run starts with every message its
 * job's saved conversation does not cover yet, and takes the ones that arrive meanwhile at each
 * step of the agent; `delivered_at` records the hand-over. A command's message (`rebase`, `retry`)
 * is never taken at a step: it waits for the job's next run, which a `rebase` starts by making the
 * branch again on its base (run/phases/prepare.ts).
 */
import { sql } from 'kysely';
import type { Db } from '../db.js';
import { fence, type Lease } from './lease.js';

export interface Prompt {
  id: string;
  content: string;
}

/** The newest message the job's saved conversation covers ('' before any): a message after it is still to be given. */
const coveredThrough = (jobId: string) =>
  sql<string>`coalesce((select s.delivered_through from job_worker_state s where s.job_id = ${jobId}), '')`;

async function rebaseWaiting(db: Db, jobId: string): Promise<boolean> {
  const row = await db
    .read()
    .selectFrom('job_messages as m')
    .select('m.id')
    .where('m.job_id', '=', jobId)
    .where('m.command', '=', 'rebase')
    .where((eb) => eb.or([eb('m.delivered_at', 'is', null), eb('m.id', '>', coveredThrough(jobId))]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function messageQueries(db: Db) {
  /** Marks and returns messages of the job, oldest first; `all`: also those handed to a run that never finished. */
  const take = (lease: Lease, all: boolean) =>
    db.write(async (trx) => {
      await fence(db, trx, lease);
      let query = trx
        .selectFrom('job_messages as m')
        .select(['m.id', 'm.content'])
        .where('m.job_id', '=', lease.jobId)
        .orderBy('m.id');
      query = all
        ? query.where((eb) =>
            eb.or([eb('m.delivered_at', 'is', null), eb('m.id', '>', coveredThrough(lease.jobId))]),
          )
        : query.where('m.delivered_at', 'is', null).where('m.command', 'is', null);
      const prompts: Prompt[] = await query.execute();
      const fresh = prompts.map((prompt) => prompt.id);
      if (fresh.length > 0) {
        await trx
          .updateTable('job_messages')
          .set({ delivered_at: new Date().toISOString() })
          .where('id', 'in', fresh)
          .where('delivered_at', 'is', null)
          .execute();
      }
      return prompts;
    });

  return {
    /** The prompts a run starts with: every message not covered by the saved conversation. */
    takePrompts: (lease: Lease) => take(lease, true),
    /**
     * Follow-ups that arrived since the last take (handed to the agent at its next step). Asked
     * before every step, and mostly there are none: a read finds that out without a write.
     */
    async takePending(lease: Lease): Promise<Prompt[]> {
      const waiting = await db
        .read()
        .selectFrom('job_messages')
        .select('id')
        .where('job_id', '=', lease.jobId)
        .where('delivered_at', 'is', null)
        .where('command', 'is', null)
        .limit(1)
        .executeTakeFirst();
      return waiting ? take(lease, false) : [];
    },

    /**
     * Whether the prompts this run starts with (`takePrompts`, not taken yet) hold a `rebase`: read
     * before the run opens its workspace. A run that dies before it ends leaves them to the next
     * attempt, which makes the branch again in its turn.
     */
    rebaseWaiting: (jobId: string): Promise<boolean> => rebaseWaiting(db, jobId),

    /** The saved conversation (AI SDK `ModelMessage[]`), empty before the first completed run. */
    async conversation(jobId: string): Promise<unknown[]> {
      const row = await db
        .read()
        .selectFrom('job_worker_state')
        .select('conversation')
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row?.conversation ? (JSON.parse(row.conversation) as unknown[]) : [];
    },

    /** The commit last pushed for the job, or null. */
    async headSha(jobId: string): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('job_worker_state')
        .select('head_sha')
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row?.head_sha ?? null;
    },
  };
}
