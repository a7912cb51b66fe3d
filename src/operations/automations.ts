/**
 * Saving and triggering automations, the same for every entry point (the API, and the CLI, MCP
 * and dashboard through it or beside it). A saved automation keeps the contract's rules: a valid
 * five-field cron in a known timezone, only known placeholders, a context repository the project
 * has, branch names git accepts, a model the project allows. A broken rule is `invalid_automation`
 * (422) naming the field.
 */
import {
  type Automation,
  AutomationRuleError,
  type AutomationTrigger,
  checkSchedule,
  templatePlaceholders,
} from '../domain/automation.js';
import type { AutomationNotify } from '../domain/automation-slack.js';
import { AppError } from '../domain/errors.js';
import { refuseWhileDraining } from '../domain/lifecycle.js';
import { chooseModel } from '../domain/model-id.js';
import type { AutomationChange } from '../store/automations.js';
import { type AutomationRunDeps, type RunResult, runAutomation } from './automation-run.js';
import { checkSlackChannels } from './automation-slack.js';
import { checkIssueTrigger, type IssueTriggerInput, normalIssueTrigger } from './issue-triggers.js';

/** What saving an automation needs besides the store and the config. */
export interface AutomationSaveDeps extends AutomationRunDeps {
  /**
   * The names of the project's context repositories, which a `code_change` trigger must name one
   * of. Absent: the project's context repositories in the store.
   */
  contextRepositoryNames?: (projectId: string) => Promise<string[]>;
}

/** A trigger as a client sends it: optional fields may be absent. */
export type TriggerInput =
  | { type: 'schedule'; cron: string; timezone?: string | undefined }
  | { type: 'code_change'; repository: string; branch: string; paths?: string[] | null | undefined }
  | { type: 'content_change'; branch: string; paths?: string[] | null | undefined }
  | { type: 'comment' }
  | { type: 'manual' }
  | { type: 'slack'; channel: string }
  | IssueTriggerInput;

/** An automation as a client asks for it; absent fields take the contract's defaults. */
export interface AutomationInput {
  name: string;
  trigger: TriggerInput;
  prompt: string;
  enabled?: boolean | undefined;
  group?: boolean | undefined;
  draft?: boolean | undefined;
  model?: string | null | undefined;
  baseRef?: string | null | undefined;
  allowedAuthors?: string[] | undefined;
  notify?: { slack?: string | null | undefined } | undefined;
}

/** The trigger with its defaults filled in. */
export function normalTrigger(input: TriggerInput): AutomationTrigger {
  switch (input.type) {
    case 'schedule':
      return { type: 'schedule', cron: input.cron.trim(), timezone: input.timezone ?? 'UTC' };
    case 'code_change':
      return {
        type: 'code_change',
        repository: input.repository,
        branch: input.branch,
        paths: emptyToNull(input.paths),
      };
    case 'content_change':
      return { type: 'content_change', branch: input.branch, paths: emptyToNull(input.paths) };
    case 'slack':
      return { type: 'slack', channel: input.channel };
    case 'issue':
      return normalIssueTrigger(input);
    default:
      return { type: input.type };
  }
}

const normalNotify = (input: AutomationInput['notify']): AutomationNotify => ({
  slack: input?.slack ?? null,
});

const emptyToNull = (paths: string[] | null | undefined) => (paths && paths.length > 0 ? paths : null);

