import { type Kysely, sql } from 'kysely';
import { compileStatement, type Db } from './db.js';
import type { Database, JobEventRow } from './schema.js';

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

export type AppendEvent = (
  trx: Kysely<Database>,
  jobId: string,
  type: EventType,
  data: Record<string, unknown>,
  at?: string,
) => Promise<JobEvent>;

/**
 * Appends an event inside the caller's transaction. The sequence number comes from a counter on
 * the job row: the update takes the row lock, so concurrent writers (API and worker) serialize and
 * never hand out the same number. Both statements are compiled once: every job write runs them.
 */
export function eventAppender(db: Db): AppendEvent {
  const nextSeq = compileStatement(db, (k) =>
    k
      .updateTable('jobs')
      // A literal, not a bound 1: the compiled statement must take only the job id.
      .set({ event_seq: sql<number>`event_seq + 1` })
      .where('id', '=', '?')
      .returning('event_seq'),
  );
  const insert = compileStatement(db, (k) =>
    k.insertInto('job_events').values({ job_id: '?', seq: 0, type: '?', at: '?', data: '?' }),
  );
  return async (trx, jobId, type, data, at = new Date().toISOString()) => {
    const [row] = await nextSeq(trx, jobId);
    if (!row) throw new Error(`job ${jobId} vanished while writing its event`);
    const seq = Number(row.event_seq);
    await insert(trx, jobId, seq, type, at, JSON.stringify(data));
    return { seq, type, at, data };
  };
}

export function eventQueries(db: Db) {
  const { kysely } = db;
  const appendEvent = eventAppender(db);
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
      return rows.map(toEvent);
    },

    /** The newest `limit` events, oldest first: the tail of a long job's activity. */
    async latest(jobId: string, limit: number): Promise<JobEvent[]> {
      const rows = await kysely
        .selectFrom('job_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .orderBy('seq', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toEvent).reverse();
    },

    /** Every event of the given types, oldest first (plans and commits, however long the job). */
    async ofTypes(jobId: string, types: EventType[], limit = 10_000): Promise<JobEvent[]> {
      const rows = await kysely
        .selectFrom('job_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('type', 'in', types)
        .orderBy('seq', 'asc')
        .limit(limit)
        .execute();
      return rows.map(toEvent);
    },
  };
}

function toEvent(row: JobEventRow): JobEvent {
  return {
    seq: Number(row.seq),
    type: row.type as EventType,
    at: row.at,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
