import type { Kysely } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

export const EVENT_TYPES = [
  'status',
  'phase',
  'message',
  'tool_call',
  'tool_result',
  'plan',
  'commit',
  'pull_request',
  'usage',
  'error',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One entry of a job's activity. `seq` rises by one per job, so `after=<seq>` resumes exactly. */
export interface JobEvent {
  seq: number;
  type: EventType;
  at: string;
  data: Record<string, unknown>;
}

/**
 * Appends an event inside the caller's transaction. The sequence number comes from a counter on
 * the job row: the update takes the row lock, so concurrent writers (API and worker) serialize and
 * never hand out the same number.
 */
export async function appendEvent(
  trx: Kysely<Database>,
  jobId: string,
  type: EventType,
  data: Record<string, unknown>,
  at = new Date().toISOString(),
): Promise<JobEvent> {
  const { event_seq: seq } = await trx
    .updateTable('jobs')
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
    .where('id', '=', jobId)
    .returning('event_seq')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('job_events')
    .values({ job_id: jobId, seq, type, at, data: JSON.stringify(data) })
    .execute();
  return { seq, type, at, data };
}

export function eventQueries(db: Db) {
  const { kysely } = db;
  return {
    append: (jobId: string, type: EventType, data: Record<string, unknown>) =>
      db.write((trx) => appendEvent(trx, jobId, type, data)),

    /** Events with `seq > after`, oldest first, at most `limit`. */
    async list(jobId: string, after: number, limit: number): Promise<JobEvent[]> {
      const rows = await kysely
        .selectFrom('job_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('seq', '>', after)
        .orderBy('seq', 'asc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        seq: Number(row.seq),
        type: row.type as EventType,
        at: row.at,
        data: JSON.parse(row.data) as Record<string, unknown>,
      }));
    },
  };
}
