/**
 * The progress of a run, saved after each of its finished steps, so that the attempt that follows a
 * lost one (a worker killed, a server restarted) continues from there instead of asking the model
 * for the same steps again (run/progress.ts). Cleared when the run ends (complete, fail).
 *
 * A step adds a few messages to a conversation that can be long (every file the agent read is in
 * it), so the messages are kept one row each in `job_progress_messages` and a save writes only the
 * ones that changed since the attempt's previous save; `job_worker_state.progress` holds the rest
 * of the record and how many rows make the conversation. Both are written in one transaction.
 */
import type { Db, Transaction } from '../db.js';
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

/**
 * One save: the conversation's messages from index `from` on (each as JSON); the ones before it
 * are what the same attempt saved before, unchanged (`from` is 0 at an attempt's first save).
 */
export interface ProgressSave {
  from: number;
  messages: string[];
  deliveredThrough: string | null;
  changes: PendingChanges | null;
}

/** `job_worker_state.progress`: the record without its messages, which are `messages` rows. */
interface ProgressRecord extends Omit<RunProgress, 'conversation'> {
  messages: number;
}

/** Rows per insert: well under SQLite's limit of bound values in one statement. */
const ROWS_PER_INSERT = 500;

/** Removes a job's progress messages; the caller clears `job_worker_state.progress` in the same transaction. */
export async function deleteProgressMessages(trx: Transaction, jobId: string): Promise<void> {
  await trx.deleteFrom('job_progress_messages').where('job_id', '=', jobId).execute();
}

/**
 * Writes a save of the run's progress inside the caller's fenced transaction. A run that makes
 * progress also clears the job's count of lost attempts: that count is there to fail a job whose
 * runs keep dying without getting anywhere (one that brings its worker down), not one whose
 * server was stopped a few times.
 */
export async function writeProgress(trx: Transaction, lease: Lease, save: ProgressSave): Promise<void> {
  for (let start = 0; start < save.messages.length; start += ROWS_PER_INSERT) {
    const rows = save.messages.slice(start, start + ROWS_PER_INSERT).map((message, index) => ({
      job_id: lease.jobId,
      seq: save.from + start + index,
      message,
    }));
    // Rows past the record's count (a longer conversation an earlier save or attempt left) are
    // never read, and are written over here when the conversation grows that far.
    await trx
      .insertInto('job_progress_messages')
      .values(rows)
      .onConflict((conflict) =>
        conflict.columns(['job_id', 'seq']).doUpdateSet((eb) => ({ message: eb.ref('excluded.message') })),
      )
      .execute();
  }
  const at = new Date().toISOString();
  const record: ProgressRecord = {
    attempt: lease.attempt,
    messages: save.from + save.messages.length,
    deliveredThrough: save.deliveredThrough,
    changes: save.changes,
    savedAt: at,
  };
  const state = { progress: JSON.stringify(record), lost_attempts: 0, updated_at: at };
  await trx
    .insertInto('job_worker_state')
    .values({ job_id: lease.jobId, ...state })
    .onConflict((conflict) => conflict.column('job_id').doUpdateSet(state))
    .execute();
}

export function progressQueries(db: Db) {
  return {
    /** Saves the run's progress (fenced; `writeProgress`). */
    async saveProgress(lease: Lease, save: ProgressSave): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await writeProgress(trx, lease, save);
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
      if (!row?.progress) return null;
      const saved = JSON.parse(row.progress) as ProgressRecord | RunProgress;
      // A record saved by a version before `job_progress_messages` holds its conversation itself.
      if ('conversation' in saved) return saved;
      const { messages: count, ...rest } = saved;
      const rows = await db
        .read()
        .selectFrom('job_progress_messages')
        .select('message')
        .where('job_id', '=', jobId)
        .where('seq', '<', count)
        .orderBy('seq')
        .execute();
      return { ...rest, conversation: rows.map((message) => JSON.parse(message.message) as unknown) };
    },
  };
}
