/**
 * Checks before publishing (docs/architecture.md#the-runs-phases): after the agent's answer, the worker runs the
 * project's checks on the job's tree; when they fail, the agent is given every problem in one
 * message and another round, up to `AGENTJOBS_CHECK_REPAIR_ROUNDS` times, within what is left of
 * the run's limits. Every run of the checks (the agent's own `run_checks` included) becomes the
 * job's `checks` and a `check` event. What happens when they still fail is the project's
 * `onCheckFailure`: the publishing step reads the last run (publish.ts), and `fail` ends the job
 * here with `checks_failed`.
 */
import { join } from 'node:path';
import {
  describeForAgent,
  hasChecks,
  runAgentCommand,
  runJobChecks,
  type SandboxSettings,
} from '../checks/index.js';
import type { CheckRun } from '../domain/checks.js';
import { JobFailure } from '../domain/errors.js';
import type { CheckRequest } from '../domain/events.js';
import type { Job } from '../domain/job.js';
import { DEMO_MODEL_ID } from '../domain/model-id.js';
import type { Project } from '../domain/project.js';
import type { Redactor } from '../domain/redact.js';
import { runGit } from '../git/run.js';
import type { Workspace } from '../git/workspace.js';
import type { Metrics } from '../metrics/index.js';
import type { Lease } from '../store/queue/index.js';
import type { Store } from '../store/store.js';
import type { AgentLimits, AgentResult, RunAgentOptions } from './agent-port.js';
import { isAgentError, REAL_MODEL_HINT } from './agent-port.js';

/** The checks failed and the project's policy is `fail`: nothing is published. */
export class ChecksFailedError extends JobFailure<'checks_failed'> {
  override name = 'ChecksFailedError';
  constructor(
    readonly run: CheckRun,
    /** The run's conversation and usage, kept for a follow-up. */
    readonly partial: { messages: AgentResult['messages']; usage: AgentResult['usage'] },
    /** Where the job stands, for the ways forward when the demo model left conflicts. */
    where?: ConflictWays,
  ) {
    const count = run.results.reduce((sum, result) => sum + result.problems.length, 0);
    const problems = `${count} problem${count === 1 ? '' : 's'}; see the job's checks`;
    super(
      'checks_failed',
      !leftConflicts(run)
        ? `The checks still failed after the agent's repair rounds (${problems}), and the project publishes nothing when they fail.`
        : where?.model === DEMO_MODEL_ID
          ? `Merge conflict markers are still in the files (${problems}), and nothing is published with them: the demo model cannot resolve these conflicts. Either ${REAL_MODEL_HINT}, then send a follow-up; or resolve them by hand: ${byHand(where)}`
          : `Merge conflict markers are still in the files (${problems}) after the agent's repair rounds, and nothing is published with them. Send a follow-up asking the agent to resolve them.`,
    );
  }
}

/** What the ways forward out of a conflict name: the job's model, branch and base, and its project. */
export interface ConflictWays {
  model: string;
  branch: string;
  base: string;
  project: Pick<Project, 'host' | 'repository'>;
}

/** The commands that resolve a job branch's conflicts with its base by hand. */
function byHand({ branch, base, project }: ConflictWays): string {
  return project.host === 'local'
    ? `\`cd ${project.repository} && git switch ${branch} && git merge ${base}\`, edit the conflicting files, \`git commit -a\`, then merge the pull request.`
    : `\`git fetch origin && git switch ${branch} && git merge origin/${base}\`, edit the conflicting files, \`git commit -a && git push\`, then merge the pull request.`;
}

/** Whether a check run found conflict markers left: such work is never published, whatever the policy. */
export function leftConflicts(run: CheckRun): boolean {
  return run.results.some((result) => result.name === 'conflicts' && result.status === 'failed');
}

/** What the check loop needs from the run. */
export interface CheckLoopInput {
  store: Store;
  lease: Lease;
  job: Job;
  project: Project;
  workspace: Workspace;
  /** Files the merge of the base left with conflict markers: the `conflicts` check runs then in any case. */
  conflicts: readonly string[];
  dataDir: string;
  repairRounds: number;
  /** The limits of the project's command's sandbox. */
  sandbox: SandboxSettings;
  /** The project's environment (its setup command's), laid into every command's checkout; null for none. */
  environment: string | null;
  parseSeconds: number;
  parseRunSeconds: number;
  redact: Redactor;
  signal: AbortSignal;
  /** Counts each check's outcome (`agentjobs_checks_total`). */
  metrics?: Pick<Metrics, 'checkRan'> | undefined;
}

/** The checks of a project, run for the agent's `run_checks` and for the loop. */
export type CheckRunner = ReturnType<typeof checkRunner>;

