/**
 * Automations (docs/automations.md): the resource, its
 * triggers, the rules a saved automation keeps, and its runs. Pure: the schedule's next time is
 * computed here (croner), the template's placeholders are read here (mustache's parser); nothing
 * here reads the database or the clock but through its arguments.
 */
import { Cron } from 'croner';
import Mustache from 'mustache';
import { type AutomationNotify, SLACK_MESSAGE_PLACEHOLDERS, type SlackTrigger } from './automation-slack.js';
import { ISSUE_PLACEHOLDERS, type IssueTrigger } from './issue-trigger.js';
import { DEFAULT_PROJECT_MENTION } from './project.js';

export type { AutomationNotify, SlackTrigger } from './automation-slack.js';
export type { IssueTrigger } from './issue-trigger.js';

/** `{ type: "schedule" }`: a five-field cron expression in a timezone. */
export interface ScheduleTrigger {
  type: 'schedule';
  cron: string;
  /** An IANA timezone; `UTC` by default. */
  timezone: string;
}

/** New commits on a branch of one of the project's context repositories. */
export interface CodeChangeTrigger {
  type: 'code_change';
  /** The context repository's name. */
  repository: string;
  branch: string;
  /** Globs of paths; null or empty: any change. */
  paths: string[] | null;
}

/** New commits on the content repository's branch that the service did not make. */
export interface ContentChangeTrigger {
  type: 'content_change';
  branch: string;
  paths: string[] | null;
}

/** A comment that mentions the project's mention on a pull request or issue. */
export interface CommentTrigger {
  type: 'comment';
}

/** Only the trigger endpoint (and the CLI, dashboard and MCP) runs it. */
export interface ManualTrigger {
  type: 'manual';
}

export type AutomationTrigger =
  | ScheduleTrigger
  | CodeChangeTrigger
  | ContentChangeTrigger
  | CommentTrigger
  | ManualTrigger
  | SlackTrigger
  | IssueTrigger;

