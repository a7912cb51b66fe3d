import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type SandboxStatus, sandboxStatus } from '../checks/sandbox.js';
import { CHECK_FAILURE_POLICIES } from '../domain/checks.js';
import { CODE_HOSTS, type NewProject, type Project, PUBLISH_MODES } from '../domain/project.js';
import { checkProject, type HostCheck } from '../hosts/index.js';
import {
  addContextRepository,
  checkContextRepositories,
  removeContextRepository,
} from '../jobs/context-repositories.js';
import { acceptSetupReview } from '../jobs/setup-review.js';
import {
  type ContextSectionState,
  contextErrorsOf,
  contextFormOf,
  contextSection,
} from './context-repositories.js';
import { fieldHint, type Html, html } from './html.js';
import { type DashboardOptions, sendPage } from './layout.js';
import { type FieldErrors, type ProjectFormValues, parseProjectForm } from './project-form.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';
import { hookSection } from './project-hooks.js';
import { setupReviewSection } from './project-setup.js';
import { slackSection } from './project-slack.js';

const valuesOf = (project: Project): ProjectFormValues => ({
  name: project.name,
  repository: project.repository,
  host: project.host,
  baseBranch: project.baseBranch,
  publish: project.publish,
  defaultModel: project.defaultModel ?? '',
  allowedModels: project.allowedModels?.join(', ') ?? '',
  dailyBudgetUsd: project.dailyBudgetUsd === null ? '' : String(project.dailyBudgetUsd),
  apiUrl: String(project.hostSettings.apiUrl ?? ''),
  appId: String(project.hostSettings.appId ?? ''),
  installationId: String(project.hostSettings.installationId ?? ''),
  builtInChecks: project.builtInChecks ? 'on' : 'off',
  closePrOnArchive: project.closePrOnArchive ? 'on' : 'off',
  quoteContext: project.quoteContext ? 'on' : 'off',
  checkCommand: project.checkCommand ?? '',
  checkTimeoutSeconds: String(project.checkTimeoutSeconds),
  onCheckFailure: project.onCheckFailure,
  setupCommand: project.setupCommand ?? '',
  agentCommands: project.agentCommands ? 'on' : 'off',
  mention: project.mention,
});

/** What the check command's hint adds when the sandbox cannot run it, or runs it without a limit. */
function sandboxNote(status: SandboxStatus): string {
  if (!status.available) return ` It cannot be set on this server: ${status.reason}`;
  return status.unsafe ? ` ${status.reason}` : '';
}

