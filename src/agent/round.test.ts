import { InvalidResponseDataError, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answer,
  BEGUN,
  brokenOff,
  callTools,
  type StreamPart,
  scriptedModel,
  streamingModel,
} from '../../test/support/agent-fixture.js';
import type { AgentError } from './errors.js';
import { type RoundResult, runRound } from './round.js';

const tools = { look: tool({ inputSchema: z.object({}), execute: async () => 'nothing here' }) };
const messages: ModelMessage[] = [{ role: 'user', content: 'Look around' }];

/** One round with a tool, a user message and no retries. */
function round(model: MockLanguageModelV3, stream: boolean, abortSignal = new AbortController().signal) {
  return runRound({
    model,
    system: 'Be brief.',
    tools,
    messages,
    maxRetries: 0,
    abortSignal,
    stopWhen: [stepCountIs(5)],
    prepareStep: () => undefined,
    onStepFinish: async () => {},
    stream,
  });
}

/** The error a round ended with. */
async function failure(promise: Promise<RoundResult>): Promise<unknown> {
  return promise.then(
    () => expect.fail('the round did not fail'),
    (error: unknown) => error,
  );
}

describe('runRound', () => {
  it('gives the same result whether the answers are streamed or whole', async () => {
    const turns = [callTools([['look', {}]], { text: 'Let me look.' }), answer('Nothing to see')];
    const streamed = await round(scriptedModel(turns), true);
    const whole = await round(scriptedModel(turns), false);
    expect(streamed.text).toBe('Nothing to see');
    expect(streamed.steps).toHaveLength(2);
    expect(streamed.responseMessages.map((message) => message.role)).toEqual([
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(streamed.steps.map((step) => step.usage)).toEqual(whole.steps.map((step) => step.usage));
    expect({ ...streamed, steps: undefined }).toEqual({ ...whole, steps: undefined });
  });

  it('throws, rather than resolve with the steps before it, when a later streamed answer breaks off', async () => {
    const model = twoAnswers(streamingModel(brokenOff({ message: 'Overloaded' })));
    const error = await failure(round(model, true));
    expect(error).toMatchObject({ code: 'model_error', isRetryable: true });
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it("turns a provider's error event into a retryable model_error, without keys", async () => {
    const model = streamingModel(
      brokenOff({ type: 'overloaded_error', message: 'Overloaded; sk-ant-api03-abcdefghijklmnopqrstuv' }),
    );
    const error = await failure(round(model, true));
    expect(error).toMatchObject({ code: 'model_error', isRetryable: true });
    expect((error as AgentError).message).toBe(
      'The model provider failed while streaming its answer: Overloaded; [redacted]',
    );
  });

  it('honours isRetryable and the status of an error event that carries them', async () => {
    const model = streamingModel(
      brokenOff({ message: 'Invalid schema', statusCode: 400, isRetryable: false }),
    );
    const error = await failure(round(model, true));
    expect(error).toMatchObject({ code: 'model_error', isRetryable: false });
    expect((error as AgentError).message).toMatch(/\(HTTP 400\): Invalid schema$/);
  });

  it('turns a connection dropped mid-answer into a retryable model_error', async () => {
    let sent = 0;
    const stream = new ReadableStream<StreamPart>({
      pull(controller) {
        const part = BEGUN[sent++];
        if (part) controller.enqueue(part);
        else controller.error(new TypeError('terminated'));
      },
    });
    const error = await failure(round(streamingModel(stream), true));
    expect(error).toMatchObject({ code: 'model_error', isRetryable: true });
    expect((error as AgentError).message).toMatch(/: terminated$/);
  });

  it("throws the SDK's own error for a malformed answer, as generateText would", async () => {
    const malformed = new InvalidResponseDataError({
      data: {},
      message: 'Stream ended without a finish reason.',
    });
    const error = await failure(round(streamingModel(brokenOff(malformed)), true));
    expect(error).toBe(malformed);
  });

  it('rejects when aborted mid-stream, though the stream then ends quietly with the steps before it', async () => {
    const controller = new AbortController();
    let sent = 0;
    const stream = new ReadableStream<StreamPart>({
      pull(streamController) {
        const part = BEGUN[sent++];
        if (part) return streamController.enqueue(part);
        // What fetch does with an aborted response body.
        controller.abort();
        streamController.error(controller.signal.reason);
      },
    });
    const error = await failure(round(twoAnswers(streamingModel(stream)), true, controller.signal));
    expect(error).toMatchObject({ name: 'AbortError' });
  });
});

/** A model that streams a well-formed call of the tool first, then lets `second` answer. */
function twoAnswers(second: MockLanguageModelV3): MockLanguageModelV3 {
  const first = scriptedModel([callTools([['look', {}]])]);
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doStream: (options) => (model.doStreamCalls.length === 1 ? first : second).doStream(options),
  });
  return model;
}