/** The checks of a project as a runner for the agent's `run_checks` and for the loop. */
export function checkRunner(input: CheckLoopInput) {
  const { project } = input;
  const settings = {
    builtIn: project.builtInChecks,
    conflicts: input.conflicts.length > 0,
    command: project.checkCommand,
    timeoutSeconds: project.checkTimeoutSeconds,
  };
  const run = async (request: CheckRequest): Promise<CheckRun> => {
    const checked = await runJobChecks({
      workspace: input.workspace,
      baseRef: input.job.baseRef,
      settings,
      scratchDir: join(input.dataDir, 'checks', input.job.id),
      sandbox: input.sandbox,
      environment: input.environment,
      parseBudget: { fileMs: input.parseSeconds * 1000, runMs: input.parseRunSeconds * 1000 },
      redact: input.redact,
      signal: input.signal,
    });
    await input.store.queue.recordChecks(input.lease, checked, request);
    for (const result of checked.results) input.metrics?.checkRan(result.name, result.status);
    return checked;
  };
  return {
    enabled: hasChecks(settings),
    run,
    /** For `run_checks`: the problems in words. */
    forAgent: async () => describeForAgent(await run({ by: 'agent' })),
    /** For `run_command`: a command the model wrote, offline in the sandbox on the work so far. */
    command: (command: string) =>
      runAgentCommand({
        command,
        timeoutSeconds: project.checkTimeoutSeconds,
        sandbox: input.sandbox,
        environment: input.environment,
        materialize: (target) => input.workspace.materialize(target),
        scratchDir: join(input.dataDir, 'checks', input.job.id),
        redact: input.redact,
        signal: input.signal,
      }),
  };
}

/**
 * Checks `result`'s work and lets the agent repair it. Returns the last result (usage summed over
 * the rounds) and the last check run, or null when nothing was checked (no checks, no change).
 */
export async function checkAndRepair(
  input: CheckLoopInput,
  runner: CheckRunner,
  first: AgentResult,
  agent: {
    limits: AgentLimits;
    startedAt: number;
    /** Runs the agent again on the conversation so far with one more prompt. */
    run(options: Pick<RunAgentOptions, 'history' | 'prompts' | 'limits'>): Promise<AgentResult>;
  },
): Promise<{ result: AgentResult; run: CheckRun | null }> {
  if (!runner.enabled || !(await hasChanges(input))) return { result: first, run: null };
  let result = first;
  for (let round = 0; ; round++) {
    const checked = await runner.run({ by: 'worker', round });
    const limits = remaining(agent.limits, result.usage, agent.startedAt);
    if (checked.status !== 'failed' || round >= input.repairRounds || !limits)
      return { result, run: checked };
    // The demo model (src/agent/demo-model.ts) knows this prompt by "found by the project's checks".
    const prompt = `${describeForAgent(checked)}\n\nFix every problem above (they were found by the project's checks on your changes), then answer with your summary again. Call run_checks to confirm.`;
    let next: AgentResult;
    try {
      next = await agent.run({ history: result.messages, prompts: [prompt], limits });
    } catch (error) {
      // The job records what the whole run used, not only this round.
      if (isAgentError(error) && error.partial) {
        const usage = addUsage(result.usage, error.partial.usage);
        error.partial.usage = usage;
        // The round was held to what the run had left; the run's own limit is the one to name.
        const limit = agent.limits.maxCostUsd;
        if (error.code === 'budget_exceeded' && limit != null && (usage.costUsd ?? 0) >= limit)
          error.message = `The run reached its cost limit of $${limit} (it spent $${(usage.costUsd ?? 0).toFixed(4)}).`;
      }
      throw error;
    }
    result = {
      ...next,
      summary: next.summary || result.summary,
      title: next.title ?? result.title,
      usage: addUsage(result.usage, next.usage),
    };
  }
}

/** Whether the job has anything to check: a change against its base, committed or not. */
async function hasChanges(input: CheckLoopInput): Promise<boolean> {
  if (input.workspace.changedPaths().length > 0) return true;
  // A branch still where it was made from the base has nothing the base lacks.
  if (input.workspace.isAtStartOf(input.job.baseRef)) return false;
  const { stdout } = await runGit(['rev-list', '--count', `refs/heads/${input.job.baseRef}..HEAD`], {
    cwd: input.workspace.dir,
  });
  return Number(stdout.toString('utf8').trim()) > 0;
}

/** What is left of the run's limits after `used`; null when a repair round could not do anything. */
function remaining(limits: AgentLimits, used: AgentResult['usage'], startedAt: number): AgentLimits | null {
  const left = {
    ...limits,
    maxSteps: limits.maxSteps - used.steps,
    maxTokens: limits.maxTokens - used.inputTokens - used.outputTokens,
    maxWallMs: limits.maxWallMs - (Date.now() - startedAt),
    // A repair round spends the run's money: it gets what is left, not a limit of its own.
    maxCostUsd: limits.maxCostUsd == null ? limits.maxCostUsd : limits.maxCostUsd - (used.costUsd ?? 0),
  };
  if (left.maxSteps < 1 || left.maxTokens < 1000 || left.maxWallMs < 5000) return null;
  return left;
}

/** Usage of two rounds: every count summed. */
function addUsage<T extends AgentResult['usage']>(a: T, b: T): T {
  const sum = { ...b } as Record<string, unknown>;
  for (const [key, value] of Object.entries(a)) {
    const other = (b as Record<string, unknown>)[key];
    if (typeof value === 'number' && typeof other === 'number') sum[key] = value + other;
  }
  return sum as T;
}
