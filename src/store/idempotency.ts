import type { Db, Transaction } from './db.js';

/** How long a key protects a create. */
const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A reservation this old without a job belongs to a request that died; it no longer blocks. */
const ABANDONED_MS = 60_000;

export type Reservation =
  | { state: 'reserved' }
  | { state: 'in_flight' }
  | { state: 'mismatch' }
  | { state: 'done'; jobId: string };

export function idempotencyQueries(db: Db) {
  const { kysely } = db;
  return {
    /**
     * Claims `key` for a request whose body hashes to `requestHash`, or says what already holds
     * it. The reservation is committed on its own, so a concurrent retry sees it as in flight.
     */
    async reserve(
      projectId: string,
      key: string,
      requestHash: string,
      now = new Date(),
    ): Promise<Reservation> {
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

    /** Gives a reservation back after a request failed, so that a retry can succeed. */
    async release(projectId: string, key: string): Promise<void> {
      await kysely
        .deleteFrom('idempotency_keys')
        .where('project_id', '=', projectId)
        .where('key', '=', key)
        .where('job_id', 'is', null)
        .execute();
    },
  };
}

/** Ties a reservation to the job it created, in the job's own transaction. */
export async function completeReservation(
  trx: Transaction,
  projectId: string,
  key: string,
  jobId: string,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ job_id: jobId })
    .where('project_id', '=', projectId)
    .where('key', '=', key)
    .execute();
}
