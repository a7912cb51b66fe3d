/**
 * The automation form of the dashboard's Automations tab: what the browser sends, read into the
 * input `operations/automations.ts` saves, the form itself (from scratch, from a shipped template, or an
 * automation's settings), and a trigger in words. The saving rules live in `operations/automations.ts`;
 * its `invalid_automation` error names the field, which is mapped back onto the form here.
 */
import {
  ALLOWED_AUTHORS_MAX,
  AUTOMATION_NAME_MAX,
  type Automation,
  type AutomationTrigger,
  TRIGGER_TYPES,
  type TriggerType,
  templatePlaceholders,
} from '../domain/automation.js';
import type { AutomationTemplate } from '../domain/automation-templates.js';
import type { AppError } from '../domain/errors.js';
import type { AutomationInput, TriggerInput } from '../operations/automations.js';
import { waitText } from '../operations/budget.js';
import { fieldHint, type Html, html } from './html.js';

/** The form's fields as the browser sent them (checkboxes as booleans). */
export interface AutomationValues {
  name: string;
  triggerType: string;
  cron: string;
  timezone: string;
  repository: string;
  branch: string;
  paths: string;
  prompt: string;
  allowedAuthors: string;
  /** The `slack` trigger's channel. */
  slackChannel: string;
  /** The channel told what became of the runs; empty: none. */
  notifySlack: string;
  /** Issue trigger: `code_host` or `linear`, its team, and its labels (one a line). */
  issueSource: string;
  team: string;
  labels: string;
  group: boolean;
  draft: boolean;
}

export type AutomationField = Exclude<keyof AutomationValues, 'group' | 'draft'> | 'form';
export type AutomationErrors = Partial<Record<AutomationField, string>>;

const TRIGGER_LABELS: Record<TriggerType, string> = {
  schedule: 'Schedule',
  code_change: 'Code change in a context repository',
  content_change: 'Change in the content repository (not made by the service)',
  comment: 'Comment that mentions the service',
  manual: 'Manual (Run now, the API, the CLI)',
  slack: 'New message in a Slack channel',
  issue: 'Issue opened or labelled (code host or Linear)',
};

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A cron expression in words where it is a common one (a daily or weekly time), else as it is. */
function scheduleWords(cron: string, timezone: string): string {
  const [minute, hour, dayOfMonth, month, dayOfWeek, ...rest] = cron.trim().split(/\s+/);
  const at =
    /^\d{1,2}$/.test(minute ?? '') && /^\d{1,2}$/.test(hour ?? '')
      ? `${hour?.padStart(2, '0')}:${minute?.padStart(2, '0')}`
      : undefined;
  if (at && rest.length === 0 && dayOfMonth === '*' && month === '*') {
    if (dayOfWeek === '*') return `every day ${at} ${timezone}`;
    const day = /^[0-7]$/.test(dayOfWeek ?? '') ? DAYS[Number(dayOfWeek) % 7] : undefined;
    if (day) return `every ${day} ${at} ${timezone}`;
  }
  return `cron ${cron} ${timezone}`;
}

const pathWords = (paths: string[] | null) => (paths?.length ? ` (${paths.join(', ')})` : '');

/** The trigger as a person says it: "every Monday 09:00 Europe/Berlin", "code change on product/main (src/**)". */
export function triggerWords(trigger: AutomationTrigger): string {
  switch (trigger.type) {
    case 'schedule':
      return scheduleWords(trigger.cron, trigger.timezone);
    case 'code_change':
      return `code change on ${trigger.repository}/${trigger.branch}${pathWords(trigger.paths)}`;
    case 'content_change':
      return `content change on ${trigger.branch}${pathWords(trigger.paths)}`;
    case 'slack':
      return `new message in Slack channel ${trigger.channel}`;
    case 'issue':
      return issueWords(trigger);
    default:
      return trigger.type;
  }
}

