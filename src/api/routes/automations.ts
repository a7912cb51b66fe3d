/**
 * The automation routes (docs/automations.md): create, list, read, change, delete, run
 * now, and the runs. Keys of the project: `read` to list, `write` to change or trigger (the v2
 * hook's rule by method). The rules live in `operations/automations.ts`; a route only says them in HTTP.
 */

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config/config.js';
import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { AppError } from '../../domain/errors.js';
import type { Job } from '../../domain/job.js';
import type { Lifecycle } from '../../domain/lifecycle.js';
import {
  type AutomationSaveDeps,
  automationNotFound,
  createAutomation,
  triggerAutomation,
  updateAutomation,
} from '../../operations/automations.js';
import type { Store } from '../../store/store.js';
import {
  automationListSchema,
  automationParams,
  automationRunListSchema,
  automationSchema,
  createAutomationBody,
  listRunsQuery,
  triggerAutomationBody,
  updateAutomationBody,
} from '../automation-schemas.js';
import { commonErrors, errorResponse, jobSchema, jsonResponse, projectParams } from '../schemas.js';

export interface AutomationRoutesOptions {
  /** What saving and running an automation read: the job operations' config and the automations'. */
  config: AutomationSaveDeps['config'] & Pick<Config, 'automations'>;
  store: Store;
  /** The names of a project's context repositories, which a `code_change` trigger names one of. */
  contextRepositoryNames?: (projectId: string) => Promise<string[]>;
  /** Whether a job's pull request is still open, for grouping (see `operations/automation-run.ts`). */
  pullRequestOpen?: (job: Job) => Promise<boolean>;
  /** The process's lifecycle: a draining process runs no automation by hand. */
  lifecycle?: Lifecycle;
}

const tags = ['Automations'];
const notFoundResponse = errorResponse(
  'project_not_found, automation_not_found: no such project, or no such automation in it',
);
const errors = { ...commonErrors, 404: notFoundResponse };
const invalidResponse = errorResponse(
  'invalid_automation, model_not_allowed: an invalid cron, timezone, template placeholder, branch, unknown context repository, or a model the project does not allow; `details` names the field',
);

export const automationRoutes: FastifyPluginAsyncZod<AutomationRoutesOptions> = async (app, options) => {
  const deps = routeDeps(options);
  // Registered in this order, which is the OpenAPI document's.
  createAndReadRoutes(app, deps);
  changeRoutes(app, deps);
  runRoutes(app, deps);
};

type App = Parameters<FastifyPluginAsyncZod<AutomationRoutesOptions>>[0];
type RouteDeps = ReturnType<typeof routeDeps>;

const base = '/v2/agent/:projectId/automations';
const one = `${base}/:automationId`;

/** What the automation operations are given: the store, the config and the options' hooks. */
function routeDeps(options: AutomationRoutesOptions) {
  const { config, store } = options;
  return {
    store,
    config,
    automations: config.automations,
    lifecycle: options.lifecycle,
    ...(options.contextRepositoryNames ? { contextRepositoryNames: options.contextRepositoryNames } : {}),
    ...(options.pullRequestOpen ? { pullRequestOpen: options.pullRequestOpen } : {}),
  };
}

async function automationOf(store: Store, projectId: string, automationId: string) {
  const automation = await store.automations.get(projectId, automationId);
  if (!automation) throw automationNotFound(automationId);
  return automation;
}

async function projectMustExist(store: Store, projectId: string) {
  if (!(await store.projects.get(projectId)))
    throw new AppError('project_not_found', `No project ${projectId}.`);
}

