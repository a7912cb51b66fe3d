/**
 * The Automations tab's pages (automations.ts has their routes): the list, the form for a new
 * automation, and an automation's page with its runs and settings.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { AutomationConfig } from '../config/config.js';
import type { Automation, AutomationRun } from '../domain/automation.js';
import { AUTOMATION_TEMPLATES, type AutomationTemplate } from '../domain/automation-templates.js';
import type { Lifecycle } from '../domain/lifecycle.js';
import type { Project } from '../domain/project.js';
import { automationNotFound } from '../operations/automations.js';
import type { Store } from '../store/store.js';
import {
  type AutomationErrors,
  type AutomationValues,
  automationForm,
  automationValues,
  triggerWords,
  variableNames,
} from './automation-form.js';
import { type Html, html, time } from './html.js';
import { type DashboardConfig, sendPage } from './layout.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';

export const AUTOMATION_NOTICES: Record<string, string> = {
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

/** What came of a run so far (`review_needed` shown as "review needed"). */
const statusBadge = (run: AutomationRun) =>
  html`<span class="badge status-${run.status} ${STATUS_BADGES[run.status]}">${run.status.replace('_', ' ')}</span>`;
const STATUS_BADGES: Record<AutomationRun['status'], string> = {
  running: 'soon',
  review_needed: 'soon',
  accepted: 'active',
  closed: 'revoked',
  no_changes: '',
  failed: 'revoked',
  skipped: '',
};

/** Where the hook URL, the secret and the setup steps are: the settings page, not repeated here. */
const hookNote = (project: Project, polls: Pick<AutomationConfig, 'pollMs' | 'localPollMs'>) =>
  html`<p class="hint" id="polling-note">Commits to a local repository are found by looking at it every ${seconds(polls.localPollMs)}. Code changes and comments on a code host reach automations at once when it sends its webhooks: the hook URL, the secret and the setup steps for each host are in <a href="/ui/projects/${project.id}/settings#code-host-webhooks">Settings, Code-host webhooks</a>. Without them, code changes there are found by polling every ${seconds(polls.pollMs)}.</p>`;

/** 3000 → "3 seconds", 300000 → "5 minutes". */
const seconds = (ms: number) => {
  const count = Math.round(ms / 1000);
  if (count % 60 === 0 && count >= 120) return `${count / 60} minutes`;
  return count === 1 ? 'second' : `${count} seconds`;
};

/** When the automation last ran, and what came of it. */
function lastRun(automation: Automation, run: AutomationRun | undefined): Html {
  if (!automation.lastRunAt) return html`never`;
  return html`${time(automation.lastRunAt)}${run ? html` ${outcomeBadge(run)}${run.reason ? html` <span class="hint">${run.reason}</span>` : ''}` : ''}`;
}

/** What the automation pages need: the operations' needs and the dashboard's configuration. */
export type AutomationPageDeps = {
  store: Store;
  config: DashboardConfig;
  automations: DashboardConfig['automations'];
  log: FastifyBaseLogger;
  lifecycle?: Lifecycle | undefined;
};

export type Params = { projectId: string; automationId: string };

export const tabPath = (project: Project) => `/ui/projects/${project.id}/automations`;

export async function automationOf(store: Store, project: Project, automationId: string) {
  const automation = /^[\w-]{1,100}$/.test(automationId)
    ? await store.automations.get(project.id, automationId)
    : undefined;
  if (!automation) throw automationNotFound(automationId);
  return automation;
}

/** The project's automations, the intervals the triggers are heard at, and the templates. */
export async function listPage(
  { store, config }: AutomationPageDeps,
  request: FastifyRequest<{ Querystring: { notice?: string } }>,
  reply: FastifyReply,
) {
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
}

/** The form for a new automation, from a template or from scratch. */
export function newPage(
  { config }: AutomationPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  project: Project,
  values: AutomationValues,
  errors: AutomationErrors = {},
  status = 200,
  template?: AutomationTemplate,
) {
  return sendPage(
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
}

/** What an automation's page shows besides the automation: the form's state and a flash. */
interface AutomationPageState {
  values?: AutomationValues;
  errors?: AutomationErrors;
  status?: number;
  flash?: { kind: 'ok' | 'error'; text: string } | null;
  before?: string;
  jobId?: string;
}

/** An automation's page: its trigger, Run now, its runs, and its settings. */
export async function automationPage(
  deps: AutomationPageDeps,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  project: Project,
  state: AutomationPageState = {},
) {
  const { store, config } = deps;
  const automation = await automationOf(store, project, request.params.automationId);
  const page = await store.automations.runs(automation.id, {
    limit: RUNS_PAGE,
    ...(state.before ? { before: state.before } : {}),
  });
  const base = `${tabPath(project)}/${automation.id}`;
  const variables = variableNames(automation);
  const jobLink = (jobId: string) => html`<a href="/ui/projects/${project.id}/jobs/${jobId}">${jobId}</a>`;
  // A run grouped into an existing job continued it: the page says which it was.
  const ran = state.jobId ? page.runs.find((run) => run.jobId === state.jobId) : undefined;
  const last = page.runs.at(-1);
  return sendPage(
    request,
    reply,
    `${automation.name} automation`,
    (csrf) => html`${projectHeader(project, 'automations')}
    <section><h2>${automation.name}</h2><div class="pad">
      <p>${enabledBadge(automation)} ${triggerWords(automation.trigger)} · next run ${time(automation.nextRunAt, '-')} · last run ${time(automation.lastRunAt)}</p>
      ${ran?.jobId ? html`<p id="ran-job">Run now ${ran.outcome === 'grouped' ? 'added to the existing job' : 'started job'} ${jobLink(ran.jobId)}.</p>` : ''}
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
          : html`<div class="table-wrap"><table><thead><tr><th>When</th><th>Trigger</th><th>Outcome</th><th>Status</th><th>Reason</th><th>Job</th></tr></thead>
          <tbody>${page.runs.map(
            (
              run,
            ) => html`<tr><td>${time(run.at)}</td><td>${run.trigger.type}<div class="hint">${run.trigger.source}</div></td>
              <td>${outcomeBadge(run)}</td><td>${statusBadge(run)}</td><td>${run.reason ?? '-'}${run.detail ? html`<div class="hint">${run.detail}</div>` : ''}</td><td>${run.jobId ? jobLink(run.jobId) : '-'}</td></tr>`,
          )}</tbody></table></div>`
      }
      ${page.more && last ? html`<div class="pad"><a href="${base}?before=${last.id}">Older runs</a></div>` : ''}</section>
    <section><h2>Settings</h2><div class="pad">
      ${automationForm({ action: base, csrf, values: state.values ?? automationValues(automation), errors: state.errors ?? {}, submit: 'Save' })}</div></section>`,
    { status: state.status ?? 200, flash: state.flash ?? null },
  );
}