function projectForm(options: {
  csrf: string;
  action: string;
  values: ProjectFormValues;
  errors: FieldErrors;
  hasToken: boolean;
  submit: string;
  /** The project's Webhooks tab, once the project exists. */
  webhooksHref?: string;
  /** Whether a check command can run here, and if not or only unsafely, why. */
  sandbox: SandboxStatus;
}): Html {
  const { values, errors } = options;
  const field = (
    name: keyof ProjectFormValues,
    label: string,
    hint: string,
    attrs: { type?: string; required?: boolean; placeholder?: string } = {},
  ) => html`<div><label for="f-${name}">${label}</label>
      <input type="${attrs.type ?? 'text'}" id="f-${name}" name="${name}" value="${values[name] ?? ''}"${attrs.required ? html` required` : ''}${attrs.placeholder ? html` placeholder="${attrs.placeholder}"` : ''} aria-describedby="h-${name}"${errors[name] ? html` aria-invalid="true"` : ''}>
      ${fieldHint(`h-${name}`, errors[name], hint)}</div>`;
  const select = (
    name:
      | 'host'
      | 'publish'
      | 'builtInChecks'
      | 'closePrOnArchive'
      | 'quoteContext'
      | 'onCheckFailure'
      | 'agentCommands',
    label: string,
    choices: readonly string[],
    hint: string,
  ) =>
    html`<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}" aria-describedby="h-${name}"${errors[name] ? html` aria-invalid="true"` : ''}>${choices.map(
      (c) => html`<option value="${c}"${values[name] === c ? html` selected` : ''}>${c}</option>`,
    )}</select>${fieldHint(`h-${name}`, errors[name], hint)}</div>`;
  return html`<form class="stack" method="post" action="${options.action}" novalidate>
    <input type="hidden" name="_csrf" value="${options.csrf}">
    ${field('name', 'Name', 'What people call it.', { required: true })}
    ${select('host', 'Code host', CODE_HOSTS, 'local: a repository on this server; the others open pull requests there.')}
    ${field('repository', 'Repository', 'An absolute path on the server (local), or the https:// URL of the repository.', { required: true })}
    ${field('baseBranch', 'Base branch', 'The branch pull requests target. Empty: the repository’s current branch, else main.')}
    ${select('publish', 'Publish', PUBLISH_MODES, 'pull_request opens a pull request; push commits straight to the base branch.')}
    ${field('defaultModel', 'Default model', 'provider:model, e.g. anthropic:claude-sonnet-4-5, or demo (the built-in demo model: no key, no AI model). Empty: the server’s default.')}
    ${field('allowedModels', 'Allowed models', 'Comma-separated. Empty: any model the server is configured for.')}
    ${field('dailyBudgetUsd', 'Daily budget (USD)', 'What this project’s jobs may spend per UTC day; past it, new runs are refused until the day ends. Empty: no budget.', { placeholder: '20.00' })}
    ${select('closePrOnArchive', 'Close pull request on archive', ['on', 'off'], 'on: archiving a job closes its open pull request on the code host; off: it stays open.')}
    ${select('quoteContext', 'Quote context repositories in pull requests', ['off', 'on'], 'off: a pull request’s description quotes an automation’s prompt without what it took from a context repository (a diff, commits, a comment: perhaps private code), naming what triggered the run instead; on: it quotes it all.')}
    ${options.webhooksHref ? html`<p class="hint">Webhooks (job events pushed to your receivers) are on the <a href="${options.webhooksHref}">Webhooks tab</a>.</p>` : ''}
    <fieldset><legend>Checks before publishing</legend>
      ${select('builtInChecks', 'Built-in checks', ['on', 'off'], 'MDX and Markdown parse, front matter, links, navigation, JSON and YAML, merge conflict markers, on what each job changed.')}
      ${field('checkCommand', 'Check command', `Optional, e.g. vale . or npx mint broken-links: runs in a sandbox (no network, only the checkout writable) on a checkout of the job’s work; a non-zero exit is a failure the agent is asked to fix.${sandboxNote(options.sandbox)}`)}
      ${field('checkTimeoutSeconds', 'Check command time limit (seconds)', 'Default 300.', { type: 'number' })}
      ${field('setupCommand', 'Setup command', `Optional, e.g. npm ci or pip install -r requirements.txt: runs in the sandbox with network on the base version before the agent starts; what it leaves (node_modules, .venv, …) is kept per lockfile and laid, read-only, into every later command, which runs offline.${sandboxNote(options.sandbox)}`)}
      ${select('agentCommands', 'Agent commands', ['off', 'on'], 'on: the agent has run_command, to run a command (a build, the framework’s checker) offline in the sandbox on its work and read the exit code and output.')}
      ${select('onCheckFailure', 'When checks still fail', CHECK_FAILURE_POLICIES, 'draft: the pull request opens as a draft listing the problems; fail: the job fails and nothing is published; publish: it is published anyway, with the problems listed.')}
    </fieldset>
    <fieldset><legend>Code host access (not for local)</legend>
      ${field('apiUrl', 'API base URL', 'Self-hosted servers only: GitHub Enterprise https://HOST/api/v3; GitLab or Gitea, the instance URL.', { type: 'url' })}
      ${field('appId', 'GitHub App id', 'GitHub only, to act as an App: the token below is then its private key.')}
      ${field('installationId', 'GitHub App installation id', 'GitHub App only.')}
      ${field('mention', 'Mention', 'What calls the service in a comment on a pull request or issue (comment automations): @ and a user name, e.g. @docs-bot. Empty: @agentjobs.', { placeholder: '@agentjobs' })}
      <div><label for="f-token">Token</label>
        <input type="password" id="f-token" name="token" value="" autocomplete="off" aria-describedby="h-token"${errors.token ? html` aria-invalid="true"` : ''}>
        ${fieldHint('h-token', errors.token, options.hasToken ? 'A token is stored (encrypted). Leave empty to keep it; it is never shown again.' : 'Write-only: stored encrypted and never shown again.')}</div>
    </fieldset>
    <div class="actions"><button class="primary" type="submit">${options.submit}</button></div>
  </form>`;
}

