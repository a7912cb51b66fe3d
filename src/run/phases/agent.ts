/**
 * The agent's phase: hand it the job's new messages on the conversation so far, within the job's
 * limits and the project's daily budget, with the project's checks as its `run_checks` tool.
 * A run with no new message (every one already answered) keeps what the job has.
 */
import type { ModelMessage } from 'ai';
import { type AgentResult, contextWindowOf, type RunAgentOptions } from '../agent-port.js';
import { type CheckLoopInput, type CheckRunner, checkRunner } from '../checks.js';
import { progressSaver, resumeFrom } from '../progress.js';
import { spending, stepReservations } from '../usage.js';
import type { EquippedRun } from './setup.js';

/** A run whose agent has answered (or had nothing to answer). */
export type AnsweredRun = EquippedRun & {
  /** The conversation the job had before this run. */
  history: ModelMessage[];
  /** Whether there were new messages, so the agent ran and its work is to be checked. */
  answered: boolean;
  checks: { input: CheckLoopInput; runner: CheckRunner };
  /** The model's price and what this run may spend. */
  spend: ReturnType<typeof spending>;
  /** When the agent started (ms since the epoch): repair rounds get what is left of the wall time. */
  startedAt: number;
  result: AgentResult;
};

/** Runs the agent on the job's new messages. */
export async function answer(run: EquippedRun): Promise<AnsweredRun> {
  const { config, store, metrics } = run.deps;
  const { job, lease } = run;
  const saved = (await store.queue.conversation(job.id)) as ModelMessage[];
  const taken = await store.queue.takePrompts(lease);
  // An earlier attempt of this run that was lost: continue its conversation (progress.ts).
  const resumed = await resumeFrom(run, taken);
  const history = resumed?.history ?? saved;
  const prompts = resumed?.prompts ?? taken.map((prompt) => prompt.content);
  run.deliveredThrough = taken.at(-1)?.id ?? null;
  if (resumed) {
    run.control.log.info(
      { from: resumed.attempt, filesKept: resumed.filesKept },
      'run continues an earlier attempt',
    );
    const files = resumed.filesKept
      ? 'with the files it wrote'
      : 'without the files it wrote (they could not be kept)';
    await store.queue.appendEvent(lease, 'phase', {
      phase: 'running',
      reason: 'resumed',
      message: `Continuing attempt ${resumed.attempt} from its last finished step, ${files}.`,
    });
  }
  const input: CheckLoopInput = {
    store,
    lease,
    job,
    project: run.project,
    workspace: run.workspace,
    conflicts: run.baseMerge.conflicts,
    dataDir: config.dataDir,
    environment: run.environment,
    ...config.checks,
    redact: run.redact,
    signal: run.control.main,
    metrics,
  };
  const checks = { input, runner: checkRunner(input) };
  const state = Object.assign(run, {
    history,
    answered: prompts.length > 0,
    checks,
    // The project's day is asked before each step (`reserveStep`).
    spend: spending(config, job),
    startedAt: Date.now(),
  });
  const result: AgentResult =
    prompts.length === 0
      ? {
          summary: job.summary ?? '',
          title: job.title,
          messages: history,
          usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, steps: 0, costUsd: null },
          filesChanged: [],
        }
      : await run.deps.runAgent(agentOptions(state, { history, prompts: withNote(run.baseNote, prompts) }));
  return Object.assign(state, { result });
}

/** The prompts' texts, the first after what the run has to say about its branch (follow-base.ts). */
function withNote(note: string | null, prompts: string[]): string[] {
  const texts = [...prompts];
  if (note && texts.length > 0) texts[0] = `${note}\n\n${texts[0]}`;
  return texts;
}

/** What the agent is given for one of the run's rounds (the first, or a repair). */
export function agentOptions(
  run: Omit<AnsweredRun, 'result'>,
  options: Pick<RunAgentOptions, 'history' | 'prompts'>,
): RunAgentOptions {
  const { config, store } = run.deps;
  const { lease, spend } = run;
  const progress = progressSaver(run);
  return {
    model: run.model,
    workspace: run.workspace,
    ...options,
    takePendingPrompts: async () => {
      const more = await store.queue.takePending(lease);
      if (more.length > 0) run.deliveredThrough = more.at(-1)?.id ?? run.deliveredThrough;
      return more.map((prompt) => prompt.content);
    },
    price: spend.price,
    maxOutputTokens: spend.maxOutputTokens,
    reserveStep: stepReservations(store, lease, run.usage),
    limits: { ...config.jobLimits, maxCostUsd: spend.maxCostUsd },
    stream: config.agent.modelStreaming,
    contextTokens: contextWindowOf(run.job.model, config.agent.contextTokens),
    modelOutageWaitMs: config.agent.modelOutageWaitMs,
    redact: run.redact,
    signal: run.control.main,
    onEvent: run.usage.sink,
    onStep: async (events, conversation) => {
      const next = progress(conversation);
      await run.usage.step(events, next.save);
      next.written();
    },
    ...(run.checks.runner.enabled ? { runChecks: run.checks.runner.forAgent } : {}),
    ...(run.contextRepositories.length > 0 ? { contextRepositories: run.contextRepositories } : {}),
    ...(run.project.agentCommands
      ? { runCommand: run.checks.runner.command, maxCommands: config.checks.maxCommands }
      : {}),
  };
}
