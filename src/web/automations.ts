/**
 * The Automations tab of a project (docs/automations.md; section 8): the list with each
 * trigger in words, a new automation from one of the shipped templates or from scratch, and an
 * automation's page with its settings, enable and disable, Run now and its runs. Saving and running
 * go through `jobs/automations.ts`, the operations the API's routes call, so the rules, the day's
 * run limit and the budgets are the API's. Every form posts its CSRF token (checked in
 * `dashboard.ts`) and redirects after a success (post/redirect/get).
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AutomationConfig } from '../config/config.js';
import type { Automation, AutomationRun } from '../domain/automation.js';
import {
  AUTOMATION_TEMPLATES,
  type AutomationTemplate,
  automationTemplate,
} from '../domain/automation-templates.js';
import { type AppError, isAppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import { errorHeaders, statusOf, toAppError } from '../http/errors.js';
import {
  automationNotFound,
  createAutomation,
  triggerAutomation,
  updateAutomation,
} from '../jobs/automations.js';
import {
  type AutomationErrors,
  type AutomationValues,
  automationForm,
  automationInput,
  automationValues,
  errorsOf,
  readAutomationForm,
  runRefusal,
  triggerWords,
  VARIABLE_VALUE_MAX,
  variableNames,
} from './automation-form.js';
import { type Html, html, time } from './html.js';
import { type DashboardOptions, sendPage } from './layout.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';

const AUTOMATION_NOTICES: Record<string, string> = {
  ...NOTICES,
  created: 'Automation created.',
  saved: 'Automation saved.',
  enabled: 'The automation is enabled.',
  disabled: 'The automation is disabled: nothing starts it until it is enabled again.',
  deleted: 'The automation and its runs are deleted.',
  ran: 'The automation ran: its job is in the runs below.',
};

const RUNS_PAGE = 50;

const postButton = (action: string, csrf: string, label: string, kind = '') =>
  html`<form method="post" action="${action}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit"${kind ? html` class="${kind}"` : ''}>${label}</button></form>`;

const enabledBadge = (automation: Automation) =>
  automation.enabled
    ? html`<span class="badge active">enabled</span>`
    : html`<span class="badge revoked">disabled</span>`;

const outcomeBadge = (run: AutomationRun) =>
  html`<span class="badge ${run.outcome === 'skipped' ? 'soon' : run.outcome === 'failed' ? 'revoked' : 'active'}">${run.outcome}</span>`;

/** Where the hook URL, the secret and the setup steps are: the settings page, not repeated here. */
const hookNote = (project: Project, polls: Pick<AutomationConfig, 'pollMs' | 'localPollMs'>) =>
  html`<p class="hint" id="polling-note">Commits to a local repository are found by looking at it every ${seconds(polls.localPollMs)}. Code changes and comments on a code host reach automations at once when it sends its webhooks: the hook URL, the secret and the setup steps for each host are in <a href="/ui/projects/${project.id}/settings#code-host-webhooks">Settings, Code-host webhooks</a>. Without them, code changes there are found by polling every ${seconds(polls.pollMs)}.</p>`;

/** 3000 → "3 seconds", 300000 → "5 minutes". */
const seconds = (ms: number) => {
  const count = Math.round(ms / 1000);
  if (count % 60 === 0 && count >= 120) return `${count / 60} minutes`;
  return count === 1 ? 'second' : `${count} seconds`;
};

/** An error the operations answer with, as the API would say it; anything unexpected goes on. */
function known(thrown: unknown, isTransient: (error: unknown) => boolean): AppError {
  const error = isAppError(thrown) ? thrown : toAppError(thrown as FastifyError, isTransient);
  if (error.code === 'internal_error') throw thrown;
  return error;
}

/** When the automation last ran, and what came of it. */
function lastRun(automation: Automation, run: AutomationRun | undefined): Html {
  if (!automation.lastRunAt) return html`never`;
  return html`${time(automation.lastRunAt)}${run ? html` ${outcomeBadge(run)}${run.reason ? html` <span class="hint">${run.reason}</span>` : ''}` : ''}`;
}