/** "issue in ENG on Linear labelled docs", "issue in the content repository (any, when opened)". */
function issueWords(trigger: Extract<AutomationTrigger, { type: 'issue' }>): string {
  const where =
    trigger.source === 'linear'
      ? `in ${trigger.team ?? '?'} on Linear`
      : `in ${trigger.repository ?? 'the content repository'}`;
  const which = trigger.labels.length > 0 ? `labelled ${trigger.labels.join(' or ')}` : '(any, when opened)';
  return `issue ${where} ${which}`;
}

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The form's fields from a posted body; absent checkboxes are unchecked. */
export function readAutomationForm(body: unknown): AutomationValues {
  const form = (body ?? {}) as Record<string, unknown>;
  return {
    name: text(form.name).trim(),
    triggerType: text(form.triggerType),
    cron: text(form.cron).trim(),
    timezone: text(form.timezone).trim(),
    repository: text(form.repository).trim(),
    branch: text(form.branch).trim(),
    paths: text(form.paths),
    prompt: text(form.prompt).replace(/\r\n/g, '\n'),
    allowedAuthors: text(form.allowedAuthors),
    slackChannel: text(form.slackChannel).trim(),
    notifySlack: text(form.notifySlack).trim(),
    issueSource: text(form.issueSource) || 'code_host',
    team: text(form.team).trim(),
    labels: text(form.labels),
    group: form.group !== undefined,
    draft: form.draft !== undefined,
  };
}

/** The form's values for an automation, or a template, or a blank form. */
export function automationValues(from?: Automation | AutomationTemplate): AutomationValues {
  const trigger = from?.trigger ?? { type: 'manual' };
  const saved = from && 'id' in from ? from : undefined;
  return {
    name: from?.name ?? '',
    triggerType: trigger.type,
    cron: trigger.type === 'schedule' ? trigger.cron : '',
    timezone: trigger.type === 'schedule' ? trigger.timezone : 'UTC',
    repository: trigger.type === 'code_change' || trigger.type === 'issue' ? (trigger.repository ?? '') : '',
    branch: trigger.type === 'code_change' || trigger.type === 'content_change' ? trigger.branch : 'main',
    paths:
      (trigger.type === 'code_change' || trigger.type === 'content_change') && trigger.paths
        ? trigger.paths.join('\n')
        : '',
    prompt: from?.prompt ?? '',
    allowedAuthors: saved?.allowedAuthors.join('\n') ?? '',
    slackChannel: trigger.type === 'slack' ? trigger.channel : '',
    notifySlack: saved?.notify.slack ?? '',
    issueSource: trigger.type === 'issue' ? trigger.source : 'code_host',
    team: trigger.type === 'issue' ? (trigger.team ?? '') : '',
    labels: trigger.type === 'issue' ? trigger.labels.join('\n') : '',
    group: saved?.group ?? true,
    draft: saved?.draft ?? false,
  };
}

const required = 'is required';

/**
 * The input to save, or what is missing by field. The rules `operations/automations.ts` keeps (cron,
 * timezone, placeholders, branch names, repositories) are left to it; this checks only what the
 * form must have to make an input at all.
 */
export function automationInput(
  values: AutomationValues,
): { input: AutomationInput; errors?: undefined } | { errors: AutomationErrors } {
  const errors: AutomationErrors = {};
  if (!values.name) errors.name = required;
  else if (values.name.length > AUTOMATION_NAME_MAX)
    errors.name = `must be at most ${AUTOMATION_NAME_MAX} characters`;
  if (!values.prompt.trim()) errors.prompt = required;
  const authors = lines(values.allowedAuthors);
  if (authors.length > ALLOWED_AUTHORS_MAX) errors.allowedAuthors = `at most ${ALLOWED_AUTHORS_MAX} names`;
  else if (authors.some((author) => author.length > 100))
    errors.allowedAuthors = 'each name must be at most 100 characters';
  let trigger: TriggerInput | undefined;
  switch (values.triggerType) {
    case 'schedule':
      if (!values.cron) errors.cron = required;
      trigger = { type: 'schedule', cron: values.cron, timezone: values.timezone || 'UTC' };
      break;
    case 'code_change':
      if (!values.repository) errors.repository = required;
      if (!values.branch) errors.branch = required;
      trigger = {
        type: 'code_change',
        repository: values.repository,
        branch: values.branch,
        paths: lines(values.paths),
      };
      break;
    case 'content_change':
      if (!values.branch) errors.branch = required;
      trigger = { type: 'content_change', branch: values.branch, paths: lines(values.paths) };
      break;
    case 'comment':
    case 'manual':
      trigger = { type: values.triggerType };
      break;
    case 'slack':
      if (!values.slackChannel) errors.slackChannel = required;
      trigger = { type: 'slack', channel: values.slackChannel };
      break;
    case 'issue':
      trigger = issueInput(values, errors);
      break;
    default:
      errors.triggerType = 'pick one of the triggers';
  }
  if (Object.keys(errors).length > 0 || !trigger) return { errors };
  return {
    input: {
      name: values.name,
      trigger,
      prompt: values.prompt,
      group: values.group,
      draft: values.draft,
      allowedAuthors: authors,
      notify: { slack: values.notifySlack || null },
    },
  };
}

