/**
 * The claim (docs/architecture.md#the-queue-and-its-fencing): up to `limit` queued jobs, oldest first, whose project runs fewer
 * than `perProject` jobs, become `preparing` under a lease of this worker, with `attempt` raised.
 * One statement for each kind of database, the one place where they really differ:
 * - where writes run side by side (PostgreSQL): `with … for update skip locked … update …
 *   returning`. Claims are serialized first (`Db.serialize`), so that two workers cannot both see a
 *   project below its limit and both claim (the count is a read, not a lock); claims are short, so
 *   serializing them costs nothing.
 * - where writes run one at a time (SQLite): one `update … returning` inside `Db.write`.
 * The queue position of a job inside its project (`row_number`) makes one claim of several jobs
 * respect the per-project limit too.
 */
import { sql } from 'kysely';
import type { Job } from '../../domain/job.js';
import type { Db } from '../db.js';
import { eventAppender } from '../events.js';
import { toJob } from '../jobs.js';
import type { JobRow } from '../schema.js';
import { HELD_PHASES } from './lease.js';

/** An arbitrary, fixed key for `Db.serialize`: "agentjobs claim". */
const CLAIM_LOCK_KEY = 0x61_6a_63_6c;

export interface ClaimOptions {
  owner: string;
  limit: number;
  perProject: number;
  leaseMs: number;
}

/** A job this worker now holds, with the attempt that fences its writes. */
export interface ClaimedJob {
  job: Job;
  attempt: number;
  /** When the job last entered the queue (created, followed up, handed back). */
  queuedAt: string;
}

export function claimQueries(db: Db) {
  const appendEvent = eventAppender(db);
  return {
    async claim(options: ClaimOptions): Promise<ClaimedJob[]> {
      if (options.limit <= 0) return [];
      const at = new Date().toISOString();
      const expires = new Date(Date.now() + options.leaseMs).toISOString();
      return db.write(async (trx) => {
        const running = sql`(select count(*) from jobs r
          where r.project_id = c.project_id and r.status = 'active' and r.phase in ${HELD_PHASES})`;
        const candidates = sql`select id, project_id,
            row_number() over (partition by project_id order by id) as position
          from jobs where status = 'active' and phase = 'queued' and available_at <= ${at}`;
        const set = sql`phase = 'preparing', attempt = attempt + 1, lease_owner = ${options.owner},
          lease_expires_at = ${expires}, updated_at = ${at}`;
        let rows: JobRow[];
        if (!db.capabilities.serializedWrites) {
          await db.serialize(trx, CLAIM_LOCK_KEY);
          const result = await sql<JobRow>`
            with c as (${candidates}),
            picked as (
              select j.id from jobs j join c on c.id = j.id
              where j.status = 'active' and j.phase = 'queued'
                and c.position + ${running} <= ${options.perProject}
              order by j.id
              limit ${options.limit}
              for update of j skip locked
            )
            update jobs set ${set} from picked where jobs.id = picked.id
            returning jobs.*`.execute(trx);
          rows = result.rows;
        } else {
          const result = await sql<JobRow>`
            update jobs set ${set}
            where id in (
              select c.id from (${candidates}) c
              where c.position + ${running} <= ${options.perProject}
              order by c.id
              limit ${options.limit}
            )
            returning *`.execute(trx);
          rows = result.rows;
        }
        rows.sort((a, b) => (a.id < b.id ? -1 : 1));
        for (const row of rows) {
          await appendEvent(trx, row.id, 'phase', { phase: 'preparing', attempt: Number(row.attempt) }, at);
        }
        // The events raised event_seq after RETURNING; the API reads it fresh, the worker never.
        return rows.map((row) => ({
          job: toJob(row),
          attempt: Number(row.attempt),
          queuedAt: row.available_at,
        }));
      });
    },
  };
}
