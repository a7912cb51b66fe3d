import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { sandboxStatus } from '../checks/sandbox.js';
import type { Project } from '../domain/project.js';
import type { HostCheck } from '../hosts/index.js';
import { addContextRepository, removeContextRepository } from '../operations/context-repositories.js';
import { makeHookSecret } from '../operations/hook-secrets.js';
import { InputError } from '../operations/input.js';
import { checkProjectAccess } from '../operations/project-check.js';
import { createProject, updateProject } from '../operations/projects.js';
import { acceptSetupReview } from '../operations/setup-review.js';
import {
  type ContextSectionState,
  contextErrorsOf,
  contextFormOf,
  contextSection,
} from './context-repositories.js';
import { type Html, html } from './html.js';
import { type DashboardOptions, sendPage } from './layout.js';
import {
  type FieldErrors,
  formValues,
  type ProjectFormValues,
  projectForm,
  projectFormErrors,
  readProjectForm,
  valuesOf,
} from './project-form.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';
import { hookSection } from './project-hooks.js';
import { linearSection } from './project-linear.js';
import { setupReviewSection } from './project-setup.js';
import { slackSection } from './project-slack.js';

function checkResults(checks: HostCheck[]): Html {
  const ok = checks.every((c) => c.ok);
  return html`<section aria-live="polite"><h2>Access check: ${ok ? 'everything the worker needs is in place' : 'something is missing'}</h2>
    <ul class="commits">${checks.map((c) => html`<li><span class="badge ${c.ok ? 'open' : 'failed'}">${c.ok ? 'ok' : 'missing'}</span> <strong>${c.name}</strong>: ${c.detail}</li>`)}</ul></section>`;
}

/** The list of projects. */
async function listPage(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const projects = await options.store.projects.list();
  return sendPage(
    request,
    reply,
    'Projects',
    () => html`
      <div class="actions"><h1>Projects</h1><span class="spacer"></span><a class="button primary" href="/ui/projects/new">New project</a></div>
      ${
        projects.length === 0
          ? html`<div class="card pad">No projects yet. <a href="/ui/projects/new">Create the first one</a>: a repository the agent edits.</div>`
          : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Host</th><th class="optional">Repository</th><th class="optional">Base</th></tr></thead><tbody>
          ${projects.map((p) => html`<tr><td><a href="/ui/projects/${p.id}/jobs">${p.name}</a></td><td>${p.host}</td><td class="optional">${p.repository}</td><td class="optional">${p.baseBranch}</td></tr>`)}
          </tbody></table></div>`
      }`,
  );
}

/** The new project form, empty or as posted with its errors. */
async function newPage(
  options: DashboardOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  values: ProjectFormValues,
  errors: FieldErrors,
) {
  const sandbox = await sandboxStatus(options.config.checks.sandbox);
  return sendPage(
    request,
    reply,
    'New project',
    (csrf) => html`<div class="crumbs"><a href="/ui/projects">Projects</a> /</div><h1>New project</h1>
        <div class="card">${projectForm({ csrf, action: '/ui/projects', values, errors, hasToken: false, submit: 'Create project', sandbox })}</div>`,
    Object.keys(errors).length
      ? { status: 400, flash: { kind: 'error', text: 'Some fields need attention.' } }
      : {},
  );
}

/** What a settings page shows besides the project. */
interface SettingsState {
  values?: ProjectFormValues;
  errors?: FieldErrors;
  checks?: HostCheck[];
  notice?: string;
  /** A hook secret just made: shown on this page only. */
  hookSecret?: { secret: string; rotated: boolean };
  context?: ContextSectionState;
}

/** A project's settings: the form, the access check, setup review, context repositories and the hook. */
async function settingsPage(
  options: DashboardOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  project: Project,
  state: SettingsState = {},
) {
  const { config, store } = options;
  const errors = state.errors ?? {};
  const hasHookSecret = state.hookSecret
    ? state.hookSecret.rotated
    : await store.projects.hasHookSecret(project.id);
  const failed = Object.keys(errors).length > 0 || Object.keys(state.context?.errors ?? {}).length > 0;
  const sandbox = await sandboxStatus(config.checks.sandbox);
  const repositories = await store.contextRepositories.list(project.id);
  const slack = await store.slack.mapping(project.id);
  const hasLinearSecret = await store.linearSecrets.has(project.id);
  return sendPage(
    request,
    reply,
    `${project.name} settings`,
    (csrf) => html`${projectHeader(project, 'settings')}
        ${state.checks ? checkResults(state.checks) : ''}
        ${setupReviewSection(project, csrf)}
        <div class="card">${projectForm({ csrf, action: `/ui/projects/${project.id}/settings`, values: state.values ?? valuesOf(project), errors, hasToken: project.hasHostToken, submit: 'Save settings', webhooksHref: `/ui/projects/${project.id}/webhooks`, sandbox })}</div>
        <section id="check-access"><h2>Check access</h2><form class="pad" method="post" action="/ui/projects/${project.id}/check">
          <input type="hidden" name="_csrf" value="${csrf}">
          <p>Tests what the worker will do: read the repository, push a branch, open a pull request.</p>
          <button type="submit">Check access</button></form></section>
        ${contextSection(project.id, repositories, csrf, state.context ?? {})}
        ${hookSection({ project, csrf, publicUrl: config.publicUrl, hasSecret: hasHookSecret, ...(state.hookSecret ? { newSecret: state.hookSecret.secret } : {}) })}
        ${slackSection(project.id, slack, csrf)}
        ${linearSection(project.id, hasLinearSecret, csrf, config.publicUrl)}`,
    failed
      ? { status: 400, flash: { kind: 'error', text: 'Some fields need attention.' } }
      : { flash: state.notice ? { kind: 'ok', text: state.notice } : null },
  );
}

const operationDeps = ({ config, store, secrets }: DashboardOptions) => ({
  store,
  secrets,
  sandbox: config.checks.sandbox,
});

/** Makes a project through the project operation (`operations/projects.ts`). */
async function create(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  let project: Project;
  try {
    project = await createProject(operationDeps(options), readProjectForm(request.body));
  } catch (error) {
    if (!InputError.isInstance(error)) throw error;
    return newPage(options, request, reply, formValues(request.body), projectFormErrors(error));
  }
  request.log.info({ projectId: project.id }, 'project created in the dashboard');
  return reply.redirect(`/ui/projects/${project.id}/keys?notice=created`, 303);
}

/** Saves a project's settings through the project operation. */
async function save(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const project = await projectOf(options.store, request);
  try {
    await updateProject(operationDeps(options), project.id, readProjectForm(request.body));
  } catch (error) {
    if (!InputError.isInstance(error)) throw error;
    return settingsPage(options, request, reply, project, {
      values: formValues(request.body),
      errors: projectFormErrors(error),
    });
  }
  return reply.redirect(`/ui/projects/${project.id}/settings?notice=saved`, 303);
}

/** The settings page's "make the hook secret" button: it always makes a new one (`operations/hook-secrets.ts`). */
async function rotateHookSecret(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const { store, secrets } = options;
  const project = await projectOf(store, request);
  const { secret, rotated } = await makeHookSecret({ store, secrets }, project.id, { rotate: true });
  if (!secret) return reply.redirect('/ui/projects', 303);
  request.log.info({ projectId: project.id, rotated }, 'hook secret made in the dashboard');
  return settingsPage(options, request, reply, project, { hookSecret: { secret, rotated } });
}

async function checkAccess(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const { config, store, hosts, secrets } = options;
  const project = await projectOf(store, request);
  // The lines `agentjobs project check` prints, from the same operation.
  const checks = await checkProjectAccess(
    { hosts, store, secrets, dataDir: config.dataDir, sandbox: config.checks.sandbox },
    project,
  );
  return settingsPage(options, request, reply, project, { checks });
}

async function addContext(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const { config, store, secrets } = options;
  const project = await projectOf(store, request);
  const { token, ...values } = contextFormOf(request.body);
  try {
    await addContextRepository({ store, secrets, dataDir: config.dataDir }, project.id, {
      name: values.name ?? '',
      repository: values.repository ?? '',
      ref: values.ref ?? null,
      host: values.host ?? null,
      token: token ?? null,
    });
  } catch (error) {
    const errors = contextErrorsOf(error);
    if (!errors) throw error;
    return settingsPage(options, request, reply, project, { context: { values, errors } });
  }
  request.log.info({ projectId: project.id }, 'context repository added in the dashboard');
  return reply.redirect(`/ui/projects/${project.id}/settings?notice=context-added#context-repositories`, 303);
}

