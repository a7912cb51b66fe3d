/**
 * The state of one agent run (loop.ts) that its step loop, its steps' callbacks (steps.ts) and its
 * ending share: one object instead of variables closed over by one long function. Also how the
 * run calls the worker's code: a failure there ends the run with that error.
 */
import type { ModelMessage, ToolSet } from 'ai';
import { type Redactor, redactSecrets } from '../domain/redact.js';
import { Snapshot } from '../git/snapshot.js';
import type { Workspace } from '../git/workspace.js';
import { AgentError, type AgentErrorCode } from './errors.js';
import type { AgentLimits, RunAgentOptions } from './options.js';
import { outageWait } from './outage.js';
import { stepCeiling } from './prices.js';
import type { ContextRepository } from './tools/context.js';
import { filesChangedGuard } from './tools/files-changed.js';
import { createTools } from './tools/index.js';
import { type RunUsage, usageMeter } from './usage.js';
import { DEFAULT_CONTEXT_TOKENS } from './windows.js';

/** How long a run waits in all for a model that keeps failing with retryable errors. */
export const DEFAULT_MODEL_OUTAGE_WAIT_MS = 10 * 60_000;

/** One agent run in progress. */
export interface AgentSession {
  readonly options: RunAgentOptions;
  readonly limits: AgentLimits;
  readonly workspace: Workspace;
  readonly redact: Redactor;
  readonly meter: ReturnType<typeof usageMeter>;
  /** The run's totals (the meter's, the same object throughout). */
  readonly usage: RunUsage;
  readonly outage: ReturnType<typeof outageWait>;
  readonly guard: ReturnType<typeof filesChangedGuard>;
  readonly tools: ToolSet;
  /** The context repositories the read tools reach, each at its commit; released by `releaseRepositories`. */
  readonly repositories: ContextRepository[];
  /**
   * Ends the model call, the retries' waits and the tools: on the wall clock, a failing callback
   * (which the SDK would otherwise swallow), or the run's end.
   */
  readonly internal: AbortController;
  /** The caller's abort or `internal`'s. */
  readonly signal: AbortSignal;
  readonly timer: NodeJS.Timeout;
  /** The conversation so far: history, prompts, and every finished step. */
  conversation: ModelMessage[];
  /** What the token limit counts (see loop.ts's header). */
  countedTokens: number;
  /** The limit a step's end found reached; the round stops there. */
  stopReason: AgentErrorCode | null;
  /** The first error of the worker's code, which ends the run. */
  callbackError: { error: unknown } | null;
  /** The run returned or threw: callbacks still running report nothing more. */
  settled: boolean;
  /** The last step's text that was not empty: the summary when the final answer has none. */
  lastText: string;
  /** When the run last started a round or finished a step. */
  lastProgressAt: number;
  /** Estimated input tokens of the step being sent. */
  sentTokens: number;
  /** Whether the step being tried was already refused once as too long. */
  overflowRetried: boolean;
}

/** Starts a run: its clock, its signal, its tools. `closeSession` ends it. */
export function openSession(options: RunAgentOptions): AgentSession {
  const { workspace, limits } = options;
  const meter = usageMeter(options.price ?? null);
  const internal = new AbortController();
  const timer = setTimeout(() => internal.abort(new AgentError('time_limit', 'time')), limits.maxWallMs);
  const signal = AbortSignal.any([options.signal, internal.signal]);
  const guard = filesChangedGuard(workspace, limits.maxFilesChanged);
  // Opening starts no process: each snapshot's reader starts on its first read.
  const repositories = (options.contextRepositories ?? []).map((source) => ({
    name: source.name,
    ref: source.ref,
    commit: source.commit,
    snapshot: Snapshot.open({
      gitDir: source.gitDir,
      commit: source.commit,
      maxFileBytes: workspace.maxFileBytes,
    }),
  }));
  const tools = createTools(workspace, {
    repositories,
    // The plan is reported from the step's results (report.ts), in order with the other events.
    onPlan: () => {},
    // Tools still running in the background after an abort must not change the workspace.
    checkChange: (paths) => (signal.aborted ? 'The run was stopped.' : guard.check(paths)),
    ...(options.runChecks ? { runChecks: options.runChecks } : {}),
    ...(options.runCommand ? { runCommand: options.runCommand } : {}),
    ...(options.maxCommands !== undefined ? { maxCommands: options.maxCommands } : {}),
  });
  return {
    options,
    limits,
    workspace,
    redact: options.redact ?? redactSecrets,
    meter,
    usage: meter.totals,
    outage: outageWait(options.modelOutageWaitMs ?? DEFAULT_MODEL_OUTAGE_WAIT_MS),
    guard,
    tools,
    repositories,
    internal,
    signal,
    timer,
    conversation: [...options.history, ...options.prompts.map(userMessage)],
    countedTokens: 0,
    stopReason: null,
    callbackError: null,
    settled: false,
    lastText: '',
    lastProgressAt: Date.now(),
    sentTokens: 0,
    overflowRetried: false,
  };
}

/** Ends the run's clock and whatever the SDK may still be doing in the background (a retry wait, a slow tool). */
export function closeSession(session: AgentSession): void {
  session.settled = true;
  clearTimeout(session.timer);
  session.internal.abort(new AgentError('aborted', 'The run is over.'));
}

/** Lets go of the context repositories' object readers (shared per mirror, so others may keep them). */
export async function releaseRepositories(session: AgentSession): Promise<void> {
  await Promise.all(session.repositories.map((each) => each.snapshot.close()));
}

/** Whether the run spent its cost limit. */
export function overBudget({ limits, usage }: AgentSession): boolean {
  return limits.maxCostUsd != null && usage.costUsd !== null && usage.costUsd >= limits.maxCostUsd;
}

/** Calls the worker's code; a failure ends the run with that error. */
export async function external<T>(session: AgentSession, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    fail(session, error);
    throw error;
  }
}

/** Ends the run with `error` (the first such error wins). */
function fail(session: AgentSession, error: unknown): void {
  session.callbackError ??= { error };
  session.internal.abort(error);
}

/** Reserves the coming call's worst case (see `reserveStep`); throws when it is refused. */
export async function reserve(session: AgentSession, sentTokens: number): Promise<void> {
  const { reserveStep, price, maxOutputTokens, contextTokens } = session.options;
  if (!reserveStep || !price) return;
  const outputTokens = maxOutputTokens ?? contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  const ceiling = stepCeiling({ inputTokens: sentTokens, outputTokens }, price);
  const refusal = await external(session, () => reserveStep(ceiling));
  if (refusal === null) return;
  const error = new AgentError('budget_exceeded', refusal);
  fail(session, error);
  throw error;
}

export function userMessage(text: string): ModelMessage {
  return { role: 'user', content: text };
}
