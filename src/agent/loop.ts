/**
 * The agent's tool loop (docs/architecture.md#the-runs-phases): the AI SDK's multi-step call with the workspace tools, run
 * until the model answers without calling a tool, within the job's limits.
 *
 * - The model's answers are streamed (`streamText`) unless `stream: false` asks for whole answers
 *   (`generateText`), for servers whose streaming is broken. The run is the same either way: the
 *   same events in the same order, once per finished step, the same limits and errors (round.ts).
 * - Follow-ups that arrive while the model works are handed over before its next step
 *   (`prepareStep`); one that arrives after its final answer starts another round on the same
 *   conversation, so no prompt is left unanswered when the run returns.
 * - Limits end the run with an `AgentError` of their code. Steps and tokens are checked after each
 *   step; wall time aborts the model call in flight. A change that would take the job over
 *   `maxFilesChanged` distinct paths is refused (the model reads why) and the run ends right after
 *   that step with `files_limit`: the limit exists to stop runaway edits, not to publish half of them
 *   silently under a `completed` job.
 * - Aborting `options.signal` rejects at once with `aborted`, without waiting for the provider.
 * - Tokens: the limit counts, for each step, the larger of the provider's input count and an
 *   estimate of what was sent (system prompt and messages), plus the provider's output count, so a
 *   provider that reports too little (or nothing) cannot let a run escape `maxTokens`. The reported
 *   `usage` stays the provider's own, as it is what the provider bills.
 * - The conversation sent and kept leaves out oversized and refused tool inputs (conversation.ts),
 *   and, once it nears the model's window, older tool results (context.ts; a `context` event says
 *   so). A provider that refuses a step as too long gets one compaction and one more try of it.
 * - A model outage (a retryable provider failure: 429, 5xx, a network error, after the SDK's own
 *   retries) does not end the run: it waits with backoff, in process, and tries the step again,
 *   for at most `modelOutageWaitMs` in a row; a `phase` event (reason `model_unavailable`) says
 *   so and when it tries again. The run keeps its workspace, its conversation and (through the
 *   worker's heartbeat) its lease; requeueing instead would throw away edits not yet committed.
 *   The wait counts against the wall-time limit.
 * - Cost: `maxCostUsd` is checked after each step. Before each model call, `reserveStep` (the
 *   worker's: a reservation against the project's daily budget) is asked for the call's worst
 *   case, what was estimated to be sent and the most the model may write, at its price; a refusal
 *   ends the run with `budget_exceeded` before the call is made.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { asSchema, type ToolSet } from 'ai';
import { contextKeeper, estimateTokens, isContextOverflow } from './context.js';
import { classify, limitError, untilAborted } from './ending.js';
import { AgentError } from './errors.js';
import type { AgentResult, RunAgentOptions } from './options.js';
import { outageOf } from './outage.js';
import { buildSystemPrompt } from './prompt.js';
import { retryAfterMs, titleOf } from './report.js';
import { runRound } from './round.js';
import {
  type AgentSession,
  closeSession,
  external,
  openSession,
  overBudget,
  releaseRepositories,
  userMessage,
} from './session.js';
import { type Round, roundConversation, roundSettings } from './steps.js';
import { DEFAULT_CONTEXT_TOKENS } from './windows.js';

export { AgentError, type AgentErrorCode, type AgentPartial } from './errors.js';
export type { AgentEventSink, AgentLimits, AgentResult, ContextSource, RunAgentOptions } from './options.js';
export { DEFAULT_MODEL_OUTAGE_WAIT_MS } from './session.js';
export { DEFAULT_MAX_RETRIES } from './steps.js';

/**
 * Runs the agent until it gives its final answer.
 *
 * @throws AgentError with `model_error`, a limit's code, or `aborted`. Its `partial` holds the conversation and
 * usage up to the last finished step. An error thrown by `onEvent` or `takePendingPrompts` ends the
 * run and is rethrown as it is, as is an unexpected error that did not come from the AI SDK.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const session = openSession(options);
  try {
    if (session.signal.aborted) throw new AgentError('aborted', 'The run was stopped.');
    const system = await buildSystemPrompt(session.workspace, options.contextRepositories ?? []);
    const keeper = contextKeeper({
      windowTokens: options.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
      fixedTokens: estimateTokens(system) + (await toolTokens(session.tools)),
    });
    return await stepLoop(session, system, keeper);
  } catch (caught) {
    const error = classify(
      caught,
      options.signal,
      session.internal.signal,
      session.callbackError,
      options.limits,
    );
    if (!(error instanceof AgentError)) throw error;
    error.partial = {
      messages: session.conversation,
      usage: { ...session.usage },
      filesChanged: session.workspace.changedPaths(),
    };
    error.message = session.redact(error.message);
    throw error;
  } finally {
    closeSession(session);
    await releaseRepositories(session);
  }
}

/** Rounds of steps until the model answers without a tool call and no follow-up is waiting. */
async function stepLoop(
  session: AgentSession,
  system: string,
  keeper: Round['keeper'],
): Promise<AgentResult> {
  const { limits, usage } = session;
  for (;;) {
    const remaining = limits.maxSteps - usage.steps;
    if (remaining <= 0) throw limitError('step_limit', limits);
    if (session.countedTokens >= limits.maxTokens) throw limitError('token_limit', limits);
    if (overBudget(session)) throw limitError('budget_exceeded', limits, usage);
    const round: Round = { system, keeper, base: session.conversation, injected: [], remaining };
    // An outage starts with the first call that failed: the SDK's own retries are part of it.
    session.lastProgressAt = Date.now();
    let result: Awaited<ReturnType<typeof runRound>>;
    try {
      result = await untilAborted(runRound(roundSettings(session, round)), session.signal);
    } catch (caught) {
      await recover(session, keeper, caught);
      continue;
    }
    session.conversation = keeper.apply(roundConversation(session, round, result.responseMessages));
    if (session.callbackError) throw session.callbackError.error;
    if (session.stopReason) throw limitError(session.stopReason, limits, usage);
    // Stopped by the step count while the model still wanted to use tools: it did not finish.
    // (Fewer steps with tool calls left over means the model stopped mid-call, e.g. out of output
    // tokens; its text, if any, is all there is.)
    const unfinished = (result.steps.at(-1)?.toolCalls.length ?? 0) > 0;
    if (unfinished && result.steps.length >= remaining) throw limitError('step_limit', limits);
    const followUps = await external(session, () => session.options.takePendingPrompts());
    if (followUps.length === 0) {
      const summary = session.redact(result.text.trim() || session.lastText.trim());
      return {
        summary,
        title: titleOf(summary),
        messages: session.conversation,
        usage: { ...usage },
        filesChanged: session.workspace.changedPaths(),
      };
    }
    session.conversation = [...session.conversation, ...followUps.map(userMessage)];
  }
}

