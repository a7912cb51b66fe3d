/**
 * A follow-up prompt on a job (docs/api.md, `POST …/job/{jobId}/message`), the same for every entry
 * point, an automation's grouped run included: the prompt is checked, the hourly budget spent (not
 * by an automation, which has its runs per day instead), the store refuses an archived job,
 * and a draining process takes none.
 */
import type { LimitState } from '../domain/errors.js';
import type { Job } from '../domain/job.js';
import { refuseWhileDraining } from '../domain/lifecycle.js';
import type { RunCommand } from '../domain/pull-request-command.js';
import { spendHourlyBudget } from './budget.js';
import type { JobOperationDeps } from './create-job.js';
import { followUpInput, parseInput } from './input.js';

/** The follow-up as its caller asks for it. */
export interface FollowUpRequest {
  projectId: string;
  jobId: string;
  prompt: string;
  /**
   * The automation whose run this is. Such a follow-up does not spend the API's hourly budget:
   * automations have their daily runs limit instead (`operations/automation-run.ts`).
   */
  automationId?: string | undefined;
  /** The pull-request command the follow-up carries out: it waits for the job's next run (`domain/pull-request-command.ts`). */
  command?: RunCommand | undefined;
}

/**
 * Hands the job another prompt: a completed or failed job becomes active again.
 *
 * @throws AppError `invalid_request`, `rate_limited`, `job_not_found`, `job_archived`,
 * `unavailable` (the process is draining)
 */
export async function followUp(
  { store, config, lifecycle }: JobOperationDeps,
  { projectId, jobId, prompt, automationId, command }: FollowUpRequest,
): Promise<{ job: Job; budget: LimitState | null }> {
  refuseWhileDraining(lifecycle);
  const body = parseInput(followUpInput(config.limits.maxPromptChars), { prompt });
  const budget =
    automationId === undefined
      ? await spendHourlyBudget(store.rateLimits, projectId, config.limits.requestsPerHour)
      : null;
  const job = await store.jobs.followUp(projectId, jobId, body.prompt, command);
  return { job, budget };
}
