import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import { ID_PATTERN } from '../../domain/ids.js';
import type { Project } from '../../domain/project.js';
import type { Store } from '../../store/store.js';
import {
  archiveBody,
  createJobBody,
  errorSchema,
  followUpBody,
  jobListSchema,
  jobParams,
  jobSchema,
  listJobsQuery,
  projectParams,
} from '../schemas.js';

export interface JobRoutesOptions {
  config: Config;
  store: Store;
}

const KNOWN_PROVIDERS = /^(anthropic|openai|openai-compatible):\S+$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

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
  if (!KNOWN_PROVIDERS.test(requested) || (allowed && !allowed.includes(requested))) {
    const hint = allowed
      ? ` Allowed: ${allowed.join(', ')}.`
      : ' Use provider:model with anthropic, openai or openai-compatible.';
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
        summary: 'Create a job',
        params: projectParams,
        body: createJobBody(config.limits.maxPromptChars),
        response: { 201: jobSchema, ...errors },
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
      const idempotencyKey = typeof header === 'string' ? sha256(header) : undefined;
      if (idempotencyKey !== undefined) {
        const reservation = await store.idempotency.reserve(
          projectId,
          idempotencyKey,
          fingerprint(request.body),
        );
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
          ...(idempotencyKey ? { idempotencyKey } : {}),
        });
        return reply.code(201).header('location', `/v2/agent/${projectId}/job/${job.id}`).send(job);
      } catch (error) {
        if (idempotencyKey) await store.idempotency.release(projectId, idempotencyKey);
        throw error;
      }
    },
  );

  app.get(
    '/v2/agent/:projectId/job',
    {
      schema: {
        summary: 'List jobs, newest first',
        params: projectParams,
        querystring: listJobsQuery,
        response: { 200: jobListSchema, ...errors },
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
        summary: 'Get a job (poll this)',
        params: jobParams,
        response: { 200: jobSchema, ...errors },
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
        summary: 'Send a follow-up prompt',
        params: jobParams,
        body: followUpBody(config.limits.maxPromptChars),
        response: { 200: jobSchema, ...errors, 409: errorSchema },
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
        summary: 'Archive a job (stops it first when active)',
        params: jobParams,
        body: archiveBody,
        response: { 200: jobSchema, ...errors },
      },
    },
    async (request) => {
      const { projectId, jobId } = request.params;
      return store.jobs.archive(projectId, jobId);
    },
  );
};