/**
 * After a failed round: returns when the step is to be tried again (compacted after it was refused
 * as too long, or after waiting out a model outage), else throws what ended the run.
 */
async function recover(session: AgentSession, keeper: Round['keeper'], caught: unknown): Promise<void> {
  const { signal, redact } = session;
  const free = !signal.aborted && !session.callbackError && !session.stopReason;
  // Refused as too long: compact (the next round's first `prepareStep` does) and try once more.
  if (
    free &&
    !session.overflowRetried &&
    isContextOverflow(caught) &&
    keeper.overflow(session.conversation, session.sentTokens)
  ) {
    session.overflowRetried = true;
    return;
  }
  const unavailable = free && outageOf(caught);
  if (!unavailable) throw caught;
  const delay = session.outage.next(session.lastProgressAt, retryAfterMs(unavailable.cause));
  if (delay === null) throw session.outage.giveUp(unavailable);
  // The steps that finished are in `conversation`; the failed one is tried again from there.
  const retryAt = new Date(Date.now() + delay).toISOString();
  await external(session, () =>
    session.options.onEvent('phase', {
      phase: 'running',
      reason: 'model_unavailable',
      message: redact(`${unavailable.message} Trying again at ${retryAt}.`),
      retryAt,
    }),
  );
  await sleep(delay, undefined, { signal });
}

/** Estimated tokens of the tools' names, descriptions and input schemas, sent with every step. */
async function toolTokens(tools: ToolSet): Promise<number> {
  let tokens = 0;
  for (const [name, definition] of Object.entries(tools)) {
    const schema = definition.inputSchema ? await asSchema(definition.inputSchema).jsonSchema : {};
    tokens += estimateTokens(name + (definition.description ?? '') + JSON.stringify(schema));
  }
  return tokens;
}
