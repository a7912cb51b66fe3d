/**
 * Reading jobs and their activity a page at a time, the same for the API and MCP: the cursors are
 * the operations', so a cursor one of them hands out works with the other.
 */
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { AppError } from '../domain/errors.js';
import type { JobEvent } from '../domain/events.js';
import type { Job, JobStatus } from '../domain/job.js';
import type { Store } from '../store/store.js';

/** A page of jobs, newest first, and the cursor of the next (null: none). */
export async function listJobs(
  store: Store,
  projectId: string,
  query: { status?: JobStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<{ jobs: Job[]; nextCursor: string | null }> {
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const page = await store.jobs.list(projectId, {
    limit: query.limit,
    ...(query.status ? { status: query.status } : {}),
    ...(before ? { before } : {}),
  });
  const last = page.jobs.at(-1);
  return { jobs: page.jobs, nextCursor: page.more && last ? encodeCursor(last.id) : null };
}

/** The job, or 404 `job_not_found` (an id of any shape that names no job of the project). */
export async function getJob(store: Store, projectId: string, jobId: string): Promise<Job> {
  const job = await store.jobs.get(projectId, jobId);
  if (!job) throw new AppError('job_not_found', `No job ${jobId} in this project.`);
  return job;
}

/** A page of the job's events after `after`, oldest first, and the cursor of the next (null: none). */
export async function listEvents(
  store: Store,
  jobId: string,
  query: { after: number; limit: number },
): Promise<{ events: JobEvent[]; nextCursor: string | null }> {
  const events = await store.events.list(jobId, query.after, query.limit + 1);
  const page = events.slice(0, query.limit);
  const last = page.at(-1);
  return { events: page, nextCursor: events.length > query.limit && last ? String(last.seq) : null };
}