/** Creating an automation, listing them, reading one. */
function createAndReadRoutes(app: App, deps: RouteDeps): void {
  const { store } = deps;
  app.post(
    base,
    {
      schema: {
        operationId: 'createAutomation',
        summary: 'Create an automation',
        description:
          'An automation starts jobs by itself: on a schedule, a code change, a comment, or on demand.',
        tags,
        params: projectParams,
        body: createAutomationBody,
        response: {
          201: jsonResponse('The automation', automationSchema),
          ...errors,
          422: invalidResponse,
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const automation = await createAutomation(deps, projectId, request.body);
      request.log.info({ projectId, automationId: automation.id }, 'automation created');
      return reply
        .code(201)
        .header('location', `/v2/agent/${projectId}/automations/${automation.id}`)
        .send(automation);
    },
  );

  app.get(
    base,
    {
      schema: {
        operationId: 'listAutomations',
        summary: 'List automations',
        description: "The project's automations.",
        tags,
        params: projectParams,
        response: { 200: jsonResponse('The automations', automationListSchema), ...errors },
      },
    },
    async (request) => {
      await projectMustExist(store, request.params.projectId);
      return { automations: await store.automations.list(request.params.projectId) };
    },
  );

  app.get(
    one,
    {
      schema: {
        operationId: 'getAutomation',
        summary: 'Get an automation',
        description: 'One automation, with its last and next run times.',
        tags,
        params: automationParams,
        response: { 200: jsonResponse('The automation', automationSchema), ...errors },
      },
    },
    async (request) => automationOf(store, request.params.projectId, request.params.automationId),
  );
}

/** Changing and deleting an automation. */
function changeRoutes(app: App, deps: RouteDeps): void {
  const { store } = deps;
  app.patch(
    one,
    {
      schema: {
        operationId: 'updateAutomation',
        summary: 'Change an automation',
        description: 'Changes any field but its id; enabling it again schedules its next time from now.',
        tags,
        params: automationParams,
        body: updateAutomationBody,
        response: {
          200: jsonResponse('The automation as changed', automationSchema),
          ...errors,
          422: invalidResponse,
        },
      },
    },
    async (request) =>
      updateAutomation(deps, request.params.projectId, request.params.automationId, request.body),
  );

  app.delete(
    one,
    {
      schema: {
        operationId: 'deleteAutomation',
        summary: 'Delete an automation',
        description: 'Deletes the automation and its runs; the jobs it made stay.',
        tags,
        params: automationParams,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
    },
    async (request, reply) => {
      const { projectId, automationId } = request.params;
      if (!(await store.automations.delete(projectId, automationId))) throw automationNotFound(automationId);
      request.log.info({ projectId, automationId }, 'automation deleted');
      return reply.code(204).send(null);
    },
  );
}

/** Running an automation now, and its runs. */
function runRoutes(app: App, deps: RouteDeps): void {
  const { store } = deps;
  app.post(
    `${one}/trigger`,
    {
      schema: {
        operationId: 'triggerAutomation',
        summary: 'Run an automation now',
        description:
          'Runs it now: 201 with a new job, or 200 with the job the run was grouped into (its pull request is still open). A run that cannot go is recorded as skipped and answered as an error.',
        tags,
        params: automationParams,
        body: triggerAutomationBody,
        response: {
          200: jsonResponse('The job the run was grouped into', jobSchema),
          201: jsonResponse('The new job', jobSchema),
          ...errors,
          409: errorResponse('automation_disabled: the automation is disabled'),
          429: errorResponse(
            "automation_limit_exceeded, budget_exceeded, too_many_active_jobs: the day's runs, the daily budget or the active-job cap are used; see Retry-After",
          ),
        },
      },
    },
    async (request, reply) => {
      const { projectId, automationId } = request.params;
      const { run, job } = await triggerAutomation(
        deps,
        projectId,
        automationId,
        request.body?.variables ?? {},
      );
      request.log.info(
        { projectId, automationId, jobId: job.id, outcome: run.outcome },
        'automation triggered',
      );
      return reply
        .code(run.outcome === 'created' ? 201 : 200)
        .header('location', `/v2/agent/${projectId}/job/${job.id}`)
        .send(job);
    },
  );

  app.get(
    `${one}/runs`,
    {
      schema: {
        operationId: 'listAutomationRuns',
        summary: 'List the runs of an automation, newest first',
        description:
          'Every event the automation saw: created, grouped or skipped with the reason; pass nextCursor as cursor for the next page.',
        tags,
        params: automationParams,
        querystring: listRunsQuery,
        response: { 200: jsonResponse('A page of runs', automationRunListSchema), ...errors },
      },
    },
    async (request) => {
      const { projectId, automationId } = request.params;
      await automationOf(store, projectId, automationId);
      const { limit, cursor } = request.query;
      const before = cursor === undefined ? undefined : decodeCursor(cursor);
      const page = await store.automations.runs(automationId, { limit, ...(before ? { before } : {}) });
      const last = page.runs.at(-1);
      return { runs: page.runs, nextCursor: page.more && last ? encodeCursor(last.id) : null };
    },
  );
}
