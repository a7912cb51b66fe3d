import { createHash, randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MODEL_ID_PATTERN } from '../../agent/model-id.js';
import type { Config } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import { ID_PATTERN } from '../../domain/ids.js';
import type { Project } from '../../domain/project.js';
import type { Store } from '../../store/store.js';
import {
  archiveBody,
  bodyErrors,
  commonErrors,
  createJobBody,
  createJobHeaders,
  errorResponse,
  followUpBody,
  jobListSchema,
  jobNotFound,
  jobParams,
  jobSchema,
  jsonResponse,
  listJobsQuery,
  projectParams,
} from '../schemas.js';

export interface JobRoutesOptions {
  config: Config;
  store: Store;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

const jobResponse = (description: string) => jsonResponse(description, jobSchema);

/** `nextCursor` is opaque to clients: base64url of the last job id on the page. */
const encodeCursor = (jobId: string) => Buffer.from(jobId).toString('base64url');
function decodeCursor(cursor: string): string {
  const jobId = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!ID_PATTERN.test(jobId)) {
    throw new AppError('invalid_request', 'cursor is not valid; pass nextCursor from the previous page.', {
      details: [{ path: 'querystring.cursor', message: 'is not a cursor this API issued' }],
    });
  }
  return jobId;
}

function resolveModel(config: Config, project: Project, requested: string | undefined): string {
  if (requested === undefined) return project.defaultModel ?? config.defaultModel;
  const allowed = project.allowedModels;
  if (!MODEL_ID_PATTERN.test(requested) || (allowed && !allowed.includes(requested))) {
    const hint = allowed
      ? ` Allowed: ${allowed.join(', ')}.`
      : ' Use provider:model with anthropic, openai or openai-compatible, or demo.';
    throw new AppError('model_not_allowed', `Model "${requested}" is not allowed for this project.${hint}`);
  }
  return requested;
}

/** The create body's fingerprint for idempotency: key order must not matter. */
export function fingerprint(body: Record<string, unknown>): string {
  return sha256(
    JSON.stringify(
      Object.keys(body)
        .sort()
        .map((key) => [key, body[key]]),
    ),
  );
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const jobRoutes: FastifyPluginAsyncZod<JobRoutesOptions> = async (app, { config, store }) => {
  const budget = { rateLimit: {} };
  // A create spends the hourly budget only when it is going to make a job: an idempotent replay,
  // a request still in flight (409) and a reused key with another body (422) create nothing, so
  // a client retrying after a timeout cannot use up its own budget, and gets its job back even
  // when the budget is spent. The budget is therefore spent in the handler, after the key.
  const spendBudget = app.rateLimit();
  const jobPath = '/v2/agent/:projectId/job/:jobId';

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
        body: createJobBody(config.limits.maxPromptChars),
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
      const project = await store.projects.get(projectId);
      if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
      const model = resolveModel(config, project, request.body.model);

      const header = request.headers['idempotency-key'];
      if (header !== undefined && (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header))) {
        throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
      }
      // Only equality matters, so only a digest is stored: clients put all sorts of things there.
      const claim =
        typeof header === 'string' ? { projectId, key: sha256(header), owner: randomUUID() } : undefined;
      // Gives the key back when this request fails; the failure itself stays the answer, and a key
      // that cannot be given back stops blocking once its reservation counts as abandoned.
      const release = async () => {
        if (!claim) return;
        await store.idempotency.release(claim).catch((releaseError: unknown) => {
          request.log.warn({ err: releaseError }, 'could not release an Idempotency-Key reservation');
        });
      };
      if (claim) {
        // When the reservation's commit is lost with the connection, this request may hold the
        // key without knowing it; the release is a no-op if it does not.
        const reservation = await store.idempotency
          .reserve(claim, fingerprint(request.body))
          .catch(async (error: unknown) => {
            await release();
            throw error;
          });
        if (reservation.state === 'mismatch') {
          throw new AppError(
            'idempotency_mismatch',
            'This Idempotency-Key was used with a different request body.',
          );
        }
        if (reservation.state === 'in_flight') {
          throw new AppError(
            'idempotency_in_flight',
            'A request with this Idempotency-Key is still in progress.',
            {
              retryAfterSeconds: 1,
            },
          );
        }
        if (reservation.state === 'done') {
          const job = await store.jobs.get(projectId, reservation.jobId);
          if (job) {
            reply.header('idempotent-replayed', 'true');
            return reply.code(201).header('location', `/v2/agent/${projectId}/job/${job.id}`).send(job);
          }
        }
      }

      try {
        await spendBudget.call(app, request, reply);
        const job = await store.jobs.create({
          projectId,
          prompt: request.body.prompt,
          model,
          baseRef: request.body.baseRef ?? project.baseBranch,
          repository: project.repository,
          draft: request.body.draft ?? false,
          maxActive: config.limits.activeJobsPerProject,
          ...(claim ? { idempotency: claim } : {}),
        });
        return reply.code(201).header('location', `/v2/agent/${projectId}/job/${job.id}`).send(job);
      } catch (error) {
        await release();
        throw error;
      }
    },
  );

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
    async (request) => {
      const { projectId } = request.params;
      const { status, limit, cursor } = request.query;
      const before = cursor === undefined ? undefined : decodeCursor(cursor);
      const page = await store.jobs.list(projectId, {
        limit,
        ...(status ? { status } : {}),
        ...(before ? { before } : {}),
      });
      const last = page.jobs.at(-1);
      return { jobs: page.jobs, nextCursor: page.more && last ? encodeCursor(last.id) : null };
    },
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
    async (request) => {
      const { projectId, jobId } = request.params;
      const job = await store.jobs.get(projectId, jobId);
      if (!job) throw new AppError('job_not_found', `No job ${jobId} in this project.`);
      return job;
    },
  );

  app.post(
    `${jobPath}/message`,
    {
      config: budget,
      schema: {
        operationId: 'sendMessage',
        tags: ['Jobs'],
        summary: 'Send a follow-up prompt',
        description:
          'Gives the agent another prompt on the same branch and pull request. A completed or failed job becomes active again; for an active job the prompt is handed to the agent at its next step.',
        params: jobParams,
        body: followUpBody(config.limits.maxPromptChars),
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
    async (request) => {
      const { projectId, jobId } = request.params;
      return store.jobs.followUp(projectId, jobId, request.body.prompt);
    },
  );

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
};
