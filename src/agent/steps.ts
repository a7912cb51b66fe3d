/**
 * One round of the agent's step loop (loop.ts) as the AI SDK runs it: before each step, follow-ups
 * handed over, the conversation kept inside the window and the step's cost reserved
 * (`prepareStep`); after it, its usage counted and its events reported (`onStepFinish`); and when
 * the round stops (a limit reached).
 */
import { type ModelMessage, type StepResult, stepCountIs, type ToolSet } from 'ai';
import { cachesAtBreakpoints, withBreakpoints } from './cache.js';
import type { contextKeeper } from './context.js';
import { compactToolInputs } from './conversation.js';
import { stepEvents } from './report.js';
import type { RoundSettings } from './round.js';
import { type AgentSession, external, overBudget, reserve, userMessage } from './session.js';

/** Attempts the AI SDK makes after a 429 or 5xx, with exponential backoff that honours Retry-After. */
export const DEFAULT_MAX_RETRIES = 3;

/** What a round works from. */
export interface Round {
  system: string;
  keeper: ReturnType<typeof contextKeeper>;
  /** The conversation when the round began. */
  base: ModelMessage[];
  /** Follow-ups inserted into the response messages: index into them, and the user messages. */
  injected: Injection[];
  /** Steps the run has left. */
  remaining: number;
}

interface Injection {
  at: number;
  messages: ModelMessage[];
}

/** The SDK's settings and callbacks for `round`. */
export function roundSettings(session: AgentSession, round: Round): RoundSettings {
  const { options, limits } = session;
  return {
    model: options.model,
    system: round.system,
    tools: session.tools,
    messages: round.base,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    abortSignal: session.signal,
    stopWhen: [
      stepCountIs(round.remaining),
      () => {
        if (session.guard.exceeded) session.stopReason = 'files_limit';
        else if (session.countedTokens >= limits.maxTokens) session.stopReason = 'token_limit';
        else if (overBudget(session)) session.stopReason = 'budget_exceeded';
        return session.stopReason !== null;
      },
    ],
    prepareStep: ({ messages }) => prepareStep(session, round, messages),
    onStepFinish: (step) => external(session, () => stepFinished(session, round, step)).catch(() => {}),
    stream: options.stream ?? true,
  };
}

/** The conversation of `responses` (the round's own messages so far) as the run keeps it. */
export function roundConversation(session: AgentSession, round: Round, responses: ModelMessage[]) {
  return [...round.base, ...splice(compact(session, responses), round.injected)];
}

// The SDK rebuilds each step's messages from its own list, so every injected follow-up is put
// back in its place at every step, not only at the step it arrived, and the tool inputs it holds
// in full are cut down again at every step.
async function prepareStep(session: AgentSession, round: Round, messages: ModelMessage[]) {
  const { options } = session;
  const { keeper, injected } = round;
  const responses = compact(session, messages.slice(round.base.length));
  const arrived = await external(session, () => options.takePendingPrompts());
  if (arrived.length > 0) injected.push({ at: responses.length, messages: arrived.map(userMessage) });
  const prepared = keeper.prepare([...round.base, ...splice(responses, injected)]);
  const sent = prepared.messages;
  // Kept in the conversation at once, so a failing step does not lose the follow-up.
  if (injected.length > 0 || prepared.compaction) session.conversation = sent;
  const { compaction } = prepared;
  if (compaction) await external(session, () => options.onEvent('context', { ...compaction }));
  session.sentTokens = keeper.estimate(sent);
  await reserve(session, session.sentTokens);
  return cachesAtBreakpoints(options.model) ? withBreakpoints(round.system, sent) : { messages: sent };
}

async function stepFinished(session: AgentSession, round: Round, step: StepResult<ToolSet>) {
  // A streamed answer that broke off: the round fails with its error (round.ts) and, like a failed
  // call for a whole answer, the step adds nothing to the run.
  if (session.settled || step.finishReason === 'error') return;
  session.outage.reset();
  session.overflowRetried = false;
  round.keeper.calibrate(session.sentTokens, step.usage.inputTokens);
  session.lastProgressAt = Date.now();
  session.meter.add(step.usage);
  session.countedTokens +=
    Math.max(step.usage.inputTokens ?? 0, session.sentTokens) + (step.usage.outputTokens ?? 0);
  if (step.text.trim() !== '') session.lastText = step.text;
  session.conversation = round.keeper.apply(roundConversation(session, round, step.response.messages));
  const events = [
    ...stepEvents(step, session.redact),
    { type: 'usage' as const, data: { ...session.usage } },
  ];
  // A run that already ended (aborted while this step finished) reports nothing more.
  const { onStep, onEvent } = session.options;
  if (onStep) {
    if (!session.settled) await onStep(events, session.conversation);
    return;
  }
  for (const event of events) {
    if (session.settled) return;
    await onEvent(event.type, event.data);
  }
}

function compact(session: AgentSession, messages: ModelMessage[]): ModelMessage[] {
  return compactToolInputs(messages, session.workspace.maxFileBytes);
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
