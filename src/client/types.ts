import type { components, operations } from './schema.js';

/** A job (docs/api.md): every field is always present, null where it does not apply. */
export type Job = components['schemas']['Job'];
export type JobStatus = Job['status'];
/** Why a failed job failed (`job.error.code`): switch on it; a later server may add codes. */
export type JobFailureCode = NonNullable<Job['error']>['code'];
/** One entry of a job's activity; `seq` rises by one per job. */
export type JobEvent = components['schemas']['JobEvent'];
export type ApiErrorBody = components['schemas']['Error'];

/** What `createJob` sends: a prompt and the optional extensions (`model`, `baseRef`, `draft`). */
export type CreateJobInput = NonNullable<
  operations['createJob']['requestBody']
>['content']['application/json'];

/** A page of `listJobs`. */
export type JobPage = operations['listJobs']['responses'][200]['content']['application/json'];
/** A page of `getEvents`. */
export type EventPage = operations['listJobEvents']['responses'][200]['content']['application/json'];

/** Options every call takes. */
export interface CallOptions {
  /** The project; the client's `projectId` by default. */
  projectId?: string;
  /** Aborts the call (and any wait between its retries). */
  signal?: AbortSignal;
}
