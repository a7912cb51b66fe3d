/**
 * The agent's tool loop (DESIGN §5): the AI SDK's multi-step call with the workspace tools, run
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
import { asSchema, type LanguageModel, type ModelMessage, stepCountIs, type ToolSet } from 'ai';
import type { EventData, EventType, NewEvent } from '../domain/events.js';
import { type Redactor, redactSecrets } from '../domain/redact.js';
import type { Workspace } from '../git/workspace.js';
import { cachesAtBreakpoints, withBreakpoints } from './cache.js';
import { contextKeeper, estimateTokens, isContextOverflow } from './context.js';
import { compactToolInputs } from './conversation.js';
import { classify, limitError, untilAborted } from './ending.js';
import { AgentError, type AgentErrorCode } from './errors.js';
import { outageOf, outageWait } from './outage.js';
import { type ModelPrice, stepCeiling } from './prices.js';
import { buildSystemPrompt } from './prompt.js';
import { retryAfterMs, stepEvents, titleOf } from './report.js';
import { runRound } from './round.js';
import { filesChangedGuard } from './tools/files-changed.js';
import { createTools } from './tools/index.js';
import { type RunUsage, usageMeter } from './usage.js';
import { DEFAULT_CONTEXT_TOKENS } from './windows.js';

export { AgentError, type AgentErrorCode, type AgentPartial } from './errors.js';

/** Attempts the AI SDK makes after a 429 or 5xx, with exponential backoff that honours Retry-After. */
export const DEFAULT_MAX_RETRIES = 3;

/** How long a run waits in all for a model that keeps failing with retryable errors. */
export const DEFAULT_MODEL_OUTAGE_WAIT_MS = 10 * 60_000;

/** Per-run limits (DESIGN §4, limits per job). */
export interface AgentLimits {
  maxSteps: number;
  maxWallMs: number;
  /** Input plus output tokens over all steps of the run. */
  maxTokens: number;
  /** Distinct paths written, moved or deleted. */
  maxFilesChanged: number;
  /** USD the run may spend (at `RunAgentOptions.price`); null or absent: no limit. */
  maxCostUsd?: number | null;
}

/**
 * Receives the run's events (`message`, `tool_call`, `tool_result`, `plan`, `usage`, and `phase`
 * while waiting out a model outage). A run that fails reports no `error` event: whoever records the
 * failure does, once. A throw ends the run.
 */
export type AgentEventSink = <Type extends EventType>(type: Type, data: EventData[Type]) => Promise<void>;

/** What `runAgent` needs for one run of a job. */
export interface RunAgentOptions {
  model: LanguageModel;
  workspace: Workspace;
  /** Conversation so far (ModelMessage[] from earlier runs of this job), [] for a new job. */
  history: ModelMessage[];
  /** New user prompts to start this run with (the first prompt, or follow-ups). */
  prompts: string[];
  /** Follow-ups that arrived while running; called before each step, returns newly arrived prompts. */
  takePendingPrompts(): Promise<string[]>;
  limits: AgentLimits;
  signal: AbortSignal;
  onEvent: AgentEventSink;
  /**
   * Receives the events of one finished step together, in order, instead of `onEvent` one by one:
   * the worker writes them in one transaction. Optional; same contract as `onEvent`.
   */
  onEvents?: (events: NewEvent[]) => Promise<void>;
  /** Retries of a failed model call (429, 5xx). Default `DEFAULT_MAX_RETRIES`. */
  maxRetries?: number;
  /** How long to wait out a model outage before failing. Default `DEFAULT_MODEL_OUTAGE_WAIT_MS`. */
  modelOutageWaitMs?: number;
  /**
   * Blanks secrets in everything the run hands out: its events, its summary and title, its error's
   * message. Default `redactSecrets` (key shapes only); the worker adds the server's own secrets.
   */
  redact?: Redactor;
  /** Stream the model's answers (default true); false waits for each whole answer instead. */
  stream?: boolean;
  /** Runs the project's checks for the `run_checks` tool (the worker's); absent: no checks to run. */
  runChecks?: () => Promise<string>;
  /** The model's context window in tokens (`contextWindowOf`); default `DEFAULT_CONTEXT_TOKENS`. */
  contextTokens?: number;
  /** The model's price (`priceOf`), for `usage.costUsd` and `maxCostUsd`; null or absent: unknown. */
  price?: ModelPrice | null;
  /** The most tokens the model writes in one answer (`maxOutputOf`); default: its context window. */
  maxOutputTokens?: number;
  /**
   * Called before each model call, when the price is known, with the most the call can cost (USD).
   * Resolves null when the step may go, or why it may not: the run then ends with
   * `budget_exceeded` and that message. Absent: every step goes.
   */
  reserveStep?: (ceilingUsd: number) => Promise<string | null>;
}

/** A finished run. */
export interface AgentResult {
  /** The model's final answer, for the user. */
  summary: string;
  /** The summary's first line when it is short enough for a title (`titleOf`), else null. */
  title: string | null;
  /** Full conversation to store for the next follow-up (history + this run). */
  messages: ModelMessage[];
  /** This run's totals; `usage` events carry the same running totals. */
  usage: RunUsage;
  /** `workspace.changedPaths()` at the end. */
  filesChanged: string[];
}