export const TRIGGER_TYPES = [
  'schedule',
  'code_change',
  'content_change',
  'comment',
  'manual',
  'slack',
  'issue',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** An automation as the API shows it; every field is always present. */
export interface Automation {
  id: string;
  projectId: string;
  name: string;
  enabled: boolean;
  trigger: AutomationTrigger;
  /** The prompt template: `{{name}}` placeholders of `PLACEHOLDERS`, no logic. */
  prompt: string;
  /** While its latest job's pull request is open, a run is a follow-up on that job. */
  group: boolean;
  draft: boolean;
  model: string | null;
  baseRef: string | null;
  /** Comment authors trusted besides those the host says can write. */
  allowedAuthors: string[];
  /** Where what became of its runs is posted (`automation-slack.ts`). */
  notify: AutomationNotify;
  createdAt: string;
  updatedAt: string;
  lastRunAt: string | null;
  /** A schedule's next time; null for every other trigger and while disabled. */
  nextRunAt: string | null;
}

/**
 * `failed`: a job was to be made and could not be, after the bounded tries an event gets (the
 * reason `error`, the cause in `detail`); a refusal of the run's input is `skipped` as `invalid`.
 */
export const RUN_OUTCOMES = ['created', 'grouped', 'skipped', 'failed'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** Why a run started nothing. */
export const SKIP_REASONS = [
  'disabled',
  'duplicate',
  'untrusted_author',
  'paths_not_matched',
  'limit',
  'budget_exceeded',
  'no_change',
  'invalid',
  'error',
  'stopped',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** One event an automation saw, and what came of it. */
export interface AutomationRun {
  id: string;
  automationId: string;
  at: string;
  /** What started it: a URL or a commit id as `source` (a schedule's time, `manual` for the endpoint). */
  trigger: { type: TriggerType; source: string };
  outcome: RunOutcome;
  reason: SkipReason | null;
  /** What went wrong, in words, for an `invalid` or `error` run (the refusal's or the error's message). */
  detail: string | null;
  jobId: string | null;
  /** What came of it so far (`runStatus`): kept current with its job and its pull request. */
  status: RunStatus;
}

/**
 * A run's current state, which `outcome` (fixed when the run was recorded) is not: `running` while
 * its job works, `review_needed` while the job's pull request is open, `accepted` once it was merged
 * (or, in push mode, the commit landed on the base), `closed` when it was closed without merge,
 * `no_changes` when the job finished with nothing to propose, `failed` when the job (or the run
 * itself) failed, `skipped` when nothing ran (`reason` says why).
 */
export const RUN_STATUSES = [
  'running',
  'review_needed',
  'accepted',
  'closed',
  'no_changes',
  'failed',
  'skipped',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a run's status is read from: its job as it is now, and the state of the job's pull request. */
export interface RunJobState {
  status: 'active' | 'completed' | 'archived' | 'failed';
  prLink: string | null;
  filesChanged: number;
  /** The pull request's state as last learned; null when unknown (taken as open). */
  pullRequest: 'open' | 'merged' | 'closed' | null;
}

/**
 * The status of a run of `outcome` whose job is `job` (null: it made none, or the job is gone). A
 * grouped run shares its job, so it shares the job's status: the pull request holds both runs' work.
 */
export function runStatus(outcome: RunOutcome, job: RunJobState | null): RunStatus {
  if (outcome === 'skipped' || outcome === 'failed') return outcome;
  if (!job) return 'failed';
  if (job.status === 'active') return 'running';
  if (job.status === 'failed') return 'failed';
  if (job.prLink) {
    if (job.pullRequest === 'merged') return 'accepted';
    // Archiving a job closes its pull request; the host may not have told us yet.
    if (job.pullRequest === 'closed' || job.status === 'archived') return 'closed';
    return 'review_needed';
  }
  // No pull request: in push mode the commit is on the base already; else there was nothing to propose.
  return job.filesChanged > 0 ? 'accepted' : 'no_changes';
}

/** The job field `trigger`: what started a job an automation made (null for API jobs). */
export interface AutomationJobTrigger {
  type: TriggerType;
  automationId: string;
  source: string;
}

/** Every placeholder a template may use; `variables.NAME` besides. */
export const PLACEHOLDERS = [
  'change.repository',
  'change.branch',
  'change.from',
  'change.to',
  'change.commits',
  'change.pullRequests',
  'change.files',
  'change.diff',
  'comment.body',
  'comment.author',
  'comment.url',
  'schedule.time',
  ...SLACK_MESSAGE_PLACEHOLDERS,
  ...ISSUE_PLACEHOLDERS,
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const VARIABLE_PLACEHOLDER = /^variables\.([A-Za-z_][A-Za-z0-9_]{0,63})$/;

export const AUTOMATION_NAME_MAX = 100;
export const ALLOWED_AUTHORS_MAX = 100;
/** The mention a project has unless an admin set another. */
export const DEFAULT_MENTION = DEFAULT_PROJECT_MENTION;

/** A rule a saved automation broke, with the field it is about (`body.trigger.cron`). */
export class AutomationRuleError extends Error {
  override name = 'AutomationRuleError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The placeholders `template` uses, in order. Anything but text and plain `{{name}}` tags is
 * refused: sections, inverted sections, partials, raw `{{{ }}}`/`{{& }}` tags, comments and
 * delimiter changes are logic or escapes a prompt template does not need, and each would make what
 * the job is told harder to read from the template.
 *
 * @throws AutomationRuleError naming `prompt`
 */
export function templatePlaceholders(template: string): string[] {
  let tokens: unknown[][];
  try {
    tokens = Mustache.parse(template) as unknown[][];
  } catch (error) {
    throw new AutomationRuleError('prompt', `is not a valid template: ${(error as Error).message}`);
  }
  const names: string[] = [];
  for (const token of tokens) {
    const [type, value] = token as [string, string];
    if (type === 'text') continue;
    if (type !== 'name') {
      throw new AutomationRuleError(
        'prompt',
        `uses {{${type}${value}}}: only {{name}} placeholders are allowed, no sections, partials or raw tags`,
      );
    }
    if (!isKnownPlaceholder(value)) {
      throw new AutomationRuleError(
        'prompt',
        `uses the unknown placeholder {{${value}}}; known: ${PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')} and {{variables.NAME}}`,
      );
    }
    names.push(value);
  }
  return names;
}

const isKnownPlaceholder = (name: string) =>
  (PLACEHOLDERS as readonly string[]).includes(name) || VARIABLE_PLACEHOLDER.test(name);

/** The `NAME`s of `{{variables.NAME}}` a template uses. */
export function templateVariables(template: string): string[] {
  return templatePlaceholders(template).flatMap((name) => {
    const match = VARIABLE_PLACEHOLDER.exec(name);
    return match?.[1] ? [match[1]] : [];
  });
}

/** Whether `timezone` is one the runtime knows (IANA names, `UTC`). */
export function isTimezone(timezone: string): boolean {
  if (timezone.length === 0 || timezone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

function cronOf(trigger: ScheduleTrigger): Cron {
  return new Cron(trigger.cron, { timezone: trigger.timezone, paused: true, mode: '5-part' });
}

/**
 * Checks a schedule: five-field cron, a known timezone, and a time it will fire at.
 *
 * @throws AutomationRuleError naming `trigger.cron` or `trigger.timezone`
 */
export function checkSchedule(trigger: ScheduleTrigger): void {
  if (!isTimezone(trigger.timezone)) {
    throw new AutomationRuleError('trigger.timezone', `${trigger.timezone} is not an IANA timezone`);
  }
  if (trigger.cron.trim().split(/\s+/).length !== 5) {
    throw new AutomationRuleError('trigger.cron', 'must have five fields: minute hour day month weekday');
  }
  let next: Date | null;
  try {
    next = cronOf(trigger).nextRun(new Date());
  } catch (error) {
    throw new AutomationRuleError(
      'trigger.cron',
      `is not a valid cron expression: ${(error as Error).message}`,
    );
  }
  if (!next) throw new AutomationRuleError('trigger.cron', 'never fires');
}

/** The schedule's first time strictly after `after`; null when it never fires again. */
export function nextScheduleTime(trigger: ScheduleTrigger, after: Date): Date | null {
  return cronOf(trigger).nextRun(after);
}

/** When an automation runs next by itself: a schedule's next time while enabled, else null. */
export function nextRunAt(automation: Pick<Automation, 'enabled' | 'trigger'>, after: Date): string | null {
  if (!automation.enabled || automation.trigger.type !== 'schedule') return null;
  return nextScheduleTime(automation.trigger, after)?.toISOString() ?? null;
}

/** The UTC day (`YYYY-MM-DD`) a run counts against, and the seconds until that day ends. */
export function runDay(at: Date): { day: string; secondsLeft: number } {
  const day = at.toISOString().slice(0, 10);
  const end = Date.parse(`${day}T00:00:00.000Z`) + 24 * 60 * 60 * 1000;
  return { day, secondsLeft: Math.max(1, Math.ceil((end - at.getTime()) / 1000)) };
}