/** The issue trigger the form describes; a Linear one needs its team. */
function issueInput(values: AutomationValues, errors: AutomationErrors): TriggerInput {
  if (values.issueSource === 'linear') {
    if (!values.team) errors.team = required;
    return { type: 'issue', source: 'linear', team: values.team, labels: lines(values.labels) };
  }
  return {
    type: 'issue',
    source: 'code_host',
    repository: values.repository || null,
    labels: lines(values.labels),
  };
}

/** The form field a saving error is about (`body.trigger.cron` is the cron field), else the form. */
export function errorsOf(error: AppError): AutomationErrors {
  const detail = error.details?.[0];
  if (error.code === 'invalid_automation' && detail) {
    const path = detail.path.replace(/^body\./, '').replace(/^trigger\./, '');
    const fields: Record<string, AutomationField> = {
      name: 'name',
      prompt: 'prompt',
      cron: 'cron',
      timezone: 'timezone',
      repository: 'repository',
      branch: 'branch',
      paths: 'paths',
      allowedAuthors: 'allowedAuthors',
      channel: 'slackChannel',
      'notify.slack': 'notifySlack',
      team: 'team',
      labels: 'labels',
    };
    const field = fields[path];
    if (field) return { [field]: detail.message };
  }
  return { form: error.message };
}

/** The API's limit on a Run now variable's value (`triggerAutomationBody`). */
export const VARIABLE_VALUE_MAX = 10_000;

/** The names of the prompt's `{{variables.NAME}}` placeholders, which Run now asks values for. */
export function variableNames(automation: Automation): string[] {
  const names = templatePlaceholders(automation.prompt)
    .filter((placeholder) => placeholder.startsWith('variables.'))
    .map((placeholder) => placeholder.slice('variables.'.length));
  return [...new Set(names)];
}

/** Why Run now started nothing, in words for the automation's page. */
export function runRefusal(error: AppError): string {
  const wait = error.retryAfterSeconds ? ` Try again in ${waitText(error.retryAfterSeconds)}.` : '';
  switch (error.code) {
    case 'automation_disabled':
      return 'Not run: the automation is disabled. Enable it first.';
    case 'automation_limit_exceeded':
      return `Not run: the project has used its automation runs for today.${wait}`;
    case 'budget_exceeded':
      return `Not run: the project's cost budget is used.${wait}`;
    case 'too_many_active_jobs':
      return 'Not run: the project has as many jobs running as it may. Wait for one to finish, or archive one.';
    case 'unavailable':
      return error.reason === 'draining'
        ? 'Not run: the server is shutting down; try again in a moment.'
        : `Not run: the server is not taking new work right now.${wait}`;
    default:
      return `Not run: ${error.message}`;
  }
}

const invalid = (errors: AutomationErrors, field: AutomationField) =>
  errors[field] ? html` aria-invalid="true"` : '';

/** One text input with its label and hint (which leads with the field's error). */
function input(
  field: Exclude<AutomationField, 'form' | 'triggerType' | 'prompt'>,
  label: string,
  values: AutomationValues,
  errors: AutomationErrors,
  hint: string | Html,
  multiline = false,
): Html {
  const id = `a-${field}`;
  const control = multiline
    ? html`<textarea id="${id}" name="${field}" rows="3" aria-describedby="h-${id}"${invalid(errors, field)}>${values[field]}</textarea>`
    : html`<input type="text" id="${id}" name="${field}" value="${values[field]}" aria-describedby="h-${id}"${invalid(errors, field)}>`;
  return html`<div><label for="${id}">${label}</label>${control}${fieldHint(`h-${id}`, errors[field], hint)}</div>`;
}

