/**
 * Leases whose worker is gone (docs/architecture.md#the-queue-and-its-fencing): a job held by a worker that stopped renewing goes
 * back to the queue, counting a lost attempt; the third lost attempt of a run fails the job with
 * `worker_lost` instead of handing it to yet another worker that may die the same way. Two ways
 * find such a job: its lease expired (`reclaimExpired`, any worker), or a worker of the same data
 * directory saw the holder's process gone (`reclaimFromGone`, at its start: background/registry.ts),
 * which counts no lost attempt when a person stopped that process at once (a second Ctrl-C).
 */

import { sql } from 'kysely';
import type { PhaseReason } from '../../domain/events.js';
import type { JobError } from '../../domain/job.js';
import { transitionOf } from '../../domain/job.js';
import { JOBS_CHANNEL } from '../channels.js';
import type { Db, Transaction } from '../db.js';
import { type AppendEvent, eventAppender } from '../events.js';
import { readJob } from '../jobs.js';
import { releaseReservation } from '../spend.js';
import { type EmitWebhookEvent, webhookOutbox } from '../webhooks/outbox.js';
import { HELD_PHASES, resetLostAttempts } from './lease.js';
import { deleteProgressMessages } from './progress.js';

/** Lost attempts after which a job fails. */
export const MAX_LOST_ATTEMPTS = 3;

export interface ReclaimResult {
  requeued: string[];
  failed: string[];
}

/** What reclaiming writes with: the database, the job's events and its outgoing webhooks. */
interface Reclaimer {
  db: Db;
  appendEvent: AppendEvent;
  emitWebhook: EmitWebhookEvent;
}

/** Requeues (or fails) each held job of `found` at its attempt; the rest was claimed meanwhile. */
async function reclaim(
  reclaimer: Reclaimer,
  trx: Transaction,
  found: readonly { id: string; attempt: number }[],
  reason: PhaseReason,
  at: string,
  counted = true,
): Promise<ReclaimResult> {
  const result: ReclaimResult = { requeued: [], failed: [] };
  for (const { id, attempt } of found) {
    const lost = await countLost(trx, id, counted ? 1 : 0, at);
    // The run that held the lease is gone: its step in flight must not hold the budget.
    await releaseReservation(trx, id);
    if (counted && lost >= MAX_LOST_ATTEMPTS) {
      await failLost(reclaimer, trx, { id, attempt, lost }, at);
      result.failed.push(id);
    } else {
      await requeue(reclaimer, trx, { id, attempt }, reason, at);
      result.requeued.push(id);
    }
  }
  if (result.requeued.length > 0) await reclaimer.db.notify(JOBS_CHANNEL, result.requeued.join(','));
  return result;
}

/** Adds `step` to the job's lost attempts; returns how many it has now. */
async function countLost(trx: Transaction, id: string, step: number, at: string): Promise<number> {
  const { lost_attempts } = await trx
    .insertInto('job_worker_state')
    .values({ job_id: id, lost_attempts: step, updated_at: at })
    .onConflict((conflict) =>
      conflict.column('job_id').doUpdateSet({
        lost_attempts: sql<number>`job_worker_state.lost_attempts + ${step}`,
        updated_at: at,
      }),
    )
    .returning('lost_attempts')
    .executeTakeFirstOrThrow();
  return Number(lost_attempts);
}

const unleased = (at: string) => ({ lease_owner: null, lease_expires_at: null, updated_at: at });

/** Fails a job whose workers were lost `lost` times in a row with `worker_lost`. */
async function failLost(
  { appendEvent, emitWebhook }: Reclaimer,
  trx: Transaction,
  { id, attempt, lost }: { id: string; attempt: number; lost: number },
  at: string,
): Promise<void> {
  const error: JobError = {
    code: 'worker_lost',
    message: `The worker running this job stopped responding ${lost} times in a row.`,
  };
  const change = transitionOf('fail');
  await trx
    .updateTable('jobs')
    .set({
      ...unleased(at),
      status: change.to,
      phase: null,
      error_code: error.code,
      error_message: error.message,
      completed_at: at,
    })
    .where('id', '=', id)
    .where('attempt', '=', attempt)
    .where('status', 'in', change.from)
    .execute();
  await resetLostAttempts(trx, id, at);
  await trx
    .updateTable('job_worker_state')
    .set({ published: null, progress: null })
    .where('job_id', '=', id)
    .execute();
  await deleteProgressMessages(trx, id);
  await appendEvent(trx, id, 'error', error, at);
  await appendEvent(trx, id, 'status', { status: change.to, error }, at);
  await emitWebhook(trx, 'job.failed', await readJob(trx, id));
}

/** Hands a job back to the queue, claimable at once. */
async function requeue(
  { appendEvent }: Reclaimer,
  trx: Transaction,
  { id, attempt }: { id: string; attempt: number },
  reason: PhaseReason,
  at: string,
): Promise<void> {
  const change = transitionOf('requeue');
  await trx
    .updateTable('jobs')
    .set({ ...unleased(at), status: change.to, phase: 'queued', available_at: at })
    .where('id', '=', id)
    .where('attempt', '=', attempt)
    .where('status', 'in', change.from)
    .execute();
  await appendEvent(trx, id, 'phase', { phase: 'queued', reason, attempt }, at);
}

export function reclaimQueries(db: Db) {
  const reclaimer: Reclaimer = { db, appendEvent: eventAppender(db), emitWebhook: webhookOutbox(db) };
  return {
    /** Requeues (or fails) up to `limit` jobs whose lease expired before now. */
    async reclaimExpired(limit = 100): Promise<ReclaimResult> {
      const at = new Date().toISOString();
      return db.write(async (trx) => {
        const query = trx
          .selectFrom('jobs')
          .select(['id', 'attempt'])
          .where('status', '=', 'active')
          .where(sql<boolean>`phase in ${HELD_PHASES}`)
          .where('lease_expires_at', '<', at)
          .orderBy('id')
          .limit(limit);
        const expired = await db.lockForUpdate(query, { skipLocked: true }).execute();
        return reclaim(reclaimer, trx, expired, 'lease_expired', at);
      });
    },

    /**
     * Requeues (or fails) at once every job held by one of `owners`, workers whose process the
     * caller saw gone, without waiting for their leases to expire. The caller must know they are
     * gone: a live worker would lose its run (its next fenced write fails and it stops).
     * `counted: false` (a person stopped them at once) requeues without counting a lost attempt.
     */
    async reclaimFromGone(
      owners: readonly string[],
      options: { counted?: boolean } = {},
    ): Promise<ReclaimResult> {
      if (owners.length === 0) return { requeued: [], failed: [] };
      const at = new Date().toISOString();
      return db.write(async (trx) => {
        const query = trx
          .selectFrom('jobs')
          .select(['id', 'attempt'])
          .where('status', '=', 'active')
          .where(sql<boolean>`phase in ${HELD_PHASES}`)
          .where('lease_owner', 'in', owners)
          .orderBy('id');
        const held = await db.lockForUpdate(query, { skipLocked: true }).execute();
        return reclaim(reclaimer, trx, held, 'worker_gone', at, options.counted ?? true);
      });
    },
  };
}
