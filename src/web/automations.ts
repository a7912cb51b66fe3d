/**
 * The Automations tab of a project (docs/automations.md; section 8): the list with each
 * trigger in words, a new automation from one of the shipped templates or from scratch, and an
 * automation's page with its settings, enable and disable, Run now and its runs. Saving and running
 * go through `operations/automations.ts`, the operations the API's routes call, so the rules, the day's
 * run limit and the budgets are the API's. Every form posts its CSRF token (checked in
 * `dashboard.ts`) and redirects after a success (post/redirect/get).
 */
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import type { Automation } from '../domain/automation.js';
import { automationTemplate } from '../domain/automation-templates.js';
import { type AppError, isAppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import { errorHeaders, statusOf, toAppError } from '../http/errors.js';
import { createAutomation, triggerAutomation, updateAutomation } from '../operations/automations.js';
import {
  type AutomationErrors,
  automationInput,
  automationValues,
  errorsOf,
  readAutomationForm,
  runRefusal,
  VARIABLE_VALUE_MAX,
  variableNames,
} from './automation-form.js';
import {
  AUTOMATION_NOTICES,
  type AutomationPageDeps,
  automationOf,
  automationPage,
  listPage,
  newPage,
  type Params,
  tabPath,
} from './automation-views.js';
import type { DashboardOptions } from './layout.js';
import { projectOf } from './project-header.js';

/** An error the operations answer with, as the API would say it; anything unexpected goes on. */
function known(thrown: unknown, isTransient: (error: unknown) => boolean): AppError {
  const error = isAppError(thrown) ? thrown : toAppError(thrown as FastifyError, isTransient);
  if (error.code === 'internal_error') throw thrown;
  return error;
}

export const automationPages: FastifyPluginAsync<DashboardOptions> = async (
  app,
  { config, store, lifecycle },
) => {
  const deps = { store, config, automations: config.automations, log: app.log, lifecycle };

  app.get<{ Querystring: { notice?: string } }>(
    '/projects/:projectId/automations',
    { schema: { hide: true } },
    (request, reply) => listPage(deps, request, reply),
  );

  registerCreate(app, deps);

  app.get<{ Params: Params; Querystring: { notice?: string; before?: string; job?: string } }>(
    '/projects/:projectId/automations/:automationId',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const { notice, before, job } = request.query;
      const text = notice ? AUTOMATION_NOTICES[notice] : undefined;
      return automationPage(deps, request, reply, project, {
        flash: text ? { kind: 'ok', text } : null,
        ...(typeof before === 'string' && /^[\w-]{1,100}$/.test(before) ? { before } : {}),
        ...(typeof job === 'string' ? { jobId: job } : {}),
      });
    },
  );

  app.post<{ Params: Params }>(
    '/projects/:projectId/automations/:automationId',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const automation = await automationOf(store, project, request.params.automationId);
      const values = readAutomationForm(request.body);
      const read = automationInput(values);
      const refuse = (errors: AutomationErrors, status: number) =>
        automationPage(deps, request, reply, project, {
          values,
          errors,
          status,
          flash: { kind: 'error', text: 'The automation was not saved; see below.' },
        });
      if (read.errors) return refuse(read.errors, 400);
      try {
        await updateAutomation(deps, project.id, automation.id, read.input);
      } catch (thrown) {
        const error = known(thrown, store.isTransient);
        return refuse(errorsOf(error), statusOf(error.code));
      }
      return reply.redirect(`${tabPath(project)}/${automation.id}?notice=saved`, 303);
    },
  );

  registerActions(app, deps);
};

/** An automation's buttons: enable, disable, delete and Run now. */
function registerActions(app: FastifyInstance, deps: AutomationPageDeps) {
  const { store } = deps;
  const action = (
    path: string,
    run: (
      project: Project,
      automation: Automation,
      request: FastifyRequest<{ Params: Params }>,
      reply: FastifyReply,
    ) => Promise<unknown>,
  ) =>
    app.post<{ Params: Params }>(
      `/projects/:projectId/automations/:automationId/${path}`,
      { schema: { hide: true } },
      async (request, reply) => {
        const project = await projectOf(store, request);
        return run(project, await automationOf(store, project, request.params.automationId), request, reply);
      },
    );
  const back = (reply: FastifyReply, project: Project, automation: Automation, query: string) =>
    reply.redirect(`${tabPath(project)}/${automation.id}?${query}`, 303);

  for (const enabled of [true, false]) {
    action(enabled ? 'enable' : 'disable', async (project, automation, _request, reply) => {
      await updateAutomation(deps, project.id, automation.id, { enabled });
      return back(reply, project, automation, `notice=${enabled ? 'enabled' : 'disabled'}`);
    });
  }
  action('delete', async (project, automation, _request, reply) => {
    await store.automations.delete(project.id, automation.id);
    return reply.redirect(`${tabPath(project)}?notice=deleted`, 303);
  });
  action('run', async (project, automation, request, reply) => {
    const form = (request.body ?? {}) as Record<string, unknown>;
    const variables: Record<string, string> = {};
    for (const name of variableNames(automation)) {
      const value = form[`variables.${name}`];
      variables[name] = typeof value === 'string' ? value : '';
    }
    if (Object.values(variables).some((value) => value.length > VARIABLE_VALUE_MAX)) {
      return automationPage(deps, request, reply, project, {
        status: 400,
        flash: {
          kind: 'error',
          text: `Not run: a variable's value may be at most ${VARIABLE_VALUE_MAX} characters.`,
        },
      });
    }
    try {
      const { job } = await triggerAutomation(deps, project.id, automation.id, variables);
      request.log.info(
        { projectId: project.id, automationId: automation.id, jobId: job.id },
        'automation run from the dashboard',
      );
      return back(reply, project, automation, `notice=ran&job=${job.id}`);
    } catch (thrown) {
      const error = known(thrown, store.isTransient);
      reply.headers(errorHeaders(error));
      return automationPage(deps, request, reply, project, {
        status: statusOf(error.code),
        flash: { kind: 'error', text: runRefusal(error) },
      });
    }
  });
}

/** The form for a new automation, and its creation. */
function registerCreate(app: FastifyInstance, deps: AutomationPageDeps) {
  const { store } = deps;
  app.get<{ Querystring: { template?: string } }>(
    '/projects/:projectId/automations/new',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const name = request.query.template;
      const template = typeof name === 'string' ? automationTemplate(name) : undefined;
      const values = automationValues(template);
      if (template?.trigger.type === 'code_change') {
        // The templates name "product"; a project whose context repository is named otherwise gets its own.
        const names = (await store.contextRepositories.list(project.id)).map((context) => context.name);
        if (names.length > 0 && !names.includes(values.repository)) values.repository = names[0] ?? '';
      }
      return newPage(deps, request, reply, project, values, {}, 200, template);
    },
  );

  app.post('/projects/:projectId/automations', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const values = readAutomationForm(request.body);
    const read = automationInput(values);
    if (read.errors) return newPage(deps, request, reply, project, values, read.errors, 400);
    try {
      const automation = await createAutomation(deps, project.id, read.input);
      request.log.info(
        { projectId: project.id, automationId: automation.id },
        'automation created in the dashboard',
      );
      return reply.redirect(`${tabPath(project)}/${automation.id}?notice=created`, 303);
    } catch (thrown) {
      const error = known(thrown, store.isTransient);
      return newPage(deps, request, reply, project, values, errorsOf(error), statusOf(error.code));
    }
  });
}