async function removeContext(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const { config, store } = options;
  const project = await projectOf(store, request);
  const { name } = request.params as { name: string };
  await removeContextRepository({ store, mirrorsDir: join(config.dataDir, 'mirrors') }, project.id, name);
  return reply.redirect(
    `/ui/projects/${project.id}/settings?notice=context-removed#context-repositories`,
    303,
  );
}

/** The projects pages: the list, a new project, and a project's settings with what hangs off them. */
export const projectPages: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const { store } = options;
  const hide = { schema: { hide: true } };
  app.get('/projects', hide, (request, reply) => listPage(options, request, reply));
  app.get('/projects/new', hide, (request, reply) =>
    newPage(options, request, reply, { host: 'local', publish: 'pull_request' }, {}),
  );
  app.post('/projects', hide, (request, reply) => create(options, request, reply));
  app.get('/projects/:projectId', hide, async (request, reply) => {
    const project = await projectOf(store, request);
    return reply.redirect(`/ui/projects/${project.id}/jobs`, 303);
  });
  app.get('/projects/:projectId/settings', hide, async (request, reply) => {
    const project = await projectOf(store, request);
    const { notice: name } = request.query as { notice?: string };
    const notice = name ? NOTICES[name] : undefined;
    return settingsPage(options, request, reply, project, notice ? { notice } : {});
  });
  app.post('/projects/:projectId/settings', hide, (request, reply) => save(options, request, reply));
  app.post('/projects/:projectId/hook-secret', hide, (request, reply) =>
    rotateHookSecret(options, request, reply),
  );
  app.post('/projects/:projectId/setup/accept', hide, async (request, reply) => {
    const project = await projectOf(store, request);
    const accepted = await acceptSetupReview(store, project.id);
    request.log.info({ projectId: project.id, accepted }, 'setup inputs accepted in the dashboard');
    return reply.redirect(`/ui/projects/${project.id}/settings?notice=setup-accepted`, 303);
  });
  app.post('/projects/:projectId/check', hide, (request, reply) => checkAccess(options, request, reply));
  // The check's result page has this address: reloading it (a GET) goes back to the settings, at
  // the Check access button, rather than running the check again unasked or answering 404.
  app.get('/projects/:projectId/check', hide, async (request, reply) => {
    const project = await projectOf(options.store, request);
    return reply.redirect(`/ui/projects/${project.id}/settings#check-access`, 303);
  });
  app.post('/projects/:projectId/context', hide, (request, reply) => addContext(options, request, reply));
  app.post('/projects/:projectId/context/:name/delete', hide, (request, reply) =>
    removeContext(options, request, reply),
  );
};