export const automationPages: FastifyPluginAsync<DashboardOptions> = async (
  app,
  { config, store, lifecycle },
) => {
  const deps = { store, config, automations: config.automations, log: app.log, lifecycle };
  const tabPath = (project: Project) => `/ui/projects/${project.id}/automations`;
  const automationOf = async (project: Project, automationId: string) => {
    const automation = /^[\w-]{1,100}$/.test(automationId)
      ? await store.automations.get(project.id, automationId)
      : undefined;
    if (!automation) throw automationNotFound(automationId);
    return automation;
  };

  app.get<{ Querystring: { notice?: string } }>(
    '/projects/:projectId/automations',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const automations = await store.automations.list(project.id);
      // The last run's outcome of each automation that ran (a project has a handful of automations).
      const latest = new Map(
        await Promise.all(
          automations
            .filter((automation) => automation.lastRunAt)
            .map(
              async (automation) =>
                [automation.id, (await store.automations.runs(automation.id, { limit: 1 })).runs[0]] as const,
            ),
        ),
      );
      const notice = request.query.notice ? AUTOMATION_NOTICES[request.query.notice] : undefined;
      const base = tabPath(project);
      return sendPage(
        request,
        reply,
        `${project.name} automations`,
        () => html`${projectHeader(project, 'automations')}
        <section><h2>Automations (${automations.length})</h2>
          ${
            automations.length === 0
              ? html`<div class="pad">No automations yet: jobs start only when someone starts them.</div>`
              : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Trigger</th><th>State</th><th>Next run</th><th>Last run</th></tr></thead>
              <tbody>${automations.map(
                (automation) => html`<tr><td><a href="${base}/${automation.id}">${automation.name}</a></td>
                  <td>${triggerWords(automation.trigger)}</td><td>${enabledBadge(automation)}</td>
                  <td>${time(automation.nextRunAt, '-')}</td><td>${lastRun(automation, latest.get(automation.id))}</td></tr>`,
              )}</tbody></table></div>`
          }
          <div class="pad">${hookNote(project, config.automations)}</div></section>
        <section><h2>New automation</h2><div class="pad"><ul>
          ${AUTOMATION_TEMPLATES.map(
            (template) =>
              html`<li><a href="${base}/new?template=${template.name}">${template.name}</a>: ${template.description}</li>`,
          )}
          <li><a href="${base}/new">From scratch</a></li></ul></div></section>`,
        { flash: notice ? { kind: 'ok', text: notice } : null },
      );
    },
  );

  const newPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    project: Project,
    values: AutomationValues,
    errors: AutomationErrors = {},
    status = 200,
    template?: AutomationTemplate,
  ) =>
    sendPage(
      request,
      reply,
      `${project.name} new automation`,
      (csrf) => html`${projectHeader(project, 'automations')}
      <section><h2>New automation${template ? html` from the template ${template.name}` : ''}</h2><div class="pad">${template ? html`<p>${template.description}. Change anything before creating it.</p>` : ''}${hookNote(project, config.automations)}
        ${automationForm({ action: tabPath(project), csrf, values, errors, submit: 'Create automation' })}</div></section>`,
      Object.keys(errors).length
        ? { status, flash: { kind: 'error', text: 'The automation was not created; see below.' } }
        : {},
    );

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
      return newPage(request, reply, project, values, {}, 200, template);
    },
  );

  app.post('/projects/:projectId/automations', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const values = readAutomationForm(request.body);
    const read = automationInput(values);
    if (read.errors) return newPage(request, reply, project, values, read.errors, 400);
    try {
      const automation = await createAutomation(deps, project.id, read.input);
      request.log.info(
        { projectId: project.id, automationId: automation.id },
        'automation created in the dashboard',
      );
      return reply.redirect(`${tabPath(project)}/${automation.id}?notice=created`, 303);
    } catch (thrown) {
      const error = known(thrown, store.isTransient);
      return newPage(request, reply, project, values, errorsOf(error), statusOf(error.code));
    }
  });

  type Params = { projectId: string; automationId: string };
  const automationPage = async (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    project: Project,
    state: {
      values?: AutomationValues;
      errors?: AutomationErrors;
      status?: number;
      flash?: { kind: 'ok' | 'error'; text: string } | null;
      before?: string;
      jobId?: string;
    } = {},
  ) => {
    const automation = await automationOf(project, request.params.automationId);
    const page = await store.automations.runs(automation.id, {
      limit: RUNS_PAGE,
      ...(state.before ? { before: state.before } : {}),
    });
    const base = `${tabPath(project)}/${automation.id}`;
    const variables = variableNames(automation);
    const jobLink = (jobId: string) => html`<a href="/ui/projects/${project.id}/jobs/${jobId}">${jobId}</a>`;
    const ranJob =
      state.jobId && page.runs.some((run) => run.jobId === state.jobId) ? state.jobId : undefined;
    const last = page.runs.at(-1);
    return sendPage(
      request,
      reply,
      `${automation.name} automation`,
      (csrf) => html`${projectHeader(project, 'automations')}
      <section><h2>${automation.name}</h2><div class="pad">
        <p>${enabledBadge(automation)} ${triggerWords(automation.trigger)} · next run ${time(automation.nextRunAt, '-')} · last run ${time(automation.lastRunAt)}</p>
        ${ranJob ? html`<p>Run now started job ${jobLink(ranJob)}.</p>` : ''}
        ${
          variables.length
            ? html`<form class="stack" method="post" action="${base}/run"><input type="hidden" name="_csrf" value="${csrf}">
              ${variables.map((name) => html`<div><label for="v-${name}">${name}</label><input type="text" id="v-${name}" name="variables.${name}"></div>`)}
              <div class="hint">The values of the prompt's <code>{{variables.NAME}}</code> placeholders for Run now.</div>
              <div class="actions"><button class="primary" type="submit">Run now</button></div></form>`
            : ''
        }
        <div class="actions">${variables.length ? '' : postButton(`${base}/run`, csrf, 'Run now', 'primary')}
          ${automation.enabled ? postButton(`${base}/disable`, csrf, 'Disable') : postButton(`${base}/enable`, csrf, 'Enable')}
          <details class="confirm"><summary class="button danger" role="button">Delete</summary>
            <form method="post" action="${base}/delete"><input type="hidden" name="_csrf" value="${csrf}">
              <p>The automation and its runs are deleted; its jobs stay.</p>
              <button class="danger" type="submit">Yes, delete</button></form></details>
          <a href="${tabPath(project)}">All automations</a></div>
        ${hookNote(project, config.automations)}</div></section>
      <section><h2>Runs</h2>
        ${
          page.runs.length === 0
            ? html`<div class="pad">No runs yet.</div>`
            : html`<div class="table-wrap"><table><thead><tr><th>When</th><th>Trigger</th><th>Outcome</th><th>Reason</th><th>Job</th></tr></thead>
            <tbody>${page.runs.map(
              (
                run,
              ) => html`<tr><td>${time(run.at)}</td><td>${run.trigger.type}<div class="hint">${run.trigger.source}</div></td>
                <td>${outcomeBadge(run)}</td><td>${run.reason ?? '-'}${run.detail ? html`<div class="hint">${run.detail}</div>` : ''}</td><td>${run.jobId ? jobLink(run.jobId) : '-'}</td></tr>`,
            )}</tbody></table></div>`
        }
        ${page.more && last ? html`<div class="pad"><a href="${base}?before=${last.id}">Older runs</a></div>` : ''}</section>
      <section><h2>Settings</h2><div class="pad">
        ${automationForm({ action: base, csrf, values: state.values ?? automationValues(automation), errors: state.errors ?? {}, submit: 'Save' })}</div></section>`,
      { status: state.status ?? 200, flash: state.flash ?? null },
    );
  };

  app.get<{ Params: Params; Querystring: { notice?: string; before?: string; job?: string } }>(
    '/projects/:projectId/automations/:automationId',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const { notice, before, job } = request.query;
      const text = notice ? AUTOMATION_NOTICES[notice] : undefined;
      return automationPage(request, reply, project, {
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
      const automation = await automationOf(project, request.params.automationId);
      const values = readAutomationForm(request.body);
      const read = automationInput(values);
      const refuse = (errors: AutomationErrors, status: number) =>
        automationPage(request, reply, project, {
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
        return run(project, await automationOf(project, request.params.automationId), request, reply);
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
      return automationPage(request, reply, project, {
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
      return automationPage(request, reply, project, {
        status: statusOf(error.code),
        flash: { kind: 'error', text: runRefusal(error) },
      });
    }
  });
};
