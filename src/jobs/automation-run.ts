/**
 * One run of an automation (DESIGN section 3, automations): whatever started it (the trigger
 * endpoint, the scheduler, a code host's event), the run goes through here. It is recorded with
 * its outcome whatever happens: `created` (a new job, through `createJob`, the one create path),
 * `grouped` (a follow-up on the job whose pull request is still open) or `skipped` with a reason.
 * Runs do not spend the API's hourly budget; they count against the project's runs per UTC day,
 * and the project's cost budget applies.
 */
import type { AutomationConfig } from '../config/config.js';
import type { Automation, AutomationRun, SkipReason, TriggerType } from '../domain/automation.js';
import { quotedPrompt, renderPrompt, type TriggerContext } from '../domain/automation-prompt.js';
import { AppError, isAppError } from '../domain/errors.js';
import type { Job } from '../domain/job.js';
import { waitText } from './budget.js';
import { createJob, type JobOperationDeps } from './create-job.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a run needs besides the job operations' own. */
export interface AutomationRunDeps extends JobOperationDeps {
  automations: AutomationConfig;
  /**
   * Whether the pull request of `job` is still open. The default knows the local host's pull
   * requests from the database and, for the other hosts, takes a job that has a pull request and
   * is not archived as open (a follow-up on a merged one opens a new pull request anyway).
   */
  pullRequestOpen?: (job: Job) => Promise<boolean>;
}

/** What started a run. */
export interface RunRequest {
  automation: Automation;
  trigger: { type: TriggerType; source: string };
  /** What the template's placeholders are filled from. */
  context: TriggerContext;
  /** A schedule's run: the time it was for. */
  scheduledFor?: string;
  /** Continue this job instead of grouping or creating (a comment on a job's pull request). */
  followUpJobId?: string;
}

/** The run as recorded, the job it made or continued, and, when it could not run, why. */
export interface RunResult {
  run: AutomationRun;
  job: Job | null;
  /** Set when the run was skipped for a reason its caller answers as an error (the trigger endpoint). */
  error: AppError | null;
}

/** Runs an automation once and records the run; it throws only what is not a reason to skip. */
export async function runAutomation(deps: AutomationRunDeps, request: RunRequest): Promise<RunResult> {
  const { store } = deps;
  const { automation } = request;
  const record = async (outcome: AutomationRun['outcome'], reason: SkipReason | null, job: Job | null) =>
    store.automations.recordRun({
      automation,
      trigger: request.trigger,
      outcome,
      reason,
      jobId: job?.id ?? null,
      ...(request.scheduledFor ? { scheduledFor: request.scheduledFor } : {}),
    });
  const skip = async (reason: SkipReason, error: AppError) => ({
    run: await record('skipped', reason, null),
    job: null,
    error,
  });

  if (!automation.enabled) {
    return skip('disabled', new AppError('automation_disabled', `Automation ${automation.id} is disabled.`));
  }
  const limit = deps.automations.runsPerDay;
  const { count, ttlMs } = await store.rateLimits.hit(`automation-runs:${automation.projectId}`, DAY_MS);
  if (count > limit) {
    const resetSeconds = Math.ceil(ttlMs / 1000);
    return skip(
      'limit',
      new AppError(
        'automation_limit_exceeded',
        `This project's automations used their ${limit} runs for today (UTC); retry in ${waitText(resetSeconds)}.`,
        { retryAfterSeconds: resetSeconds, limit: { limit, remaining: 0, resetSeconds } },
      ),
    );
  }

  const rendering = { diffChars: deps.automations.diffChars };
  const prompt = renderPrompt(automation.prompt, request.context, rendering);
  // A context repository's text stays out of the content repository's pull request (unless the project says).
  const quoted = quotedPrompt(automation.prompt, request.context, rendering);
  const jobTrigger = { ...request.trigger, automationId: automation.id };
  // The rendered prompt quotes diffs and comments, so it may be longer than a client's prompt may be.
  const runDeps: JobOperationDeps = {
    ...deps,
    config: {
      ...deps.config,
      limits: {
        ...deps.config.limits,
        maxPromptChars: deps.config.limits.maxPromptChars + 2 * deps.automations.diffChars,
      },
    },
  };
  try {
    const continued = request.followUpJobId ?? (await groupInto(deps, automation));
    if (continued) {
      const job = await store.jobs.followUp(automation.projectId, continued, prompt);
      return { run: await record('grouped', null, job), job, error: null };
    }
    const { job } = await createJob(runDeps, {
      projectId: automation.projectId,
      prompt,
      model: automation.model ?? undefined,
      baseRef: automation.baseRef ?? undefined,
      draft: automation.draft,
      trigger: jobTrigger,
      ...(quoted === null ? {} : { pullRequestPrompt: quoted }),
    });
    return { run: await record('created', null, job), job, error: null };
  } catch (error) {
    if (isAppError(error) && error.code === 'budget_exceeded') return skip('budget_exceeded', error);
    if (isAppError(error) && error.code === 'too_many_active_jobs') return skip('limit', error);
    throw error;
  }
}

/**
 * The job a grouped run continues: the automation's latest job, while it runs or while its pull
 * request is open; else undefined (a new job).
 */
async function groupInto(deps: AutomationRunDeps, automation: Automation): Promise<string | undefined> {
  if (!automation.group) return undefined;
  const jobId = await deps.store.automations.lastJobId(automation.projectId, automation.id);
  if (!jobId) return undefined;
  const job = await deps.store.jobs.get(automation.projectId, jobId);
  if (!job || job.status === 'archived') return undefined;
  // A job still at work has no pull request yet; the run joins it rather than opening a second one.
  if (job.status === 'active') return job.id;
  if (!job.prLink) return undefined;
  const open = deps.pullRequestOpen ?? ((candidate: Job) => pullRequestOpenByDefault(deps, candidate));
  return (await open(job)) ? job.id : undefined;
}

async function pullRequestOpenByDefault(deps: AutomationRunDeps, job: Job): Promise<boolean> {
  const states = await deps.store.pullRequests.statesOfJobs(job.projectId, [job.id]);
  const state = states.get(job.id);
  return state === undefined ? true : state === 'open';
}
