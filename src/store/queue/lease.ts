/**
 * Leases and fencing (docs/architecture.md#the-queue-and-its-fencing). A claim raises `attempt` and names the worker in
 * `lease_owner`; every later write of that run is fenced with both, and with `status = 'active'`,
 * so a worker whose lease was taken over, or whose job was archived, changes nothing and learns
 * that it must stop.
 */
import { sql } from 'kysely';
import type { EventData, EventType, NewEvent } from '../../domain/events.js';
import type { JobPhase } from '../../domain/job.js';
import { JOBS_CHANNEL } from '../channels.js';
import type { Db, Queryable, Transaction } from '../db.js';
import { eventAppender, eventsAppender } from '../events.js';
import { releaseReservation } from '../spend.js';
import { retryTransient } from '../transient.js';

/** One claim of a job: the fence for every write of that run. */
export interface Lease {
  jobId: string;
  attempt: number;
  /** The worker's id. */
  owner: string;
}

/**
 * The run's lease no longer holds: `archived` (the job was archived, so nothing may be published)
 * or `lost` (it expired and was reclaimed, or another attempt took over). The run must abort.
 */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  readonly reason: 'archived' | 'lost';
  constructor(lease: Lease, reason: 'archived' | 'lost') {
    super(
      reason === 'archived'
        ? `Job ${lease.jobId} was archived during attempt ${lease.attempt}.`
        : `Attempt ${lease.attempt} of job ${lease.jobId} lost its lease.`,
    );
    this.reason = reason;
  }
}

export const isLeaseLost = (error: unknown): error is LeaseLostError => error instanceof LeaseLostError;

const now = () => new Date().toISOString();

/** Why a fenced write matched no row. */
async function lostError(executor: Queryable, lease: Lease): Promise<LeaseLostError> {
  const row = await executor
    .selectFrom('jobs')
    .select('status')
    .where('id', '=', lease.jobId)
    .executeTakeFirst();
  return new LeaseLostError(lease, row?.status === 'archived' ? 'archived' : 'lost');
}

/**
 * Checks the lease inside a write transaction and, on PostgreSQL, locks the job row until commit,
 * so nothing can take the lease between this check and the caller's writes. On SQLite the
 * `BEGIN IMMEDIATE` of `Db.write` already excludes every other writer.
 */
export async function fence(db: Db, trx: Transaction, lease: Lease): Promise<void> {
  const query = trx
    .selectFrom('jobs')
    .select('id')
    .where('id', '=', lease.jobId)
    .where('attempt', '=', lease.attempt)
    .where('lease_owner', '=', lease.owner)
    .where('status', '=', 'active');
  const row = await db.lockForUpdate(query).executeTakeFirst();
  if (!row) throw await lostError(trx, lease);
}

export function leaseQueries(db: Db) {
  return { ...leaseRenewals(db), ...fencedWrites(db) };
}

