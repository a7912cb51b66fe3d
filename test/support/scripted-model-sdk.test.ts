// The scripted model driven by the AI SDK: tool calls, streaming, error turns, an empty script, waits.
import { APICallError, generateText, stepCountIs, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { heldUntil, startScriptedModel } from './scripted-model.js';
import {
  deferred,
  modelAt,
  readFileTool,
  settledFlag,
  toolThenAnswer,
  useScriptedModels,
  waitUntil,
} from './scripted-model-fixture.js';

const start = useScriptedModels();

/** `generateText` of `prompt` on the model at `url` with the read_file tool (its calls kept in `calls`). */
const withReadFile = (url: string, prompt: string, calls: unknown[]) =>
  generateText({
    model: modelAt(url),
    prompt,
    tools: { read_file: readFileTool(calls) },
    stopWhen: stepCountIs(5),
    maxRetries: 0,
  });

describe('scripted model with the AI SDK', () => {
  it('runs a tool call and a final answer through generateText', async () => {
    const server = await start(toolThenAnswer, { prompt_tokens: 7, completion_tokens: 3 });
    const calls: unknown[] = [];
    const result = await withReadFile(server.url, 'What is the intro about?', calls);

    expect(calls).toEqual([{ path: 'docs/intro.md' }]);
    expect(result.text).toBe('The intro is about scripted models.');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.finishReason).toBe('tool-calls');
    expect(result.finishReason).toBe('stop');
    expect(result.totalUsage).toMatchObject({ inputTokens: 14, outputTokens: 6, totalTokens: 20 });

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.headers.authorization).toBe('Bearer test-key');
    expect(first?.body.stream).toBeFalsy();
    expect(first?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'read_file',
    ]);
    // The second request carries the tool result, answering the scripted call id.
    const toolMessage = second?.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_scripted_1_0' });
    expect(JSON.stringify(toolMessage.content)).toContain('contents of docs/intro.md');
  });

  it('runs the same conversation through streamText, with usage when asked for', async () => {
    const server = await start(toolThenAnswer);
    const calls: unknown[] = [];

    const result = streamText({
      model: modelAt(server.url, true),
      prompt: 'What is the intro about?',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);

    expect(calls).toEqual([{ path: 'docs/intro.md' }]);
    expect(await result.text).toBe('The intro is about scripted models.');
    expect(deltas.join('')).toBe('Reading the intro.The intro is about scripted models.');
    expect(deltas.length).toBeGreaterThan(2);
    expect(await result.totalUsage).toMatchObject({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(server.requests.map((request) => request.body.stream)).toEqual([true, true]);
    expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });

  it.each([500, 429])('surfaces an HTTP %i error turn from generateText', async (status) => {
    const server = await start([
      { error: { status, headers: { 'retry-after': '0', 'x-scripted': 'yes' } } },
      { text: 'not reached' },
    ]);

    const failure = await generateText({ model: modelAt(server.url), prompt: 'hi', maxRetries: 0 }).catch(
      (error: unknown) => error,
    );

    expect(APICallError.isInstance(failure)).toBe(true);
    const error = failure as APICallError;
    expect(error.statusCode).toBe(status);
    expect(error.isRetryable).toBe(true);
    expect(error.message).toBe(`scripted error: HTTP ${status}`);
    expect(error.responseHeaders?.['x-scripted']).toBe('yes');
    expect(server.requests).toHaveLength(1);
  });

  it('passes a scripted error body through and surfaces the error in streamText', async () => {
    const body = {
      error: { message: 'too many requests, slow down', type: 'rate_limit', code: 'rate_limit' },
    };
    const server = await start([{ error: { status: 429, body } }]);
    const errors: unknown[] = [];

    const result = streamText({
      model: modelAt(server.url),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await expect(result.text).rejects.toThrow();

    expect(errors).toHaveLength(1);
    expect((errors[0] as APICallError).statusCode).toBe(429);
    expect((errors[0] as APICallError).message).toBe('too many requests, slow down');
  });

  it('answers a clear 500 when the script runs out, and setScript refills it', async () => {
    const server = await start([{ text: 'only answer' }]);
    const model = modelAt(server.url);

    expect((await generateText({ model, prompt: 'one', maxRetries: 0 })).text).toBe('only answer');
    const failure = await generateText({ model, prompt: 'two', maxRetries: 0 }).catch(
      (error: Error) => error,
    );
    expect((failure as APICallError).statusCode).toBe(500);
    expect((failure as Error).message).toMatch(/script ran out.*request #2/);

    server.setScript([{ text: 'refilled' }]);
    expect((await generateText({ model, prompt: 'three', maxRetries: 0 })).text).toBe('refilled');
  });

  it.each([false, true])('holds a waitFor turn until it is released (streaming: %s)', async (streaming) => {
    const gate = deferred();
    // biome-ignore lint/suspicious/noThenProperty: the literal ScriptedTurn shape, as tests may write it
    const server = await start([{ waitFor: gate.promise, then: { text: 'released' } }]);
    const model = modelAt(server.url);
    const call = streaming
      ? streamText({ model, prompt: 'wait', maxRetries: 0 }).text
      : generateText({ model, prompt: 'wait', maxRetries: 0 }).then((result) => result.text);
    const state = settledFlag(call);

    await waitUntil(() => server.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(state.settled).toBe(false);

    gate.resolve();
    expect(await call).toBe('released');
  });

  it('starts a waitFor function only when its request arrives, and nests waits', async () => {
    const gate = deferred();
    let started = 0;
    const server = await start([
      { text: 'first' },
      heldUntil(
        () => {
          started += 1;
          return gate.promise;
        },
        heldUntil(Promise.resolve(), { text: 'second' }),
      ),
    ]);
    const model = modelAt(server.url);

    expect((await generateText({ model, prompt: 'one', maxRetries: 0 })).text).toBe('first');
    expect(started).toBe(0);
    const second = generateText({ model, prompt: 'two', maxRetries: 0 });
    await waitUntil(() => started === 1);
    gate.resolve();
    expect((await second).text).toBe('second');
  });

  it('survives a client that aborts a held request', async () => {
    const server = await start([heldUntil(new Promise<void>(() => {}), { text: 'never' })]);
    const model = modelAt(server.url);
    const abort = new AbortController();

    const held = generateText({ model, prompt: 'wait', maxRetries: 0, abortSignal: abort.signal });
    await waitUntil(() => server.requests.length === 1);
    abort.abort();
    await expect(held).rejects.toThrow();

    server.setScript([{ text: 'still here' }]);
    expect((await generateText({ model, prompt: 'again', maxRetries: 0 })).text).toBe('still here');
  });

  it('closes promptly while a request is still held', async () => {
    const server = await startScriptedModel({
      script: [heldUntil(new Promise<void>(() => {}), { text: 'x' })],
    });
    const held = generateText({ model: modelAt(server.url), prompt: 'wait', maxRetries: 0 });
    const outcome = held.then(
      () => 'answered',
      () => 'failed',
    );
    await waitUntil(() => server.requests.length === 1);

    await server.close();
    expect(await outcome).toBe('failed');
  });

  it('lets the agent see malformed tool arguments sent verbatim', async () => {
    const server = await start([
      { toolCalls: [{ name: 'read_file', input: '{"path": ' }] },
      { text: 'I will try again.' },
    ]);
    const calls: unknown[] = [];
    const result = await withReadFile(server.url, 'read', calls);

    expect(calls).toEqual([]);
    expect(result.steps[0]?.content.some((part) => part.type === 'tool-error')).toBe(true);
    expect(result.text).toBe('I will try again.');
  });
});
