/**
 * One round of the tool loop: the AI SDK's multi-step call, with the model's answers either
 * generated whole (`generateText`) or streamed as they are written (`streamText`). Both modes take
 * the same settings and callbacks, call them in the same order, and end the same way: a result, or
 * a rejection with the error that ended the round.
 *
 * That last part takes work in the streaming mode: `streamText` never throws. A failure becomes an
 * `error` part of the stream (and a call of `onError`), and the stream then ends as if nothing had
 * happened; after a failure at a later step its `steps` even resolve with the steps before it. So
 * the stream is read to its end and the first failure is thrown afterwards.
 */
import {
  AISDKError,
  generateText,
  type LanguageModel,
  type ModelMessage,
  type PrepareStepFunction,
  type StepResult,
  type StopCondition,
  streamText,
  type ToolSet,
} from 'ai';
import { streamError } from './report.js';

/** What a round is given: the SDK's settings and callbacks, and how the answers are fetched. */
export interface RoundSettings {
  /** Stream the answers (`streamText`) rather than wait for each whole (`generateText`). */
  stream: boolean;
  model: LanguageModel;
  system: string;
  tools: ToolSet;
  messages: ModelMessage[];
  maxRetries: number;
  abortSignal: AbortSignal;
  stopWhen: StopCondition<ToolSet>[];
  prepareStep: PrepareStepFunction<ToolSet>;
  onStepFinish: (step: StepResult<ToolSet>) => Promise<void>;
}

/** A finished round. */
export interface RoundResult {
  steps: StepResult<ToolSet>[];
  /** The messages of every step (assistant and tool), in order. */
  responseMessages: ModelMessage[];
  /** The last step's text. */
  text: string;
}

/**
 * Runs one round.
 *
 * @throws what `generateText` would throw: the SDK's error (a `RetryError` or `APICallError` once
 * the retries are spent, a malformed answer's error), the signal's reason when it aborts, or an
 * error of a callback. A streamed failure that is not the SDK's own (a provider's error event, a
 * connection dropped mid-answer) is thrown as an `AgentError` `model_error`.
 */
export async function runRound(settings: RoundSettings): Promise<RoundResult> {
  const { stream, ...call } = settings;
  if (!stream) {
    const result = await generateText(call);
    return { steps: result.steps, responseMessages: result.response.messages, text: result.text };
  }

  let failure: { error: unknown } | null = null;
  const result = streamText({
    ...call,
    // Recorded instead of the SDK's default, which logs to the console and carries on.
    onError: ({ error }) => {
      failure ??= { error };
    },
  });
  try {
    // Reading the stream is what drives it: steps, tool calls and callbacks happen as it is read.
    for await (const _part of result.fullStream) {
      // The parts themselves are not needed: every step reaches the loop through `onStepFinish`.
    }
  } catch (error) {
    // The stream itself broke (e.g. the connection dropped), rather than reporting an error part.
    failure ??= { error };
  }
  // An aborted stream ends quietly, with the steps it had: it must not pass for a finished round.
  call.abortSignal.throwIfAborted();
  if (failure) {
    const { error } = failure;
    throw AISDKError.isInstance(error) ? error : streamError(error);
  }
  const steps = await result.steps;
  const last = steps.at(-1);
  return { steps, responseMessages: last?.response.messages ?? [], text: last?.text ?? '' };
}
