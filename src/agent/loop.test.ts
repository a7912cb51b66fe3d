import { APICallError } from 'ai';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  brokenOff,
  callsOf,
  callTools,
  createFixture,
  type Fixture,
  type ModelTurn,
  mockModel,
  scriptedModel,
  startAgentOver,
  streamingModel,
} from '../../test/support/agent-fixture.js';
import { AgentError, type AgentLimits, type AgentResult, type RunAgentOptions } from './loop.js';

const LIMITS: AgentLimits = { maxSteps: 20, maxWallMs: 10_000, maxTokens: 1_000_000, maxFilesChanged: 10 };

let fixture: Fixture;

beforeAll(async () => {
  // The limits' scenarios list a folder and write new files; nothing more is needed.
  fixture = await createFixture({ files: { 'docs/index.md': 'Index\nSee the guide\n' } });
});

afterAll(async () => {
  await fixture.cleanup();
});

/** Runs the agent over a fresh workspace, recording events; `overrides` replace any option. */
const startAgent = (model: MockLanguageModelV3, overrides: Partial<RunAgentOptions> = {}) =>
  startAgentOver(fixture, model, LIMITS, overrides);

/** The error a run ended with. */
async function failure(run: Promise<AgentResult>): Promise<AgentError> {
  const error = await run.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

// Every scenario runs twice: with the model's answers streamed (the default) and whole.
describe.each([true, false])('with stream: %s', (stream) => {
  /** `startAgent` in this mode. */
  const start = (model: MockLanguageModelV3, overrides: Partial<RunAgentOptions> = {}) =>
    startAgent(model, { stream, ...overrides });

  describe('runAgent limits and failures', () => {
    const looping = () => mockModel(async () => callTools([['list_files', { path: 'docs' }]]));

    it('ends with step_limit when the steps run out', async () => {
      const model = looping();
      const { run, events } = await start(model, { limits: { ...LIMITS, maxSteps: 3 } });
      const error = await failure(run);
      expect(error.code).toBe('step_limit');
      expect(error.isRetryable).toBe(false);
      expect(callsOf(model)).toHaveLength(3);
      expect(error.partial?.usage.steps).toBe(3);
      // The failure is reported once, by whoever records it (the worker), not by the agent too.
      expect(events.some((event) => event.type === 'error')).toBe(false);
    });

    it('ends with token_limit once the tokens are spent', async () => {
      const model = mockModel(async () =>
        callTools([['list_files', { path: 'docs' }]], { tokens: [50_000, 20] }),
      );
      const error = await failure((await start(model, { limits: { ...LIMITS, maxTokens: 100_000 } })).run);
      expect(error.code).toBe('token_limit');
      expect(callsOf(model)).toHaveLength(2);
      expect(error.partial?.usage).toEqual({
        inputTokens: 100_000,
        outputTokens: 40,
        cachedInputTokens: 0,
        steps: 2,
        costUsd: null,
      });
    });

    it('counts what it sent when the provider reports fewer tokens, so the limit still holds', async () => {
      // A provider that says every call cost one token: only the estimate of what was sent counts.
      const model = mockModel(async () => callTools([['list_files', { path: 'docs' }]], { tokens: [1, 1] }));
      const error = await failure((await start(model, { limits: { ...LIMITS, maxTokens: 5000 } })).run);
      expect(error.code).toBe('token_limit');
      expect(error.partial?.usage.inputTokens).toBeLessThan(20);
      expect(callsOf(model).length).toBeLessThan(10);
    });

    it('refuses the change over maxFilesChanged and ends with files_limit', async () => {
      const model = scriptedModel([
        callTools([
          ['write_file', { path: 'a.md', content: 'a' }],
          ['write_file', { path: 'b.md', content: 'b' }],
          ['write_file', { path: 'c.md', content: 'c' }],
        ]),
        answer('never reached'),
      ]);
      const { run, workspace } = await start(model, { limits: { ...LIMITS, maxFilesChanged: 2 } });
      const error = await failure(run);
      expect(error.code).toBe('files_limit');
      expect(callsOf(model)).toHaveLength(1);
      expect(workspace.changedPaths()).toEqual(['a.md', 'b.md']);
      expect(error.partial?.filesChanged).toEqual(['a.md', 'b.md']);
      const last = error.partial?.messages.at(-1);
      expect(JSON.stringify(last)).toContain('may change at most 2 files');
    });

    /** A model call that only ends when its abort signal fires. */
    const hanging = () =>
      mockModel(
        ({ abortSignal }) =>
          new Promise<ModelTurn>((_, reject) =>
            abortSignal?.addEventListener('abort', () => reject(abortSignal.reason), { once: true }),
          ),
      );

    it('ends with time_limit when the wall clock runs out mid-call', async () => {
      const began = Date.now();
      const error = await failure((await start(hanging(), { limits: { ...LIMITS, maxWallMs: 200 } })).run);
      expect(error.code).toBe('time_limit');
      expect(Date.now() - began).toBeLessThan(2000);
    });

    it('ends with aborted within 2 s of the signal, even when the provider ignores it', async () => {
      for (const model of [hanging(), mockModel(() => new Promise(() => {}))]) {
        const controller = new AbortController();
        const { run, events } = await start(model, { signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        const began = Date.now();
        const error = await failure(run);
        expect(error.code).toBe('aborted');
        expect(Date.now() - began).toBeLessThan(2000);
        expect(events.some((event) => event.type === 'error')).toBe(false);
      }
    });

    it('turns a provider error into model_error after the retries, without keys', async () => {
      const model = mockModel(async () => {
        throw new APICallError({
          message: 'Overloaded; key sk-ant-api03-abcdefghijklmnopqrstuvwxyz was fine',
          url: 'https://api.example.com/v1/messages',
          requestBodyValues: {},
          statusCode: 500,
          // Keeps the SDK's backoff to a millisecond in the test.
          responseHeaders: { 'retry-after-ms': '1' },
        });
      });
      const { run, events } = await start(model, { modelOutageWaitMs: 0 });
      const error = await failure(run);
      expect(error.code).toBe('model_error');
      expect(error.isRetryable).toBe(true);
      expect(callsOf(model)).toHaveLength(4);
      expect(error.message).toMatch(/after 4 attempts \(HTTP 500\): Overloaded/);
      expect(error.message).not.toContain('sk-ant-');
      expect(JSON.stringify(events)).not.toContain('sk-ant-');
    });

    it('marks a bad request as a model_error that is not retryable, after one call', async () => {
      const model = mockModel(async () => {
        throw new APICallError({
          message: 'Bad tool schema',
          url: 'x',
          requestBodyValues: {},
          statusCode: 400,
        });
      });
      const error = await failure((await start(model)).run);
      expect(error).toMatchObject({ code: 'model_error', isRetryable: false });
      expect(callsOf(model)).toHaveLength(1);
    });

    it('ends with model_error when the provider fails at a later step, keeping the steps before it', async () => {
      let calls = 0;
      const model = mockModel(async () => {
        calls += 1;
        if (calls === 1) return callTools([['list_files', { path: 'docs' }]]);
        throw new APICallError({ message: 'Bad request', url: 'x', requestBodyValues: {}, statusCode: 400 });
      });
      const { run, events } = await start(model);
      const error = await failure(run);
      expect(error).toMatchObject({ code: 'model_error', isRetryable: false });
      expect(error.message).toMatch(/\(HTTP 400\): Bad request/);
      expect(callsOf(model)).toHaveLength(2);
      expect(events.map((event) => event.type)).toEqual(['tool_call', 'tool_result', 'usage']);
      expect(error.partial?.usage.steps).toBe(1);
      expect(error.partial?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    });

    it('rethrows an error from the event sink as it is', async () => {
      const lost = new Error('lease lost');
      const model = looping();
      const { run } = await start(model, {
        onEvent: async () => {
          throw lost;
        },
      });
      await expect(run).rejects.toBe(lost);
      expect(callsOf(model)).toHaveLength(1);
    });

    it('rethrows an error from takePendingPrompts as it is', async () => {
      const lost = new Error('database gone');
      const model = looping();
      let asked = 0;
      const { run, events } = await start(model, {
        takePendingPrompts: async () => {
          asked += 1;
          if (asked === 2) throw lost;
          return [];
        },
      });
      await expect(run).rejects.toBe(lost);
      expect(callsOf(model)).toHaveLength(1);
      expect(events.some((event) => event.type === 'error')).toBe(false);
    });
  });
});

// What only a streamed answer can do: break off midway. (round.test.ts has the other failures.)
describe('runAgent with a streamed answer that breaks off', () => {
  it('ends with model_error, the broken step adding nothing to the run', async () => {
    const model = streamingModel(
      brokenOff({ type: 'overloaded_error', message: 'Overloaded sk-ant-api03-abcdefghijklmnopqrstuv' }),
    );
    const { run, events } = await startAgent(model, { modelOutageWaitMs: 0 });
    const error = await failure(run);
    expect(error).toMatchObject({ code: 'model_error', isRetryable: true });
    expect(error.message).toMatch(/while streaming its answer: Overloaded \[redacted\]/);
    // Like a failed call for a whole answer: no events, usage or messages of its own.
    expect(events).toEqual([]);
    expect(error.partial?.usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      steps: 0,
      costUsd: null,
    });
    expect(error.partial?.messages.map((message) => message.role)).toEqual(['user']);
  });
});
