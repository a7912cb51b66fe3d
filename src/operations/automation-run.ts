/**
 * One run of an automation (docs/automations.md): whatever started it (the trigger
 * endpoint, the scheduler, a code host's event), the run goes through here. It is recorded with
 * its outcome whatever happens: `created` (a new job, through `createJob`, the one create path),
 * `grouped` (a follow-up on the job whose pull request is still open, through `followUp`) or
 * `skipped` with a reason. Runs do not spend the API's hourly budget; they count against the
 * project's runs per UTC day, and the project's cost budget applies.
 *
 * One event, one run: the run is written before its job is made, keyed by its event (or schedule
 * time), so a second try finds it and makes no second job; input the job operations refuse is
 * checked before the run counts, and recorded as `invalid` (it would be refused on every try).
 */
import type { AutomationConfig } from '../config/config.js';
import type { Automation, AutomationRun, SkipReason, TriggerType } from '../domain/automation.js';
import {
  quotedPrompt,
  renderedPromptLimit,
  renderPrompt,
  type TriggerContext,
} from '../domain/automation-prompt.js';
import { AppError, type ErrorCode, isAppError } from '../domain/errors.js';
import type { Job } from '../domain/job.js';
import type { RunCommand } from '../domain/pull-request-command.js';
import type { RunEnd, RunStart } from '../store/automation-runs.js';
import { waitText } from './budget.js';
import { checkCreateJob, createJob, type JobOperationDeps } from './create-job.js';
import { followUp } from './follow-up.js';
import { knownPullRequestState } from './pull-request-state.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a run needs besides the job operations' own. */
export interface AutomationRunDeps extends JobOperationDeps {
  automations: AutomationConfig;
  /**
   * Whether the pull request of `job` is still open. The default knows the local host's pull
   * requests from the database and, for the other hosts, the state last learned from the host,
   * taking one never learned as open; the server's asks the host then (`pullRequestOpenOnHost`).
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
  /**
   * A command on the job's pull request (with `followUpJobId`): its prompt is `prompt`, as given,
   * instead of the template's rendering, and it waits for the job's next run.
   */
  command?: { name: RunCommand; prompt: string };
  /** The code-host event the run is for: the automation has one run for it, whatever the tries. */
  hostEventId?: string;
}

/** The run as recorded, the job it made or continued, and, when it could not run, why. */
export interface RunResult {
  run: AutomationRun;
  job: Job | null;
  /** Set when the run was skipped for a reason its caller answers as an error (the trigger endpoint). */
  error: AppError | null;
}

/**
 * What the job operations refuse for good: the same input is refused on every try, so such a run
 * is recorded as `invalid` and never tried again.
 */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_request',
  'model_not_allowed',
  'project_not_found',
  'job_not_found',
  'job_archived',
]);

/** Whether `error` is a refusal of the run's input (see `REFUSALS`). */
export const isRefusal = (error: unknown): error is AppError => isAppError(error) && REFUSALS.has(error.code);

/** Runs an automation once and records the run; it throws only what is not a reason to skip. */
export async function runAutomation(deps: AutomationRunDeps, request: RunRequest): Promise<RunResult> {
  const { store } = deps;
  const { automation } = request;
  const start: RunStart = {
    automation,
    trigger: request.trigger,
    ...(request.scheduledFor ? { scheduledFor: request.scheduledFor } : {}),
    ...(request.hostEventId ? { hostEventId: request.hostEventId } : {}),
  };
  const skip = async (reason: SkipReason, error: AppError) => ({
    run: await store.automations.recordRun({ ...start, ...skippedEnd(reason, error) }),
    job: null,
    error,
  });

  if (!automation.enabled) {
    return skip('disabled', new AppError('automation_disabled', `Automation ${automation.id} is disabled.`));
  }
  const prepared = prepareRun(deps, request);
  try {
    await checkCreateJob(prepared.runDeps, prepared.create);
  } catch (error) {
    // Before the run counts: a refusal is the same on every try and spends none of the day's runs.
    if (isRefusal(error)) return skip('invalid', error);
    throw error;
  }

  const begun = await store.automations.beginRun(start);
  if (!begun.started) {
    // This event's (or schedule time's) run happened already: a try again makes no second one.
    if (begun.run) return { run: begun.run, job: null, error: null };
    const run = await store.automations.recordRun({
      ...start,
      outcome: 'failed',
      reason: 'error',
      jobId: null,
      detail: 'An earlier try of this run stopped before it ended; a job it made is not linked to it.',
    });
    return { run, job: null, error: null };
  }
  return runBegun(deps, request, begun.id, prepared);
}