function checkResults(checks: HostCheck[]): Html {
  const ok = checks.every((c) => c.ok);
  return html`<section aria-live="polite"><h2>Access check: ${ok ? 'everything the worker needs is in place' : 'something is missing'}</h2>
    <ul class="commits">${checks.map((c) => html`<li><span class="badge ${c.ok ? 'open' : 'failed'}">${c.ok ? 'ok' : 'missing'}</span> <strong>${c.name}</strong>: ${c.detail}</li>`)}</ul></section>`;
}

export const projectPages: FastifyPluginAsync<DashboardOptions> = async (
  app,
  { config, store, hosts, secrets: secretBox },
) => {
  app.get('/projects', { schema: { hide: true } }, async (request, reply) => {
    const projects = await store.projects.list();
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
  });

  const newPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: ProjectFormValues,
    errors: FieldErrors,
  ) => {
    const sandbox = await sandboxStatus(config.checks.sandbox);
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
  };

  app.get('/projects/new', { schema: { hide: true } }, (request, reply) =>
    newPage(request, reply, { host: 'local', publish: 'pull_request' }, {}),
  );

  app.post('/projects', { schema: { hide: true } }, async (request, reply) => {
    const result = await parseProjectForm(request.body, config.checks.sandbox);
    if (!result.ok) return newPage(request, reply, formValues(request.body), result.errors);
    const { project: input, token } = result.value;
    if (input.host !== 'local' && !token)
      return newPage(request, reply, formValues(request.body), {
        token: `A ${input.host} project needs a token.`,
      });
    const project = await store.projects.create(input, token ? { token, secrets: secretBox() } : undefined);
    request.log.info({ projectId: project.id }, 'project created in the dashboard');
    return reply.redirect(`/ui/projects/${project.id}/keys?notice=created`, 303);
  });

  app.get('/projects/:projectId', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    return reply.redirect(`/ui/projects/${project.id}/jobs`, 303);
  });

  const settingsPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    project: Project,
    state: {
      values?: ProjectFormValues;
      errors?: FieldErrors;
      checks?: HostCheck[];
      notice?: string;
      /** A hook secret just made: shown on this page only. */
      hookSecret?: { secret: string; rotated: boolean };
      context?: ContextSectionState;
    } = {},
  ) => {
    const errors = state.errors ?? {};
    const hasHookSecret = state.hookSecret
      ? state.hookSecret.rotated
      : await store.projects.hasHookSecret(project.id);
    const failed = Object.keys(errors).length > 0 || Object.keys(state.context?.errors ?? {}).length > 0;
    const sandbox = await sandboxStatus(config.checks.sandbox);
    const repositories = await store.contextRepositories.list(project.id);
    const slack = await store.slack.mapping(project.id);
    return sendPage(
      request,
      reply,
      `${project.name} settings`,
      (csrf) => html`${projectHeader(project, 'settings')}
        ${state.checks ? checkResults(state.checks) : ''}
        ${setupReviewSection(project, csrf)}
        <div class="card">${projectForm({ csrf, action: `/ui/projects/${project.id}/settings`, values: state.values ?? valuesOf(project), errors, hasToken: project.hasHostToken, submit: 'Save settings', webhooksHref: `/ui/projects/${project.id}/webhooks`, sandbox })}</div>
        <section><h2>Check access</h2><form class="pad" method="post" action="/ui/projects/${project.id}/check">
          <input type="hidden" name="_csrf" value="${csrf}">
          <p>Tests what the worker will do: read the repository, push a branch, open a pull request.</p>
          <button type="submit">Check access</button></form></section>
        ${contextSection(project.id, repositories, csrf, state.context ?? {})}
        ${hookSection({ project, csrf, publicUrl: config.publicUrl, hasSecret: hasHookSecret, ...(state.hookSecret ? { newSecret: state.hookSecret.secret } : {}) })}
        ${slackSection(project.id, slack, csrf)}`,
      failed
        ? { status: 400, flash: { kind: 'error', text: 'Some fields need attention.' } }
        : { flash: state.notice ? { kind: 'ok', text: state.notice } : null },
    );
  };

  app.get<{ Querystring: { notice?: string } }>(
    '/projects/:projectId/settings',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const notice = request.query.notice ? NOTICES[request.query.notice] : undefined;
      return settingsPage(request, reply, project, notice ? { notice } : {});
    },
  );

  app.post('/projects/:projectId/settings', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const result = await parseProjectForm(request.body, config.checks.sandbox);
    if (!result.ok)
      return settingsPage(request, reply, project, {
        values: formValues(request.body),
        errors: result.errors,
      });
    const { project: input, token } = result.value;
    // Settings the form does not show (a GitLab project path, a Gitea owner set with the CLI) stay.
    if (input.host === project.host)
      input.hostSettings = { ...unlisted(project.hostSettings), ...input.hostSettings };
    // A stored token only ever goes where it was given for: changing where that is asks for the
    // token again, so that a session alone cannot send it to a server of its choosing.
    const keepsToken = project.hasHostToken && !movesToken(project, input);
    if (input.host !== 'local' && !token && !keepsToken)
      return settingsPage(request, reply, project, {
        values: formValues(request.body),
        errors: {
          token: project.hasHostToken
            ? 'Enter the token again: the host, the repository or the API URL changed.'
            : `A ${input.host} project needs a token.`,
        },
      });
    const hostToken = token ? { token } : input.host === 'local' || !keepsToken ? { token: null } : undefined;
    await store.projects.update(project.id, input, hostToken && { ...hostToken, secrets: secretBox() });
    return reply.redirect(`/ui/projects/${project.id}/settings?notice=saved`, 303);
  });

  app.post('/projects/:projectId/hook-secret', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const rotated = await store.projects.hasHookSecret(project.id);
    const secret = await store.projects.rotateHookSecret(project.id, secretBox());
    if (!secret) return reply.redirect('/ui/projects', 303);
    request.log.info({ projectId: project.id, rotated }, 'hook secret made in the dashboard');
    return settingsPage(request, reply, project, { hookSecret: { secret, rotated } });
  });

  app.post('/projects/:projectId/setup/accept', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const accepted = await acceptSetupReview(store, project.id);
    request.log.info({ projectId: project.id, accepted }, 'setup inputs accepted in the dashboard');
    return reply.redirect(`/ui/projects/${project.id}/settings?notice=setup-accepted`, 303);
  });

  app.post('/projects/:projectId/check', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const context = await checkContextRepositories(
      { store, secrets: secretBox, askpassDir: join(config.dataDir, 'askpass') },
      project.id,
    );
    return settingsPage(request, reply, project, {
      checks: [...(await checkProject(hosts, project)), ...context],
    });
  });

  app.post('/projects/:projectId/context', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const { token, ...values } = contextFormOf(request.body);
    try {
      await addContextRepository({ store, secrets: secretBox, dataDir: config.dataDir }, project.id, {
        name: values.name ?? '',
        repository: values.repository ?? '',
        ref: values.ref ?? null,
        host: values.host ?? null,
        token: token ?? null,
      });
    } catch (error) {
      const errors = contextErrorsOf(error);
      if (!errors) throw error;
      return settingsPage(request, reply, project, { context: { values, errors } });
    }
    request.log.info({ projectId: project.id }, 'context repository added in the dashboard');
    return reply.redirect(
      `/ui/projects/${project.id}/settings?notice=context-added#context-repositories`,
      303,
    );
  });

  app.post<{ Params: { projectId: string; name: string } }>(
    '/projects/:projectId/context/:name/delete',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      await removeContextRepository(
        { store, mirrorsDir: join(config.dataDir, 'mirrors') },
        project.id,
        request.params.name,
      );
      return reply.redirect(
        `/ui/projects/${project.id}/settings?notice=context-removed#context-repositories`,
        303,
      );
    },
  );
};

const FORM_SETTINGS = new Set(['apiUrl', 'appId', 'installationId']);
const unlisted = (settings: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(settings).filter(([key]) => !FORM_SETTINGS.has(key)));

/** Whether new settings would send the project's token somewhere else than the old ones. */
function movesToken(project: Project, next: NewProject): boolean {
  const target = (p: { host?: string; repository: string; hostSettings?: Record<string, unknown> }) =>
    JSON.stringify([p.host, p.repository, p.hostSettings?.apiUrl ?? null]);
  return target(project) !== target(next);
}

/** The submitted form, to show it again with its errors (never the token). */
function formValues(body: unknown): ProjectFormValues {
  const values: ProjectFormValues = {};
  if (body && typeof body === 'object')
    for (const [key, value] of Object.entries(body))
      if (key !== 'token' && key !== '_csrf' && typeof value === 'string')
        values[key as keyof ProjectFormValues] = value;
  return values;
}
