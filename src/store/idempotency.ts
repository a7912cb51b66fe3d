import { AppError } from '../domain/errors.js';
import type { Db, Transaction } from './db.js';
import { retryTransient } from './transient.js';

/** How long a key protects a create. */
const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A reservation this old without a job belongs to a request that died; it no longer blocks. */
const ABANDONED_MS = 60_000;
/** How long a failed create keeps trying to give its key back while the database is unreachable. */
const RELEASE_WITHIN_MS = 10_000;

export type Reservation =
  | { state: 'reserved' }
  | { state: 'in_flight' }
  | { state: 'mismatch' }
  | { state: 'done'; jobId: string };

/** A request's claim on a key: `owner` is a token the request chose, unique to it. */
export interface Claim {
  projectId: string;
  key: string;
  owner: string;
}

export function idempotencyQueries(db: Db) {
  const { kysely } = db;
  return {
    /**
     * Claims `key` for a request whose body hashes to `requestHash`, or says what already holds
     * it. The reservation is committed on its own, so a concurrent retry sees it as in flight.
     */
    async reserve(claim: Claim, requestHash: string, now = new Date()): Promise<Reservation> {
      const { projectId, key, owner } = claim;
      return db.write(async (trx) => {
        const nowIso = now.toISOString();
        const abandoned = new Date(now.getTime() - ABANDONED_MS).toISOString();
        await trx
          .deleteFrom('idempotency_keys')
          .where('project_id', '=', projectId)
          .where('key', '=', key)
          .where((eb) =>
            eb.or([
              eb('expires_at', '<=', nowIso),
              eb.and([eb('job_id', 'is', null), eb('created_at', '<', abandoned)]),
            ]),
          )
          .execute();
        const inserted = await trx
          .insertInto('idempotency_keys')
          .values({
            project_id: projectId,
            key,
            request_hash: requestHash,
            job_id: null,
            created_at: nowIso,
            expires_at: new Date(now.getTime() + RETENTION_MS).toISOString(),
            owner,
          })
          .onConflict((oc) => oc.columns(['project_id', 'key']).doNothing())
          .returning('key')
          .executeTakeFirst();
        if (inserted) return { state: 'reserved' };
        const existing = await trx
          .selectFrom('idempotency_keys')
          .select(['request_hash', 'job_id'])
          .where('project_id', '=', projectId)
          .where('key', '=', key)
          .executeTakeFirstOrThrow();
        if (existing.request_hash !== requestHash) return { state: 'mismatch' };
        if (existing.job_id === null) return { state: 'in_flight' };
        return { state: 'done', jobId: existing.job_id };
      });
    },

    /**
     * Gives the claim's reservation back after its request failed, so that a retry can succeed;
     * a no-op when the request never held the key. A create fails most often because the database
     * went away, and then this delete fails too: it tries again until the database is back
     * (deleting twice is harmless), or the key would answer "in flight" to every retry until the
     * reservation counts as abandoned.
     */
    async release({ projectId, key, owner }: Claim): Promise<void> {
      await retryTransient(
        () =>
          kysely
            .deleteFrom('idempotency_keys')
            .where('project_id', '=', projectId)
            .where('key', '=', key)
            .where('owner', '=', owner)
            .where('job_id', 'is', null)
            .execute(),
        RELEASE_WITHIN_MS,
        db.isTransient,
      );
    },
  };
}

/**
 * Ties the claim's reservation to the job it created, in the job's own transaction. Throws when
 * the claim no longer holds the key (it was taken over as abandoned), which rolls the create back:
 * the request that holds the key now makes the job.
 */
export async function completeReservation(trx: Transaction, claim: Claim, jobId: string): Promise<void> {
  const updated = await trx
    .updateTable('idempotency_keys')
    .set({ job_id: jobId })
    .where('project_id', '=', claim.projectId)
    .where('key', '=', claim.key)
    .where('owner', '=', claim.owner)
    .where('job_id', 'is', null)
    .executeTakeFirst();
  if (updated.numUpdatedRows === 0n) {
    throw new AppError('idempotency_in_flight', 'Another request now holds this Idempotency-Key.', {
      retryAfterSeconds: 1,
    });
  }
}