/** A ref name git would refuse (`git check-ref-format` rules that a branch name can break). */
const BAD_BRANCH = /(^[-/.])|([/.]$)|\.\.|\/\/|@\{|[\s~^:?*[\\\p{Cc}]|\.lock(\/|$)|^@$/u;

const invalid = (path: string, message: string) =>
  new AppError('invalid_automation', `${path} ${message}`, { details: [{ path: `body.${path}`, message }] });

/** Checks every rule a saved automation keeps; throws the first broken one. */
async function check(
  deps: AutomationSaveDeps,
  projectId: string,
  automation: Omit<Automation, 'id' | 'projectId' | 'createdAt' | 'updatedAt' | 'lastRunAt' | 'nextRunAt'>,
): Promise<void> {
  const project = await deps.store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  try {
    templatePlaceholders(automation.prompt);
    if (automation.prompt.length > deps.config.limits.maxPromptChars) {
      throw new AutomationRuleError(
        'prompt',
        `must be at most ${deps.config.limits.maxPromptChars} characters`,
      );
    }
    const { trigger } = automation;
    if (trigger.type === 'schedule') checkSchedule(trigger);
    if (trigger.type === 'code_change' || trigger.type === 'content_change') {
      if (BAD_BRANCH.test(trigger.branch))
        throw new AutomationRuleError('trigger.branch', 'is not a valid branch name');
    }
    if (automation.baseRef !== null && BAD_BRANCH.test(automation.baseRef)) {
      throw new AutomationRuleError('baseRef', 'is not a valid branch name');
    }
    const contextNames = async () =>
      deps.contextRepositoryNames
        ? deps.contextRepositoryNames(projectId)
        : (await deps.store.contextRepositories.list(projectId)).map((context) => context.name);
    if (trigger.type === 'issue') await checkIssueTrigger(trigger, contextNames);
    if (trigger.type === 'code_change') {
      const names = await contextNames();
      if (!names.includes(trigger.repository)) {
        throw new AutomationRuleError(
          'trigger.repository',
          names.length === 0
            ? `names no context repository: the project has none`
            : `names no context repository of the project (it has ${names.join(', ')})`,
        );
      }
    }
  } catch (error) {
    if (error instanceof AutomationRuleError) throw invalid(error.path, error.message);
    throw error;
  }
  await checkSlackChannels(deps.store, projectId, automation, invalid);
  if (automation.model !== null) chooseModel(project, deps.config.defaultModel, automation.model);
}

/** Creates an automation after checking it. @throws AppError `invalid_automation`, `model_not_allowed`, `project_not_found` */
export async function createAutomation(
  deps: AutomationSaveDeps,
  projectId: string,
  input: AutomationInput,
): Promise<Automation> {
  const automation = {
    name: input.name,
    enabled: input.enabled ?? true,
    trigger: normalTrigger(input.trigger),
    prompt: input.prompt,
    group: input.group ?? true,
    draft: input.draft ?? false,
    model: input.model ?? null,
    baseRef: input.baseRef ?? null,
    allowedAuthors: input.allowedAuthors ?? [],
    notify: normalNotify(input.notify),
  };
  await check(deps, projectId, automation);
  return deps.store.automations.create({ projectId, ...automation });
}

/** Changes the fields given, after checking the result. */
export async function updateAutomation(
  deps: AutomationSaveDeps,
  projectId: string,
  automationId: string,
  input: Partial<AutomationInput>,
): Promise<Automation> {
  const current = await deps.store.automations.get(projectId, automationId);
  if (!current) throw automationNotFound(automationId);
  const change: AutomationChange = Object.fromEntries(
    Object.entries({
      ...input,
      trigger: input.trigger && normalTrigger(input.trigger),
      notify: input.notify && normalNotify(input.notify),
    }).filter(([, value]) => value !== undefined),
  );
  await check(deps, projectId, { ...current, ...change });
  const updated = await deps.store.automations.update(projectId, automationId, change);
  if (!updated) throw automationNotFound(automationId);
  return updated;
}

export const automationNotFound = (automationId: string) =>
  new AppError('automation_not_found', `No automation ${automationId} in this project.`);

/**
 * Runs the automation now (the trigger endpoint, the CLI, MCP). A run that could not go is
 * recorded as skipped and thrown as the error the API answers with.
 *
 * @throws AppError `automation_not_found`, `automation_disabled`, `automation_limit_exceeded`,
 * `budget_exceeded`, `too_many_active_jobs`
 */
export async function triggerAutomation(
  deps: AutomationRunDeps,
  projectId: string,
  automationId: string,
  variables: Record<string, string> = {},
): Promise<RunResult & { job: NonNullable<RunResult['job']> }> {
  // A run by hand is new work, refused while draining as a create is.
  refuseWhileDraining(deps.lifecycle);
  const automation = await deps.store.automations.get(projectId, automationId);
  if (!automation) throw automationNotFound(automationId);
  const result = await runAutomation(deps, {
    automation,
    trigger: { type: 'manual', source: 'manual' },
    context: {
      variables,
      // A schedule's template names its time: run by hand, that is now, and the prompt says so.
      ...(automation.trigger.type === 'schedule'
        ? { schedule: { time: `${new Date().toISOString()} (run by hand)` } }
        : {}),
    },
  });
  if (result.error || !result.job)
    throw result.error ?? new Error('a run without a job and without an error');
  return { ...result, job: result.job };
}
