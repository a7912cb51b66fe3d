/**
 * The dashboard's project form, read into what the project operations take
 * (`operations/projects.ts`): the form only reads its fields; every rule and its words are the
 * operation's. A field the operation refuses is shown next to it.
 */
import type { SandboxStatus } from '../checks/sandbox.js';
import { CHECK_FAILURE_POLICIES } from '../domain/checks.js';
import { CODE_HOSTS, type Project, PUBLISH_MODES } from '../domain/project.js';
import { readDailyBudget, splitModelList } from '../domain/project-settings.js';
import { type FieldProblem, InputError } from '../operations/input.js';
import type { ProjectInput } from '../operations/projects.js';
import { fieldHint, type Html, html } from './html.js';

/** A form field and what is wrong with it, shown next to the field. */
export type FieldErrors = Partial<Record<string, string>>;

/** The form's fields, by the names the project record gives them. */
export const PROJECT_FORM_FIELDS = [
  'name',
  'repository',
  'host',
  'baseBranch',
  'publish',
  'defaultModel',
  'allowedModels',
  'dailyBudgetUsd',
  'apiUrl',
  'appId',
  'installationId',
  'builtInChecks',
  'closePrOnArchive',
  'quoteContext',
  'checkCommand',
  'checkTimeoutSeconds',
  'onCheckFailure',
  'setupCommand',
  'agentCommands',
  'mention',
  'token',
] as const;

export type ProjectFormValues = Partial<Record<(typeof PROJECT_FORM_FIELDS)[number], string>>;

/** Each field as typed, cut at 20,000 characters; what is not a string is absent. */
function fieldsOf(body: unknown): ProjectFormValues {
  const values: ProjectFormValues = {};
  if (body && typeof body === 'object')
    for (const field of PROJECT_FORM_FIELDS) {
      const value = (body as Record<string, unknown>)[field];
      if (typeof value === 'string') values[field] = value.slice(0, 20_000);
    }
  return values;
}

/** The on/off selects, and what each is when the form leaves it out. */
const SWITCHES = {
  builtInChecks: true,
  closePrOnArchive: true,
  quoteContext: false,
  agentCommands: false,
} as const;

/** The on/off selects as settings; a value that is neither is the form's own mistake. */
function switchesOf(form: ProjectFormValues): Record<keyof typeof SWITCHES, boolean> {
  const problems: FieldProblem[] = [];
  const read = (field: keyof typeof SWITCHES) => {
    const value = form[field]?.trim();
    if (value === undefined) return SWITCHES[field];
    if (value !== 'on' && value !== 'off')
      problems.push({ field, problem: 'invalid', message: 'must be on or off' });
    return value === 'on';
  };
  const switches = {
    builtInChecks: read('builtInChecks'),
    closePrOnArchive: read('closePrOnArchive'),
    quoteContext: read('quoteContext'),
    agentCommands: read('agentCommands'),
  };
  const [first, ...rest] = problems;
  if (first) throw new InputError([first, ...rest]);
  return switches;
}

/**
 * The form as the operation takes it; an on/off select that is neither throws an `InputError`
 * as the operation's would be. Text that cannot be the number a field holds (a budget of
 * "lots", a time limit of "soon") is passed on as no number, for the operation to refuse.
 */
export function readProjectForm(body: unknown): ProjectInput & { name: string; repository: string } {
  const form = fieldsOf(body);
  const budget = readDailyBudget(form.dailyBudgetUsd ?? '');
  const timeout = form.checkTimeoutSeconds?.trim() ?? '';
  return {
    name: form.name ?? '',
    repository: form.repository ?? '',
    host: form.host?.trim() || 'local',
    baseBranch: form.baseBranch ?? null,
    publish: form.publish?.trim() || 'pull_request',
    defaultModel: form.defaultModel ?? null,
    allowedModels: splitModelList(form.allowedModels ?? ''),
    dailyBudgetUsd: 'value' in budget ? budget.value : Number.NaN,
    apiUrl: form.apiUrl ?? null,
    appId: form.appId ?? null,
    installationId: form.installationId ?? null,
    ...switchesOf(form),
    checkCommand: form.checkCommand ?? '',
    checkTimeoutSeconds: timeout === '' ? null : /^\d{1,6}$/.test(timeout) ? Number(timeout) : Number.NaN,
    onCheckFailure: form.onCheckFailure?.trim() || 'draft',
    setupCommand: form.setupCommand ?? '',
    mention: form.mention ?? null,
    token: form.token ?? null,
  };
}

/** The operation's refusal, each message next to its field. */
export function projectFormErrors(error: InputError): FieldErrors {
  const errors: FieldErrors = {};
  for (const { field, message } of error.problems) errors[field] ??= message;
  return errors;
}

/** The submitted form, to show it again with its errors (never the token). */
export function formValues(body: unknown): ProjectFormValues {
  const { token: _token, ...values } = fieldsOf(body);
  return values;
}

/** A stored project as the form shows it. */
export const valuesOf = (project: Project): ProjectFormValues => ({
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

/** The project form: new, or a project's settings. */
export function projectForm(options: {
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
    <fieldset class="host-access"><legend>Code host access</legend>
      ${field('apiUrl', 'API base URL', 'Self-hosted servers only: GitHub Enterprise https://HOST/api/v3; GitLab or Gitea, the instance URL.', { type: 'url' })}
      <div class="github-only">${field('appId', 'GitHub App id', 'GitHub only, to act as an App: the token below is then its private key.')}
      ${field('installationId', 'GitHub App installation id', 'GitHub App only.')}</div>
      ${field('mention', 'Mention', 'What calls the service in a comment on a pull request or issue (comment automations): @ and a user name, e.g. @docs-bot. Empty: @agentjobs.', { placeholder: '@agentjobs' })}
      <div><label for="f-token">Token</label>
        <input type="password" id="f-token" name="token" value="" autocomplete="off" aria-describedby="h-token"${errors.token ? html` aria-invalid="true"` : ''}>
        ${fieldHint('h-token', errors.token, options.hasToken ? 'A token is stored (encrypted). Leave empty to keep it; it is never shown again.' : 'Write-only: stored encrypted and never shown again.')}</div>
    </fieldset>
    <div class="actions"><button class="primary" type="submit">${options.submit}</button></div>
  </form>`;
}