/**
 * Runs the agent until it gives its final answer.
 *
 * @throws AgentError with `model_error`, a limit's code, or `aborted`. Its `partial` holds the conversation and
 * usage up to the last finished step. An error thrown by `onEvent` or `takePendingPrompts` ends the
 * run and is rethrown as it is, as is an unexpected error that did not come from the AI SDK.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const { workspace, limits } = options;
  const redact = options.redact ?? redactSecrets;
  const meter = usageMeter(options.price ?? null);
  const usage = meter.totals;
  const overBudget = () =>
    limits.maxCostUsd != null && usage.costUsd !== null && usage.costUsd >= limits.maxCostUsd;
  /** What the token limit counts (see the file's header). */
  let countedTokens = 0;
  const compact = (messages: ModelMessage[]) => compactToolInputs(messages, workspace.maxFileBytes);
  const outage = outageWait(options.modelOutageWaitMs ?? DEFAULT_MODEL_OUTAGE_WAIT_MS);
  let conversation: ModelMessage[] = [...options.history, ...options.prompts.map(userMessage)];
  // Written from the SDK's callbacks; an object, so TypeScript does not narrow its fields to null.
  const state = {
    stopReason: null as AgentErrorCode | null,
    callbackError: null as { error: unknown } | null,
    settled: false,
    lastText: '',
    /** When the run last started a round or finished a step. */
    lastProgressAt: Date.now(),
    /** Estimated input tokens of the step being sent. */
    sentTokens: 0,
  };

  // One signal for the model call, the retries' waits and the tools: the caller's abort, the wall
  // clock, or a failing callback (which the SDK would otherwise swallow).
  const internal = new AbortController();
  const timer = setTimeout(() => internal.abort(new AgentError('time_limit', 'time')), limits.maxWallMs);
  const signal = AbortSignal.any([options.signal, internal.signal]);

  /** Calls the worker's code; a failure ends the run with that error. */
  async function external<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      fail(error);
      throw error;
    }
  }
  function fail(error: unknown) {
    state.callbackError ??= { error };
    internal.abort(error);
  }
  /** Reserves the coming call's worst case (see `reserveStep`); throws when it is refused. */
  async function reserve(sentTokens: number) {
    const { reserveStep, price } = options;
    if (!reserveStep || !price) return;
    const outputTokens = options.maxOutputTokens ?? options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
    const ceiling = stepCeiling({ inputTokens: sentTokens, outputTokens }, price);
    const refusal = await external(() => reserveStep(ceiling));
    if (refusal === null) return;
    const error = new AgentError('budget_exceeded', refusal);
    fail(error);
    throw error;
  }
  const guard = filesChangedGuard(workspace, limits.maxFilesChanged);
  const tools = createTools(workspace, {
    // The plan is reported from the step's results (report.ts), in order with the other events.
    onPlan: () => {},
    // Tools still running in the background after an abort must not change the workspace.
    checkChange: (paths) => (signal.aborted ? 'The run was stopped.' : guard.check(paths)),
    ...(options.runChecks ? { runChecks: options.runChecks } : {}),
  });

  try {
    if (signal.aborted) throw new AgentError('aborted', 'The run was stopped.');
    const system = await buildSystemPrompt(workspace);
    const keeper = contextKeeper({
      windowTokens: options.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
      fixedTokens: estimateTokens(system) + (await toolTokens(tools)),
    });
    /** Whether the step being tried was already refused once as too long. */
    let overflowRetried = false;
    for (;;) {
      const remaining = limits.maxSteps - usage.steps;
      if (remaining <= 0) throw limitError('step_limit', limits);
      if (countedTokens >= limits.maxTokens) throw limitError('token_limit', limits);
      if (overBudget()) throw limitError('budget_exceeded', limits, usage);
      const base = conversation;
      /** Follow-ups inserted into the response messages: index into them, and the user messages. */
      const injected: Injection[] = [];
      // An outage starts with the first call that failed: the SDK's own retries are part of it.
      state.lastProgressAt = Date.now();
      const round = runRound({
        model: options.model,
        system,
        tools,
        messages: base,
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        abortSignal: signal,
        stopWhen: [
          stepCountIs(remaining),
          () => {
            if (guard.exceeded) state.stopReason = 'files_limit';
            else if (countedTokens >= limits.maxTokens) state.stopReason = 'token_limit';
            else if (overBudget()) state.stopReason = 'budget_exceeded';
            return state.stopReason !== null;
          },
        ],
        // The SDK rebuilds each step's messages from its own list, so every injected follow-up is
        // put back in its place at every step, not only at the step it arrived, and the tool
        // inputs it holds in full are cut down again at every step.
        prepareStep: async ({ messages }) => {
          const responses = compact(messages.slice(base.length));
          const arrived = await external(() => options.takePendingPrompts());
          if (arrived.length > 0) injected.push({ at: responses.length, messages: arrived.map(userMessage) });
          const prepared = keeper.prepare([...base, ...splice(responses, injected)]);
          const sent = prepared.messages;
          // Kept in the conversation at once, so a failing step does not lose the follow-up.
          if (injected.length > 0 || prepared.compaction) conversation = sent;
          const { compaction } = prepared;
          if (compaction) await external(() => options.onEvent('context', { ...compaction }));
          state.sentTokens = keeper.estimate(sent);
          await reserve(state.sentTokens);
          return cachesAtBreakpoints(options.model) ? withBreakpoints(system, sent) : { messages: sent };
        },
        onStepFinish: (step) =>
          external(async () => {
            // A streamed answer that broke off: the round fails with its error (round.ts) and, like
            // a failed call for a whole answer, the step adds nothing to the run.
            if (state.settled || step.finishReason === 'error') return;
            outage.reset();
            overflowRetried = false;
            keeper.calibrate(state.sentTokens, step.usage.inputTokens);
            state.lastProgressAt = Date.now();
            meter.add(step.usage);
            countedTokens +=
              Math.max(step.usage.inputTokens ?? 0, state.sentTokens) + (step.usage.outputTokens ?? 0);
            if (step.text.trim() !== '') state.lastText = step.text;
            conversation = keeper.apply([...base, ...splice(compact(step.response.messages), injected)]);
            const events = [...stepEvents(step, redact), { type: 'usage' as const, data: { ...usage } }];
            // A run that already ended (aborted while this step finished) reports nothing more.
            if (options.onEvents) {
              if (!state.settled) await options.onEvents(events);
              return;
            }
            for (const event of events) {
              if (state.settled) return;
              await options.onEvent(event.type, event.data);
            }
          }).catch(() => {}),
        stream: options.stream ?? true,
      });
      let result: Awaited<typeof round>;
      try {
        result = await untilAborted(round, signal);
      } catch (caught) {
        // Refused as too long: compact (the next round's first `prepareStep` does) and try once more.
        const free = !signal.aborted && !state.callbackError && !state.stopReason;
        if (
          free &&
          !overflowRetried &&
          isContextOverflow(caught) &&
          keeper.overflow(conversation, state.sentTokens)
        ) {
          overflowRetried = true;
          continue;
        }
        const unavailable = !signal.aborted && !state.callbackError && !state.stopReason && outageOf(caught);
        if (!unavailable) throw caught;
        const delay = outage.next(state.lastProgressAt, retryAfterMs(unavailable.cause));
        if (delay === null) throw outage.giveUp(unavailable);
        // The steps that finished are in `conversation`; the failed one is tried again from there.
        const retryAt = new Date(Date.now() + delay).toISOString();
        await external(() =>
          options.onEvent('phase', {
            phase: 'running',
            reason: 'model_unavailable',
            message: redact(`${unavailable.message} Trying again at ${retryAt}.`),
            retryAt,
          }),
        );
        await sleep(delay, undefined, { signal });
        continue;
      }
      conversation = keeper.apply([...base, ...splice(compact(result.responseMessages), injected)]);
      if (state.callbackError) throw state.callbackError.error;
      if (state.stopReason) throw limitError(state.stopReason, limits, usage);
      // Stopped by the step count while the model still wanted to use tools: it did not finish.
      // (Fewer steps with tool calls left over means the model stopped mid-call, e.g. out of output
      // tokens; its text, if any, is all there is.)
      const unfinished = (result.steps.at(-1)?.toolCalls.length ?? 0) > 0;
      if (unfinished && result.steps.length >= remaining) throw limitError('step_limit', limits);
      const followUps = await external(() => options.takePendingPrompts());
      if (followUps.length === 0) {
        const summary = redact(result.text.trim() || state.lastText.trim());
        return {
          summary,
          title: titleOf(summary),
          messages: conversation,
          usage: { ...usage },
          filesChanged: workspace.changedPaths(),
        };
      }
      conversation = [...conversation, ...followUps.map(userMessage)];
    }
  } catch (caught) {
    const error = classify(caught, options.signal, internal.signal, state.callbackError, limits);
    if (!(error instanceof AgentError)) throw error;
    error.partial = { messages: conversation, usage: { ...usage }, filesChanged: workspace.changedPaths() };
    error.message = redact(error.message);
    throw error;
  } finally {
    state.settled = true;
    clearTimeout(timer);
    // Ends whatever the SDK may still be doing in the background (a retry wait, a slow tool).
    internal.abort(new AgentError('aborted', 'The run is over.'));
  }
}

interface Injection {
  at: number;
  messages: ModelMessage[];
}

/** `responses` with each injection's messages inserted at its index. */
function splice(responses: ModelMessage[], injections: Injection[]): ModelMessage[] {
  if (injections.length === 0) return responses;
  const out: ModelMessage[] = [];
  let from = 0;
  for (const injection of injections) {
    out.push(...responses.slice(from, injection.at), ...injection.messages);
    from = injection.at;
  }
  out.push(...responses.slice(from));
  return out;
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

function userMessage(text: string): ModelMessage {
  return { role: 'user', content: text };
}