/** A skipped run's end; an `invalid` one says what was refused. */
function skippedEnd(reason: SkipReason, error: AppError): RunEnd {
  return { outcome: 'skipped', reason, jobId: null, detail: reason === 'invalid' ? error.message : null };
}

/** What a run's job is made or continued with: the rendered prompt, and the job operations' deps. */
interface PreparedRun {
  runDeps: JobOperationDeps;
  prompt: string;
  create: Parameters<typeof createJob>[1];
}

function prepareRun(deps: AutomationRunDeps, request: RunRequest): PreparedRun {
  const { automation } = request;
  const rendering = { diffChars: deps.automations.diffChars };
  const prompt = request.command?.prompt ?? renderPrompt(automation.prompt, request.context, rendering);
  // A context repository's text stays out of the content repository's pull request (unless the project says).
  const quoted = quotedPrompt(automation.prompt, request.context, rendering);
  // The rendered prompt quotes diffs and comments, cut to fit this: longer than a client's prompt may be.
  const runDeps: JobOperationDeps = {
    ...deps,
    config: {
      ...deps.config,
      limits: {
        ...deps.config.limits,
        maxPromptChars: Math.max(
          deps.config.limits.maxPromptChars,
          renderedPromptLimit(automation.prompt, deps.automations.diffChars),
        ),
      },
    },
  };
  const create = {
    projectId: automation.projectId,
    prompt,
    model: automation.model ?? undefined,
    baseRef: automation.baseRef ?? undefined,
    draft: automation.draft,
    trigger: { ...request.trigger, automationId: automation.id },
    ...(quoted === null ? {} : { pullRequestPrompt: quoted }),
  };
  return { runDeps, prompt, create };
}

/**
 * The run, begun: counted against the day's runs, then a follow-up on the job it groups into or a
 * new job, and settled with what came of it. A failure that is no reason to skip takes the run back.
 */
async function runBegun(
  deps: AutomationRunDeps,
  request: RunRequest,
  runId: string,
  { runDeps, prompt, create }: PreparedRun,
): Promise<RunResult> {
  const { store } = deps;
  const { automation } = request;
  const settle = (end: RunEnd) => store.automations.settleRun(runId, end);
  const settleSkip = async (reason: SkipReason, error: AppError) => ({
    run: await settle(skippedEnd(reason, error)),
    job: null,
    error,
  });

  const limit = deps.automations.runsPerDay;
  const { count, ttlMs } = await store.rateLimits.hit(`automation-runs:${automation.projectId}`, DAY_MS);
  if (count > limit) {
    const resetSeconds = Math.ceil(ttlMs / 1000);
    return settleSkip(
      'limit',
      new AppError(
        'automation_limit_exceeded',
        `This project's automations used their ${limit} runs for today (UTC); retry in ${waitText(resetSeconds)}.`,
        { retryAfterSeconds: resetSeconds, limit: { limit, remaining: 0, resetSeconds } },
      ),
    );
  }

  try {
    const continued = request.followUpJobId ?? (await groupInto(deps, automation));
    if (continued) {
      const { job } = await followUp(runDeps, {
        projectId: automation.projectId,
        jobId: continued,
        prompt,
        automationId: automation.id,
        command: request.command?.name,
      });
      return { run: await settle({ outcome: 'grouped', reason: null, jobId: job.id }), job, error: null };
    }
    const { job } = await createJob(runDeps, create);
    return { run: await settle({ outcome: 'created', reason: null, jobId: job.id }), job, error: null };
  } catch (error) {
    if (isAppError(error) && error.code === 'budget_exceeded') return settleSkip('budget_exceeded', error);
    if (isAppError(error) && error.code === 'too_many_active_jobs') return settleSkip('limit', error);
    if (isRefusal(error)) return settleSkip('invalid', error);
    // Anything else may pass (a database out of reach): the run is taken back so that the event's
    // next try runs it, and the caller decides about trying again.
    await store.automations.dropRun(runId).catch((dropError: unknown) => {
      deps.log?.warn({ err: dropError, automationId: automation.id }, 'could not take back a run begun');
    });
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
  // A person said `stop` on its pull request: this run opens a new one.
  if (await deps.store.automations.groupingStopped(job.id)) return undefined;
  // A job still at work has no pull request yet; the run joins it rather than opening a second one.
  if (job.status === 'active') return job.id;
  if (!job.prLink) return undefined;
  const open = deps.pullRequestOpen ?? ((candidate: Job) => pullRequestOpenByDefault(deps, candidate));
  return (await open(job)) ? job.id : undefined;
}

async function pullRequestOpenByDefault(deps: AutomationRunDeps, job: Job): Promise<boolean> {
  const state = await knownPullRequestState(deps.store, job);
  return state === null || state === 'open';
}