/** Which of `jobIds` are archived: a lease that stopped holding for that is not lost. */
async function archivedJobIds(db: Db, jobIds: string[]): Promise<Set<string>> {
  const rows = await db
    .read()
    .selectFrom('jobs')
    .select('id')
    .where('id', 'in', jobIds)
    .where('status', '=', 'archived')
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Keeping leases: one run's, or every run a worker holds at once. */
function leaseRenewals(db: Db) {
  return {
    /**
     * Renews the lease for `leaseMs`; throws `LeaseLostError` when it no longer holds. While the
     * database is away (a restart), it keeps trying for up to `leaseMs`: a renewal is harmless to
     * repeat, and until the lease has really lapsed no other worker can take the job, so the run
     * carries on. Once the database is back, a lease another worker took meanwhile reports lost.
     */
    async heartbeat(lease: Lease, leaseMs: number): Promise<void> {
      const renewed = await retryTransient(
        async () => {
          const result = await db.kysely
            .updateTable('jobs')
            .set({ lease_expires_at: new Date(Date.now() + leaseMs).toISOString() })
            .where('id', '=', lease.jobId)
            .where('attempt', '=', lease.attempt)
            .where('lease_owner', '=', lease.owner)
            .where('status', '=', 'active')
            .executeTakeFirst();
          return Number(result.numUpdatedRows) > 0;
        },
        leaseMs,
        db.isTransient,
      );
      if (!renewed) throw await lostError(db.read(), lease);
    },

    /**
     * Renews the leases of every run a worker holds in one statement, however many: a worker that
     * holds hundreds of runs would otherwise write once per run per beat. Returns the leases that no
     * longer hold, with why (archived, or lost); the others are renewed for `leaseMs`. Keeps trying
     * while the database is away, like `heartbeat`.
     */
    async renewLeases(
      owner: string,
      leases: readonly Lease[],
      leaseMs: number,
    ): Promise<{ lease: Lease; reason: 'archived' | 'lost' }[]> {
      const mine = leases.filter((lease) => lease.owner === owner);
      if (mine.length === 0) return leases.map((lease) => ({ lease, reason: 'lost' as const }));
      const held = sql.join(mine.map((lease) => sql`(${lease.jobId}, cast(${lease.attempt} as integer))`));
      const renewed = await retryTransient(
        async () => {
          const rows = await db.kysely
            .updateTable('jobs')
            .set({ lease_expires_at: new Date(Date.now() + leaseMs).toISOString() })
            .where('lease_owner', '=', owner)
            .where('status', '=', 'active')
            .where(sql<boolean>`(id, attempt) in (values ${held})`)
            .returning(['id', 'attempt'])
            .execute();
          return new Set(rows.map((row) => `${row.id}:${Number(row.attempt)}`));
        },
        leaseMs,
        db.isTransient,
      );
      const gone = leases.filter((lease) => !renewed.has(`${lease.jobId}:${lease.attempt}`));
      if (gone.length === 0) return [];
      const archived = await archivedJobIds(
        db,
        gone.map((lease) => lease.jobId),
      );
      return gone.map((lease) => ({ lease, reason: archived.has(lease.jobId) ? 'archived' : 'lost' }));
    },
  };
}

/** What a run writes under its lease: each write fenced by it. */
function fencedWrites(db: Db) {
  const appendEvent = eventAppender(db);
  const appendEvents = eventsAppender(db);
  return {
    /** Moves the run to its next phase, with its `phase` event. */
    async setPhase(lease: Lease, phase: Exclude<JobPhase, 'queued'>): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = now();
        await trx.updateTable('jobs').set({ phase, updated_at: at }).where('id', '=', lease.jobId).execute();
        await appendEvent(trx, lease.jobId, 'phase', { phase }, at);
      });
    },

    /**
     * Moves the job to a new branch (`source.ref`): a follow-up whose pull request was merged or
     * closed starts one from the base as it is now (docs/api.md).
     */
    async moveBranch(lease: Lease, ref: string): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await trx
          .updateTable('jobs')
          .set({ source_ref: ref, updated_at: now() })
          .where('id', '=', lease.jobId)
          .execute();
      });
    },

    /** Appends an event of the run (the agent's activity, a commit, a pull request), fenced. */
    async appendEvent<Type extends EventType>(
      lease: Lease,
      type: Type,
      data: EventData[Type],
    ): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await appendEvent(trx, lease.jobId, type, data);
      });
    },

    /** Appends several events of the run in order, in one fenced transaction (a step's events). */
    async appendEvents(lease: Lease, events: readonly NewEvent[]): Promise<void> {
      if (events.length === 0) return;
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        await appendEvents(trx, lease.jobId, events);
      });
    },

    /**
     * Hands the job back to the queue without counting a lost attempt (a worker shutting down):
     * phase `queued`, lease cleared, claimable at once, and other workers woken. Messages handed to
     * this run and not covered by its saved progress (progress.ts) are given again to the next.
     */
    async release(lease: Lease): Promise<void> {
      await db.write(async (trx) => {
        await fence(db, trx, lease);
        const at = now();
        await releaseReservation(trx, lease.jobId);
        await trx
          .updateTable('jobs')
          .set({
            phase: 'queued',
            lease_owner: null,
            lease_expires_at: null,
            available_at: at,
            updated_at: at,
          })
          .where('id', '=', lease.jobId)
          .execute();
        await appendEvent(trx, lease.jobId, 'phase', { phase: 'queued', reason: 'released' }, at);
        await db.notify(JOBS_CHANNEL, lease.jobId);
      });
    },
  };
}

/** `lost_attempts = 0` for a job whose run ended; used by complete, fail and reclaim. */
export async function resetLostAttempts(trx: Transaction, jobId: string, at: string): Promise<void> {
  await trx
    .updateTable('job_worker_state')
    .set({ lost_attempts: 0, updated_at: at })
    .where('job_id', '=', jobId)
    .execute();
}

/** Literal list of the phases in which a worker holds the job. */
export const HELD_PHASES = sql.raw(`('preparing', 'running', 'publishing')`);