/** The form: a new automation (posted to the list) or an automation's settings (posted to it). */
export function automationForm(options: {
  action: string;
  csrf: string;
  values: AutomationValues;
  errors: AutomationErrors;
  submit: string;
}): Html {
  const { values, errors } = options;
  const check = (field: 'group' | 'draft', label: string, hint: string) =>
    html`<div><span class="choice"><input type="checkbox" id="a-${field}" name="${field}" value="on"${values[field] ? html` checked` : ''}><label for="a-${field}">${label}</label></span><div class="hint">${hint}</div></div>`;
  return html`<form class="stack" method="post" action="${options.action}">
    <input type="hidden" name="_csrf" value="${options.csrf}">
    ${errors.form ? html`<div class="flash error" role="alert">${errors.form}</div>` : ''}
    ${input('name', 'Name', values, errors, 'What the automation is for; shown in lists and on its jobs.')}
    <div><label for="a-triggerType">Trigger</label><select id="a-triggerType" name="triggerType" aria-describedby="h-a-triggerType"${invalid(errors, 'triggerType')}>${TRIGGER_TYPES.map(
      (type) =>
        html`<option value="${type}"${values.triggerType === type ? html` selected` : ''}>${TRIGGER_LABELS[type]}</option>`,
    )}</select>${fieldHint('h-a-triggerType', errors.triggerType, 'Fill in the fields below that the trigger uses; the others are ignored.')}</div>
    <fieldset><legend>Schedule</legend>
      ${input('cron', 'Cron', values, errors, 'Five fields: minute hour day-of-month month day-of-week, e.g. 0 9 * * 1 for Mondays at 09:00.')}
      ${input('timezone', 'Timezone', values, errors, 'An IANA timezone such as Europe/Berlin; UTC when empty.')}</fieldset>
    <fieldset><legend>Code change, content change</legend>
      ${input('repository', 'Context repository', values, errors, 'Code change: the name of one of the project’s context repositories. Issue: one to watch instead of the content repository.')}
      ${input('branch', 'Branch', values, errors, 'The branch whose new commits start a run.')}
      ${input('paths', 'Paths', values, errors, 'Optional globs, one a line (src/**): only a change to a matching file starts a run.', true)}</fieldset>
    <fieldset><legend>Slack</legend>
      ${input('slackChannel', 'Slack channel', values, errors, 'New message in a Slack channel only: the channel id (C…), mapped to this project on its settings page. Each new top-level message is a run.')}
      ${input('notifySlack', 'Notify Slack channel', values, errors, 'Optional: a channel id (C…) mapped to this project, told when a run’s pull request opens, is merged, or the run fails.')}</fieldset>
    <div><label for="a-prompt">Prompt</label><textarea id="a-prompt" name="prompt" rows="14" aria-describedby="h-a-prompt"${invalid(errors, 'prompt')}>${values.prompt}</textarea>
      ${fieldHint('h-a-prompt', errors.prompt, html`A template: <code>{{change.diff}}</code>, <code>{{comment.body}}</code>, <code>{{schedule.time}}</code>, <code>{{message.text}}</code>, <code>{{issue.title}}</code>, <code>{{variables.NAME}}</code> and the other placeholders of the docs; an unknown one is refused.`)}</div>
    <fieldset><legend>Issue</legend>
      <div><label for="a-issueSource">Issues from</label><select id="a-issueSource" name="issueSource">${[
        ['code_host', 'The code host (the content repository, or the context repository above)'],
        ['linear', 'Linear (a team)'],
      ].map(
        ([value, label]) =>
          html`<option value="${value}"${values.issueSource === value ? html` selected` : ''}>${label}</option>`,
      )}</select></div>
      ${input('team', 'Linear team', values, errors, 'Linear only: the team’s key, as in ENG-123.')}
      ${input('labels', 'Labels', values, errors, 'One a line: an issue opened or labelled with one starts a run; empty: every issue opened.', true)}</fieldset>
    ${input('allowedAuthors', 'Allowed authors', values, errors, 'Comment trigger: authors trusted besides those the code host says can write; one a line.', true)}
    <fieldset><legend>Jobs</legend>
      ${check('group', 'Group runs', 'While the latest job’s pull request is open, a run is a follow-up on it.')}
      ${check('draft', 'Draft pull requests', 'Jobs open their pull requests as drafts.')}</fieldset>
    <div class="actions"><button class="primary" type="submit">${options.submit}</button></div>
  </form>`;
}
