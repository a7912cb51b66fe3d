import { JOB_STATUSES } from '../domain/job.js';
import type { Db } from './db.js';

/** Jobs by status across every project, and the active ones waiting for a worker. */
export interface JobCounts {
  byStatus: Record<string, number>;
  queued: number;
}

/**
 * Database-wide figures for the metrics gauges. Read on a timer, never on a request's path; both
 * counts are answered from the `(status, …)` indexes of `jobs`.
 */
export function statsQueries(db: Db) {
  return {
    async jobCounts(): Promise<JobCounts> {
      const reader = db.read();
      const [rows, queued] = await Promise.all([
        reader
          .selectFrom('jobs')
          .select((eb) => ['status', eb.fn.countAll<string | number>().as('count')])
          .groupBy('status')
          .execute(),
        reader
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<string | number>().as('count'))
          .where('status', '=', 'active')
          .where('phase', '=', 'queued')
          .executeTakeFirstOrThrow(),
      ]);
      // Every status is reported, zero included, so a status that empties does not keep its last value.
      const byStatus: Record<string, number> = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0]));
      for (const row of rows) byStatus[row.status] = Number(row.count);
      return { byStatus, queued: Number(queued.count) };
    },
  };
}
