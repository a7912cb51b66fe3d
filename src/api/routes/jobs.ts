import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError, type LimitState } from '../../domain/errors.js';
import type { Lifecycle } from '../../domain/lifecycle.js';
import { createJob, type JobOperationDeps } from '../../operations/create-job.js';
import { followUp } from '../../operations/follow-up.js';
import { createJobInput, followUpInput } from '../../operations/input.js';
import { getJob, listJobs } from '../../operations/pages.js';
import type { Store } from '../../store/store.js';
import {
  archiveBody,
  bodyErrors,
  commonErrors,
  createJobHeaders,
  errorResponse,
  jobListSchema,
  jobNotFound,
  jobParams,
  jobSchema,
  jsonResponse,
  listJobsQuery,
  projectParams,
} from '../schemas.js';

export interface JobRoutesOptions {
  config: JobOperationDeps['config'];
  store: Store;
  /** The process's lifecycle: a draining process takes no new job or follow-up. */
  lifecycle?: Lifecycle;
}

const jobResponse = (description: string) => jsonResponse(description, jobSchema);

/** The budget headers of a counted call (the IETF RateLimit draft, as before a refusal). */
function budgetHeaders(budget: LimitState): Record<string, string> {
  return {
    'ratelimit-limit': String(budget.limit),
    'ratelimit-remaining': String(budget.remaining),
    'ratelimit-reset': String(budget.resetSeconds),
  };
}

// The rules are the job operations' (`src/operations/`); a route reads the request and writes the answer.
export const jobRoutes: FastifyPluginAsyncZod<JobRoutesOptions> = async (app, options) => {
  // Registered in this order, which is the OpenAPI document's.
  createRoute(app, options);
  readRoutes(app, options);
  followUpRoute(app, options);
  archiveRoute(app, options);
};

type App = Parameters<FastifyPluginAsyncZod<JobRoutesOptions>>[0];

const jobPath = '/v2/agent/:projectId/job/:jobId';

/** Creating a job. */
function createRoute(app: App, { config, store, lifecycle }: JobRoutesOptions): void {
  app.post(
    '/v2/agent/:projectId/job',
    {
      schema: {
        operationId: 'createJob',
        tags: ['Jobs'],
        summary: 'Create a job',
        description:
          'Creates a job from a prompt and answers at once; the agent works in the background. Poll the job, follow its events, or get a webhook. With an Idempotency-Key header a create is safe to retry for 24 hours: the same key and body return the same job (Idempotent-Replayed: true).',
        params: projectParams,
        headers: createJobHeaders,
        body: createJobInput(config.limits.maxPromptChars),
        response: {
          201: jobResponse('The job, active and queued (or the job an Idempotency-Key already made)'),
          ...commonErrors,
          404: errorResponse('project_not_found: no such project'),
          409: errorResponse('idempotency_in_flight: a request with this Idempotency-Key is still running'),
          ...bodyErrors,
          422: errorResponse(
            'idempotency_mismatch, model_not_allowed: the key was used with another body, or the model is not allowed',
          ),
          429: errorResponse(
            "rate_limited, too_many_active_jobs: the project's hourly budget is spent, or it has too many active jobs; see Retry-After",
          ),
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const header = request.headers['idempotency-key'];
      if (header !== undefined && typeof header !== 'string') {
        throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
      }
      const { job, replayed, budget } = await createJob(
        { store, config, log: request.log, lifecycle },
        { projectId, ...request.body, idempotencyKey: header },
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      if (budget) reply.headers(budgetHeaders(budget));
      return reply.code(201).header('location', `/v2/agent/${projectId}/job/${job.id}`).send(job);
    },
  );
}

/** Listing jobs and reading one. */
function readRoutes(app: App, { store }: JobRoutesOptions): void {
  app.get(
    '/v2/agent/:projectId/job',
    {
      schema: {
        operationId: 'listJobs',
        tags: ['Jobs'],
        summary: 'List jobs',
        description:
          'Jobs of the project, newest first, a page at a time; pass nextCursor as cursor for the next.',
        params: projectParams,
        querystring: listJobsQuery,
        response: {
          200: jsonResponse('A page of jobs', jobListSchema),
          ...commonErrors,
          404: errorResponse('project_not_found: no such project'),
        },
      },
    },
    async (request) => listJobs(store, request.params.projectId, request.query),
  );

  app.get(
    jobPath,
    {
      schema: {
        operationId: 'getJob',
        tags: ['Jobs'],
        summary: 'Get a job',
        description:
          'The job as it is now: the polling endpoint. A job is done when its status is completed, failed or archived.',
        params: jobParams,
        response: { 200: jobResponse('The job'), ...commonErrors, 404: jobNotFound },
      },
    },
    async (request) => getJob(store, request.params.projectId, request.params.jobId),
  );
}

/** Following up on a job. */
function followUpRoute(app: App, { config, store, lifecycle }: JobRoutesOptions): void {
  app.post(
    `${jobPath}/message`,
    {
      schema: {
        operationId: 'sendMessage',
        tags: ['Jobs'],
        summary: 'Send a follow-up prompt',
        description:
          'Gives the agent another prompt on the same branch and pull request. A completed or failed job becomes active again; for an active job the prompt is handed to the agent at its next step.',
        params: jobParams,
        body: followUpInput(config.limits.maxPromptChars),
        response: {
          200: jobResponse('The job, active again'),
          ...commonErrors,
          404: jobNotFound,
          409: errorResponse('job_archived: the job is archived, which is final'),
          ...bodyErrors,
          429: errorResponse("rate_limited: the project's hourly budget is spent; see Retry-After"),
        },
      },
    },
    async (request, reply) => {
      const { projectId, jobId } = request.params;
      const { job, budget } = await followUp(
        { store, config, lifecycle },
        { projectId, jobId, ...request.body },
      );
      if (budget) reply.headers(budgetHeaders(budget));
      return reply.send(job);
    },
  );
}

/** Archiving a job. */
function archiveRoute(app: App, { store }: JobRoutesOptions): void {
  app.post(
    `${jobPath}/archive`,
    {
      schema: {
        operationId: 'archiveJob',
        tags: ['Jobs'],
        summary: 'Archive a job',
        description:
          'Archives the job; an active run is stopped first and its unpublished work dropped. Archiving an archived job returns it unchanged.',
        params: jobParams,
        body: archiveBody,
        response: { 200: jobResponse('The job, archived'), ...commonErrors, 404: jobNotFound, ...bodyErrors },
      },
    },
    async (request) => {
      const { projectId, jobId } = request.params;
      return store.jobs.archive(projectId, jobId);
    },
  );
}
