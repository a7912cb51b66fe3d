/**
 * The checks-and-repair phase: the project's checks on the agent's work, and repair rounds while
 * they fail (run/checks.ts). Under the project's policy, failing checks end the run here.
 */
import type { CheckRun } from '../../domain/checks.js';
import { ChecksFailedError, checkAndRepair, leftConflicts } from '../checks.js';
import { type AnsweredRun, agentOptions } from './agent.js';

/** A run whose work was checked (and repaired); `checkRun` is null when nothing was checked. */
export type CheckedRun = AnsweredRun & { checkRun: CheckRun | null };

/** Checks the agent's work, letting it repair what fails. */
export async function checkAndRepairPhase(run: AnsweredRun): Promise<CheckedRun> {
  if (!run.answered) return Object.assign(run, { checkRun: null });
  const { config } = run.deps;
  const { result, run: checkRun } = await checkAndRepair(run.checks.input, run.checks.runner, run.result, {
    limits: { ...config.jobLimits, maxCostUsd: run.spend.maxCostUsd },
    startedAt: run.startedAt,
    run: ({ limits, ...options }) =>
      run.deps.runAgent({ ...agentOptions(run, options), limits: { ...limits } }),
  });
  // Push mode has no drafts: under `draft`, failing work is not pushed onto the base either.
  // Conflict markers are never published, whatever the policy.
  const policy = run.project.onCheckFailure;
  if (
    checkRun?.status === 'failed' &&
    (policy === 'fail' || (policy === 'draft' && run.project.publish === 'push') || leftConflicts(checkRun))
  )
    throw new ChecksFailedError(
      checkRun,
      { messages: result.messages, usage: result.usage },
      { model: run.job.model, branch: run.workspace.branch, base: run.job.baseRef, project: run.project },
    );
  return Object.assign(run, { result, checkRun });
}
